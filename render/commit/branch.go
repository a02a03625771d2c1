package commit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/internal/gitcli"
)

// newBranch is the branch a splice will write: its ref, and the commit it
// holds now ("" for a branch that does not exist yet).
type newBranch struct {
	name, ref, old string
}

// checkBranch decides, before anything is written, whether the splice may
// write branch in repo (at place) on top of parent. It refuses what git's
// own rules refuse (git check-ref-format --branch: "-x", "a..b", control
// characters, "x.lock", ...), git's shorthands for other branches ("@" is
// HEAD, "@{-1}" the branch checked out before), an existing branch unless
// force (and, even then, one checked out in a work tree, which would no
// longer match its files), and a name that git could not create there
// (refs/heads/a exists and the name is a/b, or the reverse), which it asks
// git's ref transaction about without committing it.
func checkBranch(repo gitcli.Repo, place gitcli.Place, branch, parent string, force bool) (newBranch, error) {
	if branch == "@" {
		return newBranch{}, errors.New(`branch name "@" is git's shorthand for HEAD: give the new branch a name of its own`)
	}
	out, err := repo.Line("check-ref-format", "--branch", branch)
	if err != nil {
		return newBranch{}, fmt.Errorf("branch name %q is not valid: git check-ref-format --branch refuses it (see git help check-ref-format)", branch)
	}
	if out != branch {
		return newBranch{}, fmt.Errorf("branch name %q is git's shorthand for the branch %q: give the new branch a name of its own", branch, out)
	}
	b := newBranch{name: branch, ref: "refs/heads/" + branch}
	if old, err := repo.Line("rev-parse", "--verify", "--quiet", b.ref); err == nil {
		if !force {
			return newBranch{}, fmt.Errorf("branch %s already exists in %s; pass --branch NAME, or --force to move it to the new commit", branch, place)
		}
		wt, err := checkedOutIn(repo, b.ref)
		if err != nil {
			return newBranch{}, err
		}
		if wt != "" {
			return newBranch{}, fmt.Errorf("branch %s is checked out in %s: --force does not move a checked-out branch (the work tree would no longer match it); pass another --branch", branch, wt)
		}
		b.old = old
	}
	// Ask git's ref transaction, then abort it: whatever the ref backend,
	// a name that cannot be created fails here, before any object moves.
	op := fmt.Sprintf("create %s %s\n", b.ref, parent)
	if b.old != "" {
		op = fmt.Sprintf("update %s %s %s\n", b.ref, parent, b.old)
	}
	if _, err := repo.Run([]byte("start\n"+op+"prepare\nabort\n"), "update-ref", "--stdin"); err != nil {
		why := err.Error()
		var ge *gitcli.Error
		if errors.As(err, &ge) {
			why = strings.TrimPrefix(strings.TrimSpace(ge.Stderr), "fatal: ")
			why = strings.TrimPrefix(why, "prepare: ")
		}
		return newBranch{}, fmt.Errorf("branch %s cannot be created in %s: %s", branch, place, why)
	}
	return b, nil
}

// checkedOutIn is the work tree that has ref checked out, or "".
func checkedOutIn(repo gitcli.Repo, ref string) (string, error) {
	out, err := repo.Run(nil, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return "", err
	}
	wt := ""
	for _, attr := range strings.Split(string(out), "\x00") {
		if p, ok := strings.CutPrefix(attr, "worktree "); ok {
			wt = p
		}
		if attr == "branch "+ref {
			return wt, nil
		}
	}
	return "", nil
}
