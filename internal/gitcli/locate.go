package gitcli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Place is where a folder is in git, as git itself finds the repository
// from it (searching upward, as every git command does).
type Place struct {
	// Dir is the folder as given.
	Dir string
	// Root is the repository's own folder (absolute): the top of the work
	// tree, or the git directory of a bare repository (or of a work tree,
	// when Dir is inside its .git folder).
	Root string
	// Bare is set for a bare repository (no work tree).
	Bare bool
	// InGitDir is set when Dir is inside a work tree's git directory.
	InGitDir bool
}

// Locate asks git which repository holds dir. A folder that no
// repository holds is an error: "DIR is not in a git repository"; a
// repository git will not open because another user owns it
// (safe.directory) is an error that says so, with git's advice: "DIR:
// git refuses the repository: detected dubious ownership in repository
// at 'ROOT'; To add an exception for this directory, call: git config
// --global --add safe.directory ROOT".
func Locate(dir string) (Place, error) {
	r := Repo{Dir: dir}
	out, err := r.Line("rev-parse", "--is-bare-repository", "--is-inside-git-dir")
	flags := strings.Fields(out)
	if err != nil || len(flags) != 2 {
		return Place{}, notARepository(dir, err)
	}
	p := Place{Dir: dir, Bare: flags[0] == "true", InGitDir: flags[0] != "true" && flags[1] == "true"}
	what := "--show-toplevel"
	if p.Bare || p.InGitDir {
		what = "--absolute-git-dir"
	}
	// One path per call, without only git's final newline: a folder's
	// name may hold a newline of its own.
	b, err := r.Run(nil, "rev-parse", what)
	if err != nil {
		return Place{}, fmt.Errorf("%s: %w", dir, err)
	}
	p.Root = strings.TrimSuffix(string(b), "\n")
	return p, nil
}

// AtRoot reports whether Dir is the repository's own folder.
func (p Place) AtRoot() bool {
	abs, err := filepath.Abs(p.Dir)
	if err != nil {
		return false
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	root := p.Root
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return abs == root
}

// String names the repository as a message should: DIR for the top of a
// work tree, "DIR (a bare repository)", and for a folder inside a
// repository the repository's folder and what it is: "ROOT (the
// repository that holds DIR)", "ROOT (the bare repository that holds
// DIR)", "ROOT (the git directory that holds DIR)".
func (p Place) String() string {
	what := "repository"
	switch {
	case p.Bare:
		what = "bare repository"
	case p.InGitDir:
		what = "git directory"
	}
	switch {
	case !p.AtRoot():
		return p.Root + " (the " + what + " that holds " + p.Dir + ")"
	case p.Bare:
		return p.Dir + " (a bare repository)"
	case p.InGitDir:
		return p.Dir + " (the git directory of a work tree)"
	}
	return p.Dir
}

// notARepository is Locate's error for dir, where git's rev-parse failed
// with err: a *RefusedError in git's own words when git refused an
// existing repository as another user's (which would otherwise read as
// no repository at all, and send the user looking for a .git folder that
// is there).
func notARepository(dir string, err error) error {
	var ge *Error
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "dubious ownership") {
		var msg strings.Builder
		for _, l := range strings.Split(ge.Stderr, "\n") {
			if l = strings.TrimSpace(strings.TrimPrefix(l, "fatal: ")); l != "" {
				if msg.Len() > 0 && !strings.HasSuffix(msg.String(), ":") {
					msg.WriteString(";")
				}
				if msg.Len() > 0 {
					msg.WriteString(" ")
				}
				msg.WriteString(l)
			}
		}
		return &RefusedError{Dir: dir, Reason: msg.String()}
	}
	return fmt.Errorf("%s is not in a git repository", dir)
}

// RefusedError is Locate's error for a repository git will not open
// (safe.directory): Reason is git's message, its lines joined.
type RefusedError struct{ Dir, Reason string }

func (e *RefusedError) Error() string { return e.Dir + ": git refuses the repository: " + e.Reason }
