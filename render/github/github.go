// Package github writes check --format github's output for a GitHub
// Actions step: the findings as workflow-command annotations, never more
// of a level than GitHub shows without saying so (the rest as plain lines
// of the log), ordered so that the annotated ones are those on the lines a
// pull request changed, and every finding in the step summary.
package github

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/krmplan/krmplan/diag"
	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/render/views"
	"github.com/krmplan/krmplan/tenancy"
)

// PerLevel is how many annotations of one level (error, warning,
// notice) GitHub shows for one step; it drops the others without a word
// (actions/toolkit, docs/problem-matchers.md, "Limitations").
const PerLevel = 10

// ChangedFirst moves each finding's first location on a changed line (changed says which) to
// the front, where its annotation goes (GitHub shows an annotation in a
// pull request's diff only on a line the diff holds), and orders the
// findings on changed lines first, so that they are the ones annotated
// when a level has more than GitHub shows. The order is otherwise kept.
func ChangedFirst(fs []planner.Finding, changed func(tenancy.Location) bool) []planner.Finding {
	var first, rest []planner.Finding
	for _, f := range fs {
		i := slices.IndexFunc(f.Where, changed)
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

// ByPlace orders findings for annotations: by level (errors, warnings,
// notes), then by file and line of the first location (findings without
// one last in their level), so that past PerLevel the ones annotated are
// the first in the files, not the first by queue name. Stable: ties keep
// the planner's order.
func ByPlace(fs []planner.Finding) []planner.Finding {
	out := slices.Clone(fs)
	slices.SortStableFunc(out, func(a, b planner.Finding) int {
		if d := a.Level.Rank() - b.Level.Rank(); d != 0 {
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

// Annotate prints the findings as workflow commands, at most
// PerLevel per level: a level with more gets PerLevel-1 annotations
// and one that counts the rest, which follow as plain lines of the log
// ("Error (not annotated): FILE:LINE: [code] message"). It returns how
// many of each level were not annotated.
func Annotate(w io.Writer, fs []planner.Finding, summary bool) map[planner.Level]int {
	// Errors, then warnings, then notes; within a level the order given
	// (ByPlace, then the changed lines first with --base: ChangedFirst).
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b planner.Finding) int { return a.Level.Rank() - b.Level.Rank() })
	count := map[planner.Level]int{}
	for _, f := range fs {
		count[f.Level]++
	}
	left := map[planner.Level]int{}
	var rest []planner.Finding
	for _, f := range fs {
		if count[f.Level] > PerLevel && left[f.Level] >= PerLevel-1 {
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
				l.GitHubCommand(), moreOf(l, n), PerLevel, where)
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

// NotAnnotated is the stderr summary's clause about the findings GitHub
// would not show: "; 3 errors not annotated (GitHub shows 10 per level in
// a step)", or "".
func NotAnnotated(over map[planner.Level]int) string {
	var parts []string
	for _, l := range []planner.Level{planner.LevelError, planner.LevelWarning, planner.LevelNote} {
		if n := over[l]; n > 0 {
			parts = append(parts, strings.Replace(moreOf(l, n), " more", "", 1))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("; %s not annotated (GitHub shows %d per level in a step)", words.And(parts), PerLevel)
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

// AppendStepSummary appends the check's summary and every shown finding,
// as check's text view in a code block, to the markdown file path (GitHub's
// $GITHUB_STEP_SUMMARY, which a step appends to).
func AppendStepSummary(path, summary string, shown []planner.Finding) error {
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

// longestBackticks is the longest run of backticks in s: the code
// block's fence must be longer.
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
