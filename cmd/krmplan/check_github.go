package main

// check --format github in a pull request: which lines the pull request
// changed (--base), by git, and the findings' files named from the
// repository's root, as GitHub reads an annotation's file; render/github
// writes the annotations and the step summary.

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/tenancy"
)

// changedLines are the lines a change touches, by the file name as check
// names it.
type changedLines map[string]map[int]bool

func (c changedLines) has(l tenancy.Location) bool { return c[l.File][l.Line] }

// changedSince reads the lines that the files changed since the merge base
// of base and the files' revision: ref in repo (atRef), else HEAD and the
// work tree of the repository that holds them. A file outside that
// repository has no changed line.
func changedSince(repo, base, ref string, atRef bool, files []string) (changedLines, error) {
	if strings.HasPrefix(base, "-") {
		return nil, fmt.Errorf("--base %s: not a git revision", base)
	}
	if len(files) == 0 {
		return changedLines{}, nil
	}
	names := map[string]string{} // repository path → check's name
	r := gitcli.Repo{Dir: repo}
	args := []string{base + "..." + ref}
	if !atRef {
		place, err := gitcli.Locate(filepath.Dir(files[0]))
		if err != nil {
			return nil, fmt.Errorf("--base: %w", err)
		}
		r = gitcli.Repo{Dir: place.Root}
		mb, err := r.Line("merge-base", base, "HEAD")
		if err != nil {
			return nil, fmt.Errorf("--base %s: %w", base, err)
		}
		args = []string{mb} // the merge base against the work tree
		for _, f := range files {
			if rel, ok := inRepo(place.Root, f); ok {
				names[rel] = f
			}
		}
	} else {
		for _, f := range files {
			names[f] = f
		}
	}
	args = append(args, "--")
	for _, rel := range slices.Sorted(maps.Keys(names)) {
		args = append(args, ":(top,literal)"+rel)
	}
	got, err := r.ChangedLines(args...)
	if err != nil {
		return nil, fmt.Errorf("--base %s: %w", base, err)
	}
	out := changedLines{}
	for rel, lines := range got {
		if name, ok := names[rel]; ok {
			out[name] = lines
		}
	}
	return out, nil
}

// inRepo is file's path relative to the repository root, and whether it
// lies inside it (links resolved on both sides).
func inRepo(root, file string) (string, bool) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", false
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// fromRepoRoot names the work-tree files of the findings' locations from
// the root of the git repository that holds them, as GitHub reads an
// annotation's file=: a relative path is a path in the repository, from
// whatever folder the step ran in (actions/runner's IssueCommandExtension
// passes it on as it is), so check run in a step's working-directory, or
// from outside a checkout at a path, would name files GitHub does not
// find. A file outside a git repository keeps its name. fs is not changed.
func fromRepoRoot(fs []planner.Finding) []planner.Finding {
	roots := map[string]string{} // a file's folder → its repository's root, or ""
	name := func(file string) string {
		dir := filepath.Dir(file)
		root, ok := roots[dir]
		if !ok {
			if place, err := gitcli.Locate(dir); err == nil && !place.Bare && !place.InGitDir {
				root = place.Root
			}
			roots[dir] = root
		}
		if root == "" {
			return file
		}
		if rel, ok := inRepo(root, file); ok {
			return rel
		}
		return file
	}
	out := make([]planner.Finding, len(fs))
	for i, f := range fs {
		f.Where = slices.Clone(f.Where)
		for j := range f.Where {
			if f.Where[j].File != "" {
				f.Where[j].File = name(f.Where[j].File)
			}
		}
		out[i] = f
	}
	return out
}
