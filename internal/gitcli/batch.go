package gitcli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"strconv"
	"strings"
)

// exitError is Run's error for a command that ended with err: an *Error
// carrying stderr for a non-zero exit, else "git: ..." (git did not run).
func exitError(args []string, stderr string, err error) error {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return fmt.Errorf("git: %w", err)
	}
	return &Error{Args: args, Stderr: stderr, Err: err}
}

// Started is a git command running in the background (Repo.Start).
type Started struct {
	cmd       *exec.Cmd
	args      []string
	out, errb bytes.Buffer
}

// Start is Run without waiting: git starts now, reading stdin (may be
// nil), and Wait returns what Run would have. Every Started must be
// waited for.
func (r Repo) Start(stdin []byte, args ...string) (*Started, error) {
	s := &Started{cmd: r.command(args), args: args}
	if stdin != nil {
		s.cmd.Stdin = bytes.NewReader(stdin)
	}
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.errb
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("git: %w", err)
	}
	return s, nil
}

// Wait waits for the command and returns its stdout, as Run does.
func (s *Started) Wait() ([]byte, error) {
	if err := s.cmd.Wait(); err != nil {
		return s.out.Bytes(), exitError(s.args, s.errb.String(), err)
	}
	return s.out.Bytes(), nil
}

// Batch is one `git cat-file --batch` process that answers questions
// about objects one after another, instead of a git process for each
// (cat-file -e, cat-file -t, cat-file blob). It is not safe for use by
// several goroutines at once. Close ends it and must always be called.
type Batch struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	errb bytes.Buffer
	err  error // the first failure: every later question gets it
	// finished is set once the process is waited for, with its error.
	finished bool
	waitErr  error
}

// Batch starts `git cat-file --batch` in the repository.
func (r Repo) Batch() (*Batch, error) {
	b := &Batch{cmd: r.command([]string{"cat-file", "--batch"})}
	b.cmd.Stderr = &b.errb
	in, err := b.cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("git: %w", err)
	}
	out, err := b.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git: %w", err)
	}
	if err := b.cmd.Start(); err != nil {
		return nil, fmt.Errorf("git: %w", err)
	}
	b.in, b.out = in, bufio.NewReaderSize(out, 64<<10)
	return b, nil
}

// Object is what git has for name (an object id or a revision such as
// COMMIT^{commit}, COMMIT^{tree} or COMMIT:path): the object's id, its
// type ("blob", "tree", "commit", "tag") and its bytes, as `git cat-file
// <type> <id>` prints them. ok is false when the name names no object
// (cat-file -e fails for it). A name holding a newline is an error: it
// would be two questions.
func (b *Batch) Object(name string) (id, kind string, data []byte, ok bool, err error) {
	if strings.ContainsAny(name, "\n\x00") {
		return "", "", nil, false, fmt.Errorf("git cat-file --batch: the name %q holds a newline", name)
	}
	if b.err != nil {
		return "", "", nil, false, b.err
	}
	id, kind, data, ok, err = b.ask(name)
	if err != nil {
		b.err = err
	}
	return id, kind, data, ok, err
}

// ask writes one question and reads its answer (readAnswer).
func (b *Batch) ask(name string) (id, kind string, data []byte, ok bool, err error) {
	if _, err := io.WriteString(b.in, name+"\n"); err != nil {
		return "", "", nil, false, b.failed(err)
	}
	a, err := readAnswer(b.out, math.MaxInt64)
	switch {
	case errors.Is(err, errUnexpected):
		return "", "", nil, false, fmt.Errorf("%w for %q", err, name)
	case err != nil:
		return "", "", nil, false, b.failed(err)
	}
	return a.id, a.kind, a.data, a.found, nil
}

// answer is one answer of `git cat-file --batch`.
type answer struct {
	id, kind string
	size     int64
	data     []byte // nil when the object is over readAnswer's max
	found    bool   // false for "<name> missing" (or "ambiguous")
}

// errUnexpected is readAnswer's error for an answer line that is not one.
var errUnexpected = errors.New("git cat-file --batch: unexpected answer")

// readAnswer reads one answer of `git cat-file --batch`: "<id> <type>
// <size>\n", the object's bytes and "\n"; or "<name> missing\n" (or
// "ambiguous"). An object of more than max bytes is not read (its data is
// nil): the caller stops git, which may still be writing it. A failed read
// is its error as it is; a line that is no answer wraps errUnexpected.
func readAnswer(out *bufio.Reader, max int64) (answer, error) {
	head, err := out.ReadString('\n')
	if err != nil {
		return answer{}, err
	}
	head = strings.TrimSuffix(head, "\n")
	if strings.HasSuffix(head, " missing") || strings.HasSuffix(head, " ambiguous") {
		return answer{}, nil
	}
	f := strings.Fields(head)
	if len(f) != 3 || !isObjectID(f[0]) {
		return answer{}, fmt.Errorf("%w %q", errUnexpected, head)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return answer{}, fmt.Errorf("%w %q", errUnexpected, head)
	}
	a := answer{id: f[0], kind: f[1], size: size, found: true}
	if size > max {
		return a, nil
	}
	data := make([]byte, size+1) // the bytes and git's "\n" after them
	if _, err := io.ReadFull(out, data); err != nil {
		return answer{}, err
	}
	if data[size] != '\n' {
		return answer{}, fmt.Errorf("git cat-file --batch: the object %s does not end where its size says", f[0])
	}
	a.data = data[:size:size]
	return a, nil
}

// failed is the error of a question git did not answer: git is ended
// (finish), and what it said on stderr is the error.
func (b *Batch) failed(err error) error {
	b.finish()
	if msg := strings.TrimSpace(b.errb.String()); msg != "" {
		return fmt.Errorf("git cat-file --batch: %s", msg)
	}
	return fmt.Errorf("git cat-file --batch: %w", err)
}

// finish ends the process once: its input is closed, whatever it still
// prints is read and dropped (so that it never blocks on a full pipe),
// and it is waited for.
func (b *Batch) finish() {
	if b.finished {
		return
	}
	b.finished = true
	b.in.Close()
	_, _ = io.Copy(io.Discard, b.out)
	b.waitErr = b.cmd.Wait()
}

// Close ends the process (finish). The error is the first question's
// that failed, else git's exit status.
func (b *Batch) Close() error {
	b.finish()
	if b.err != nil || b.waitErr == nil {
		return b.err
	}
	return exitError([]string{"cat-file", "--batch"}, b.errb.String(), b.waitErr)
}

// LocateObjects is Locate, with the repository's object directory
// (absolute), in one git rev-parse for the top of a work tree or a folder
// inside one. Elsewhere (a bare repository or a git directory, where
// --show-toplevel fails; a git before 2.31, without --path-format; a path
// holding a newline, which makes the answer ambiguous) it is Locate, and
// objects is "": the caller asks for it on its own.
func LocateObjects(dir string) (p Place, objects string, err error) {
	out, err := Repo{Dir: dir}.Run(nil, "rev-parse", "--is-bare-repository", "--is-inside-git-dir",
		"--path-format=absolute", "--git-path", "objects", "--show-toplevel")
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if err != nil || len(lines) != 4 || lines[0] != "false" || lines[1] != "false" || lines[2] == "" || lines[3] == "" {
		p, err := Locate(dir)
		return p, "", err
	}
	return Place{Dir: dir, Root: lines[3]}, lines[2], nil
}
