package main

// check --format github in a pull request: annotations on the lines the
// pull request changed (--base), never more than GitHub shows without
// saying so, and every finding in the step summary (--summary).

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/krmplan/krmplan/diag"
	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/render/views"
	"github.com/krmplan/krmplan/tenancy"
)

// ghPerLevel is how many annotations of one level (error, warning,
// notice) GitHub shows for one step; it drops the others without a word
// (actions/toolkit, docs/problem-matchers.md, "Limitations").
const ghPerLevel = 10

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

// changedFirst moves each finding's first location on a changed line to
// the front, where its annotation goes (GitHub shows an annotation in a
// pull request's diff only on a line the diff holds), and orders the
// findings on changed lines first, so that they are the ones annotated
// when a level has more than GitHub shows. The order is otherwise kept.
func changedFirst(fs []planner.Finding, changed changedLines) []planner.Finding {
	var first, rest []planner.Finding
	for _, f := range fs {
		i := slices.IndexFunc(f.Where, changed.has)
		if i < 0 {
			rest = append(rest, f)
			continue
		}
		where := append([]tenancy.Location{f.Where[i]}, f.Where[:i]...)
		f.Where = append(where, f.Where[i+1:]...)
		first = append(first, f)
	}
	return append(first, rest...)
}

// byPlace orders findings for annotations: by level (errors, warnings,
// notes), then by file and line of the first location (findings without
// one last in their level), so that past ghPerLevel the ones annotated are
// the first in the files, not the first by queue name. Stable: ties keep
// the planner's order.
func byPlace(fs []planner.Finding) []planner.Finding {
	out := slices.Clone(fs)
	slices.SortStableFunc(out, func(a, b planner.Finding) int {
		if d := levelRank(a.Level) - levelRank(b.Level); d != 0 {
			return d
		}
		if len(a.Where) == 0 || len(b.Where) == 0 {
			return len(b.Where) - len(a.Where)
		}
		if c := strings.Compare(a.Where[0].File, b.Where[0].File); c != 0 {
			return c
		}
		return a.Where[0].Line - b.Where[0].Line
	})
	return out
}

// writeAnnotations prints the findings as workflow commands, at most
// ghPerLevel per level: a level with more gets ghPerLevel-1 annotations
// and one that counts the rest, which follow as plain lines of the log
// ("Error (not annotated): FILE:LINE: [code] message"). It returns how
// many of each level were not annotated.
func writeAnnotations(w io.Writer, fs []planner.Finding, summary bool) map[planner.Level]int {
	// Errors, then warnings, then notes; within a level the order given
	// (byPlace, then the changed lines first with --base).
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b planner.Finding) int { return levelRank(a.Level) - levelRank(b.Level) })
	count := map[planner.Level]int{}
	for _, f := range fs {
		count[f.Level]++
	}
	left := map[planner.Level]int{}
	var rest []planner.Finding
	for _, f := range fs {
		if count[f.Level] > ghPerLevel && left[f.Level] >= ghPerLevel-1 {
			rest = append(rest, f)
			continue
		}
		left[f.Level]++
		fmt.Fprintln(w, diag.Annotation(views.FindingDiagnostic(f, nil)))
	}
	over := map[planner.Level]int{}
	for _, l := range []planner.Level{planner.LevelError, planner.LevelWarning, planner.LevelNote} {
		if n := count[l] - left[l]; n > 0 {
			over[l] = n
			where := "they follow in the log"
			if summary {
				where += ", and the step summary lists every finding"
			}
			fmt.Fprintf(w, "::%s title=krmplan check::%s not annotated: GitHub shows %d annotations of a level per step; %s\n",
				l.GitHubCommand(), moreOf(l, n), ghPerLevel, where)
		}
	}
	for _, f := range rest {
		fmt.Fprintln(w, diag.NotAnnotated(views.FindingDiagnostic(f, nil)))
	}
	return over
}

// levelNouns are, for each level, its noun.
var levelNouns = map[planner.Level]string{planner.LevelError: "error", planner.LevelWarning: "warning", planner.LevelNote: "note"}

// moreOf is "3 more errors", "1 more warning", "2 more notes".
func moreOf(l planner.Level, n int) string {
	return strings.Replace(words.Count(n, levelNouns[l]), " ", " more ", 1)
}

// notAnnotated is the stderr summary's clause about the findings GitHub
// would not show: "; 3 errors not annotated (GitHub shows 10 per level in
// a step)", or "".
func notAnnotated(over map[planner.Level]int) string {
	var parts []string
	for _, l := range []planner.Level{planner.LevelError, planner.LevelWarning, planner.LevelNote} {
		if n := over[l]; n > 0 {
			parts = append(parts, strings.Replace(moreOf(l, n), " more", "", 1))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("; %s not annotated (GitHub shows %d per level in a step)", joinAnd(parts), ghPerLevel)
}

// fileTail is the last n bytes of the regular file at path, nil for
// anything else (missing, empty, a device: --summary /dev/null). Only
// they are read: the summary file may be large, and a device endless.
func fileTail(path string, n int64) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return nil
	}
	n = min(n, fi.Size())
	b := make([]byte, n)
	if _, err := f.ReadAt(b, fi.Size()-n); err != nil {
		return nil
	}
	return b
}

// appendStepSummary appends the check's summary and every shown finding,
// as check's text view in a code block, to the markdown file path (GitHub's
// $GITHUB_STEP_SUMMARY, which a step appends to).
func appendStepSummary(path, summary string, shown []planner.Finding) error {
	var text bytes.Buffer
	if err := views.Findings(&text, shown, nil, views.NewStyle(false)); err != nil {
		return err
	}
	var b bytes.Buffer
	// A blank line after what earlier steps wrote, so that the heading
	// starts a block of its own.
	if before := fileTail(path, 2); len(before) > 0 && !bytes.HasSuffix(before, []byte("\n\n")) {
		b.WriteString(strings.Repeat("\n", 2-min(2, len(before)-len(bytes.TrimRight(before, "\n")))))
	}
	fmt.Fprintf(&b, "### krmplan %s\n\n", escape.Controls(summary))
	if len(shown) > 0 {
		fence := strings.Repeat("`", max(3, longestBackticks(text.String())+1))
		fmt.Fprintf(&b, "%stext\n%s%s\n\n", fence, text.String(), fence)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("--summary: %w", err)
	}
	_, err = f.Write(b.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--summary: %w", err)
	}
	return nil
}

func longestBackticks(s string) int {
	best, n := 0, 0
	for _, r := range s {
		if r == '`' {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
