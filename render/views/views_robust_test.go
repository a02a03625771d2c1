package views

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner"
)

// TestViewsSurviveOddPlans: a plan file is checked against its plan_id,
// but one made by hand can still hold anything; the views draw what they
// can and never panic.
func TestViewsSurviveOddPlans(t *testing.T) {
	odd := []planner.Change{
		{Action: "update", Kind: "Project", Object: "workspace", QueueIndex: 0, Field: "gpu.deserved", After: json.RawMessage(`"two"`)},
		{Action: "update", Kind: "Project", Object: "workspace", QueueIndex: 1 << 30, Field: "gpu.deserved", After: json.RawMessage(`2`)},
		{Action: "update", Kind: "Project", Object: "workspace", QueueIndex: -7, Field: "parent", After: json.RawMessage(`3`)},
		{Action: "create", Kind: "Gadget", Object: "x", QueueIndex: -1, Field: "spin", After: nil},
		{Action: "update", Kind: "Department", Object: "platform", QueueIndex: 0, Field: "gpu", After: json.RawMessage(`1`)},
		{Action: "update", Kind: "Department", Object: "platform", QueueIndex: 0, Field: "disk.deserved", After: json.RawMessage(`1`)},
		{Action: "update", Kind: "Department", Object: "platform", QueueIndex: 0, Field: "gpu.bogus", After: json.RawMessage(`1`)},
		{Action: "update", Kind: "Department", Object: "platform", QueueIndex: 0, Field: "priority", After: json.RawMessage(`99999999999`)},
		{Action: "update", Kind: "NodePool", Object: "new", QueueIndex: -1, Field: "labelKey", After: json.RawMessage(`{}`)},
		{Action: "update", Kind: "Project", Object: "p", QueueIndex: -1, Field: "defaultNodePools", After: json.RawMessage(`[1]`)},
	}
	p := plantest.SamplePlan(t, "move-one-card.hcl")
	p.Changes = append(p.Changes, odd...)
	p.Steps = append(p.Steps, planner.Step{Phase: "nowhere", Action: "patch", Kind: "Gadget", Object: "x", Changes: []int{-1, 99}})
	p.Findings = append(p.Findings, planner.Finding{Code: "odd", Level: "strange", Message: "a | b <c>", Where: []planner.Location{{}}})
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
	if a := AfterState(p); len(findProject(a, "workspace").Spec.Queues) != 1 {
		t.Errorf("a queue index out of range grew the queues: %d", len(findProject(a, "workspace").Spec.Queues))
	}
}
