package planner

import (
	"testing"

	"github.com/krmplan/krmplan/tenancy"
)

func TestAddFindings(t *testing.T) {
	p := gitopsPlan(t, "cluster", "project \"b\" {\n  queue \"default\" {\n    gpu = { deserved = 2 }\n  }\n}\n")
	if !p.Renderable() {
		t.Fatalf("the base plan has errors: %v", p.Findings)
	}
	p.PlanID = "abc"
	sum := p.Summary
	p.AddFindings()
	if p.PlanID != "abc" {
		t.Errorf("adding nothing cleared the plan id")
	}
	p.AddFindings(Finding{Code: "server-dry-run", Level: LevelNote, Message: "n"},
		Finding{Code: "server-dry-run-refused", Level: LevelError, Object: tenancy.KindProject.Object("b"), Message: "refused"})
	if p.Renderable() || p.Summary.Errors != sum.Errors+1 || p.Summary.Notes != sum.Notes+1 || p.Summary.Warnings != sum.Warnings {
		t.Errorf("renderable %v, summary %+v (was %+v)", p.Renderable(), p.Summary, sum)
	}
	if p.Findings[0].Code != "server-dry-run-refused" {
		t.Errorf("the error is not first: %v", p.Findings[0])
	}
	if p.PlanID != "" {
		t.Errorf("the plan id was kept: the plan must be encoded again")
	}
}
