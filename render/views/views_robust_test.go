package views

import (
	"bytes"
	"testing"

	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/tenancy"
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
