package github

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/tenancy"
)

// finding is a finding of level with the code "code" at file:line.
func finding(level planner.Level, file string, line int) planner.Finding {
	return planner.Finding{Code: "code", Level: level, Object: tenancy.KindProject.Object("p"), Message: fmt.Sprintf("at %s:%d", file, line),
		Where: []tenancy.Location{{File: file, Line: line}}}
}

// A level with more findings than GitHub shows gets PerLevel-1
// annotations and, after every level's annotations, one that counts the
// rest, which follow as plain lines; errors come first, and NotAnnotated
// says how many were not annotated.
func TestAnnotateAtMostPerLevel(t *testing.T) {
	var fs []planner.Finding
	fs = append(fs, finding(planner.LevelWarning, "w.yaml", 1))
	for i := range PerLevel + 2 {
		fs = append(fs, finding(planner.LevelError, "e.yaml", i+1))
	}
	var b bytes.Buffer
	over := Annotate(&b, fs, true)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != PerLevel+4 {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), PerLevel+4, b.String())
	}
	if got, want := lines[0], "::error file=e.yaml,line=1,title=code::at e.yaml:1"; got != want {
		t.Errorf("first line %q, want %q", got, want)
	}
	if got, want := lines[PerLevel], "::error title=krmplan check::3 more errors not annotated: GitHub shows 10 annotations of a level per step; they follow in the log, and the step summary lists every finding"; got != want {
		t.Errorf("the count %q, want %q", got, want)
	}
	if got, want := lines[PerLevel-1], "::warning file=w.yaml,line=1,title=code::at w.yaml:1"; got != want {
		t.Errorf("the warning %q, want %q", got, want)
	}
	if got, want := lines[PerLevel+1], "Error (not annotated): e.yaml:10: [code] at e.yaml:10"; got != want {
		t.Errorf("the first plain line %q, want %q", got, want)
	}
	if got, want := NotAnnotated(over), "; 3 errors not annotated (GitHub shows 10 per level in a step)"; got != want {
		t.Errorf("NotAnnotated = %q, want %q", got, want)
	}
	if got := NotAnnotated(nil); got != "" {
		t.Errorf("NotAnnotated of none = %q", got)
	}
}

// ByPlace orders by level, then file and line, findings without a place
// last in their level; ChangedFirst puts the findings on changed lines
// first, each with its changed location first.
func TestOrder(t *testing.T) {
	nowhere := planner.Finding{Code: "none", Level: planner.LevelError}
	fs := ByPlace([]planner.Finding{finding(planner.LevelNote, "a", 1), nowhere, finding(planner.LevelError, "b", 2), finding(planner.LevelError, "a", 9)})
	var got []string
	for _, f := range fs {
		where := "-"
		if len(f.Where) > 0 {
			where = fmt.Sprintf("%s:%d", f.Where[0].File, f.Where[0].Line)
		}
		got = append(got, string(f.Level)+" "+where)
	}
	if want := "[error a:9 error b:2 error - note a:1]"; fmt.Sprint(got) != want {
		t.Errorf("ByPlace: %v, want %s", got, want)
	}
	two := finding(planner.LevelError, "a", 1)
	two.Where = append(two.Where, tenancy.Location{File: "a", Line: 5})
	fs = ChangedFirst([]planner.Finding{finding(planner.LevelError, "a", 2), two}, func(l tenancy.Location) bool { return l.Line == 5 })
	if fs[0].Where[0].Line != 5 || fs[0].Where[1].Line != 1 || fs[1].Where[0].Line != 2 {
		t.Errorf("ChangedFirst: %v, %v", fs[0].Where, fs[1].Where)
	}
}
