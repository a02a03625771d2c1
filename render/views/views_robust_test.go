package views

import (
	"bytes"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/tenancy"

	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner"
)

// TestViewsSurviveOddPlans: a plan's changes are typed, and planfile
// refuses steps that do not follow from them, but a plan made in a program
// can still hold odd steps and findings; the views draw what they can and
// never panic.
func TestViewsSurviveOddPlans(t *testing.T) {
	p := plantest.SamplePlan(t, "move-one-card.hcl")
	p.Steps = append(p.Steps, planner.Step{Phase: "nowhere", Action: "patch", Object: tenancy.Kind(0).Object("x"), Changes: []int{-1, 99}})
	p.Findings = append(p.Findings, planner.Finding{Code: "odd", Level: "strange", Message: "a | b <c>", Where: []tenancy.Location{{}}})
	var b bytes.Buffer
	if err := Text(&b, p, NewStyle(true)); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&b, p); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&b, p); err != nil {
		t.Fatal(err)
	}
}

// TestViewsEscapeControlCharacters: a name, a pool, a file and a message
// holding an ANSI escape, a carriage return, a newline or a Unicode line
// separator are shown escaped in the text and markdown views: no line can
// erase, recolour or fake another ("all checks passed").
func TestViewsEscapeControlCharacters(t *testing.T) {
	const evil = "bench\x1b[2K\r\x1b[32mall checks passed\x1b[0m\n\u2028"
	const shown = `bench\x1b[2K\r\x1b[32mall checks passed\x1b[0m\n\u2028`
	p := plantest.SamplePlan(t, "move-one-card.hcl")
	for i := range p.Changes {
		if c := &p.Changes[i]; c.Object().Name == "benchmark" {
			c.Field.Object.Name, c.Pool = evil, evil
		}
	}
	findProject(p.Snapshot, "benchmark").Metadata.Name = evil
	p.Findings = append(p.Findings, planner.Finding{Code: "invalid-name", Level: planner.LevelError, Message: "project " + evil,
		Where: []tenancy.Location{{File: evil + ".yaml", Line: 3}}})
	var text, md bytes.Buffer
	if err := Text(&text, p, NewStyle(false)); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, p); err != nil {
		t.Fatal(err)
	}
	for _, view := range []struct {
		name string
		out  string
		want []string
	}{
		{"text", text.String(), []string{
			"  # Project " + shown + " will be updated in place\n",
			"      ~ queue \"benchmark-rtx\" (node pool " + shown + ") {\n",
			"Error: project " + shown + "\n",
			"  on " + shown + ".yaml line 3\n",
		}},
		{"markdown", md.String(), []string{
			"- ❌ **Error** `invalid-name`: project bench\\\\x1b\\[2K\\\\r\\\\x1b\\[32mall checks passed\\\\x1b\\[0m\\\\n\\\\u2028 (`" + shown + ".yaml` line 3)\n",
		}},
	} {
		for i, line := range strings.SplitAfter(view.out, "\n") {
			if escape.Has(strings.TrimSuffix(line, "\n")) {
				t.Errorf("%s view, line %d holds a control character: %q", view.name, i+1, line)
			}
		}
		for _, w := range view.want {
			if !strings.Contains(view.out, w) {
				t.Errorf("%s view lacks the line %q:\n%s", view.name, w, view.out)
			}
		}
	}
}
