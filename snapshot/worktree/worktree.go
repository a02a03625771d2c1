// Package worktree lists the uncommitted changes of a git snapshot's
// tenancy files in the repository's work tree: a snapshot reads the ref,
// never the work tree, so a file edited and not committed is not in it,
// and the CLI says so.
package worktree

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/snapshot/gitref"
)

// Uncommitted is a tenancy file that the work tree has changed since the
// last commit: modified, deleted or added (staged or not), or a new
// *.yaml/*.yml file under a --tenancy folder that git does not track yet.
type Uncommitted struct {
	Path  string // relative to the repository root, slash-separated
	State string // "modified", "deleted", "added" (staged, not committed) or "untracked"
}

// Changes lists the tenancy files of src (the --tenancy files and
// the YAML files under its folders) that have changes not committed in the
// repository's work tree, as `git status` sees them (ignored files are
// left out, as git leaves them). A bare repository has no work tree: nil.
// A snapshot reads the ref, never the work tree, so these changes are not
// in it; the CLI says so in a note.
func Changes(src snapshot.GitSource) ([]Uncommitted, error) {
	// One git process finds a work tree's top (gitcli.LocateCommit, at
	// HEAD); a bare repository, a git directory or a repository without a
	// commit yet are found by gitcli.Locate.
	place, _, ok := gitcli.LocateCommit(src.Repo, "HEAD")
	var err error
	if !ok {
		if place, err = gitcli.Locate(src.Repo); err != nil {
			return nil, err
		}
	}
	if place.Bare || place.InGitDir {
		return nil, nil
	}
	args := []string{"-c", "core.quotePath=false", "status", "--porcelain=v1", "-z", "--no-renames", "--untracked-files=all", "--"}
	folders := map[string]bool{}
	for _, p := range src.Paths {
		rel, err := gitref.RepoRelative(place.Root, "", p) // --tenancy: from the root
		if err != nil {
			return nil, err
		}
		args = append(args, ":(top,literal)"+rel)
		folders[rel] = true
	}
	out, err := gitcli.Repo{Dir: place.Root}.Run(nil, args...)
	if err != nil {
		return nil, err
	}
	var list []Uncommitted
	for _, rec := range bytes.Split(out, []byte{0}) {
		// "XY path": X is the index's state, Y the work tree's.
		if len(rec) < 4 {
			continue
		}
		xy, name := string(rec[:2]), string(rec[3:])
		if !folders[name] && !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") {
			continue // in a folder, only YAML files are tenancy
		}
		list = append(list, Uncommitted{Path: name, State: statusWord(xy)})
	}
	slices.SortFunc(list, func(a, b Uncommitted) int { return strings.Compare(a.Path, b.Path) })
	return list, nil
}

// statusWord names a `git status --porcelain` state.
func statusWord(xy string) string {
	switch {
	case xy == "??":
		return "untracked"
	case strings.Contains(xy, "D"):
		return "deleted"
	case xy[0] == 'A':
		return "added"
	}
	return "modified"
}

// Note is the note a git snapshot prints when the work tree has
// uncommitted changes to its tenancy files: which, and that the snapshot
// read the ref (at commit) without them. "" when there are none.
func Note(list []Uncommitted, ref, commit string) string {
	at := fmt.Sprintf("the snapshot reads %s (commit %s), not the work tree", ref, words.ShortID(commit))
	switch len(list) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%s is %s in the work tree and not committed; %s, so it does not have the change: commit it and take the snapshot again to plan with it",
			list[0].Path, list[0].State, at)
	}
	names := make([]string, len(list))
	for i, u := range list {
		names[i] = u.Path + " (" + u.State + ")"
	}
	return fmt.Sprintf("%s have changes in the work tree that are not committed: %s; %s, so it does not have them: commit them and take the snapshot again to plan with them",
		words.Count(len(list), "tenancy file"), words.List(names, 5), at)
}
