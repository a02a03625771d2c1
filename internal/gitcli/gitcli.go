// Package gitcli runs the git command line for krmplan's plumbing: reading
// blobs at a ref and writing objects, trees, commits and refs. Using git
// itself keeps every repository format, hook-free plumbing and signing
// behaviour exactly as the user's git has it.
package gitcli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// Repo is a git repository (a work tree or a bare repository) on disk.
type Repo struct {
	Dir string
	// Env is added to the environment of every command (e.g. GIT_INDEX_FILE).
	Env []string
}

// Error is a failed git command with what git printed on stderr.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *Error) Unwrap() error { return e.Err }

// Run runs git with args in the repository, feeding stdin (may be nil), and
// returns stdout. A non-zero exit is an *Error carrying stderr.
func (r Repo) Run(stdin []byte, args ...string) ([]byte, error) {
	cmd := r.command(args)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return nil, fmt.Errorf("git: %w", err)
		}
		return out.Bytes(), &Error{Args: args, Stderr: errb.String(), Err: err}
	}
	return out.Bytes(), nil
}

// Line runs git and returns its stdout without the trailing newline.
func (r Repo) Line(args ...string) (string, error) {
	out, err := r.Run(nil, args...)
	return strings.TrimRight(string(out), "\n"), err
}

// ErrOutputLimit is RunLimited's error for a command that printed more
// than its limit.
var ErrOutputLimit = errors.New("git printed more than the limit")

// RunLimited is Run for a command whose output may be large: it stops git
// and returns ErrOutputLimit as soon as stdout passes limit bytes, so that
// no more than limit+1 bytes are ever held.
func (r Repo) RunLimited(limit int64, args ...string) ([]byte, error) {
	cmd := r.command(args)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git: %w", err)
	}
	var out bytes.Buffer
	_, rerr := out.ReadFrom(io.LimitReader(stdout, limit+1))
	if rerr == nil && int64(out.Len()) > limit {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, ErrOutputLimit
	}
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return nil, fmt.Errorf("git: %w", err)
		}
		return out.Bytes(), &Error{Args: args, Stderr: errb.String(), Err: err}
	}
	if rerr != nil {
		return nil, fmt.Errorf("git: %w", rerr)
	}
	return out.Bytes(), nil
}
