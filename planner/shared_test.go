package planner

import (
	"reflect"
	"slices"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/internal/stacks"
)

// The notes that compare the live Queues with the snapshot (missing, set
// by hand, other numbers) are made once per plan, by whichever state's
// checks reach them first, and the nodes are read once: each state's
// findings are still the ones its checks give on their own, in either
// order, and a plan marks the snapshot's notes already present.
func TestSharedChecksInEitherOrder(t *testing.T) {
	yaml := catPool("h100", "h100") + catDept("d", catQ("d-q", "h100", catGPU("4", "4"))) +
		catProj("a", "d", "", catQ("a-q", "h100", catGPU("3", "3"))) + catProj("b", "d", "", catQ("b-q", "h100", catGPU("1", "1")))
	before := catState(t, yaml, catQueues(
		catLive(t, "d-q", catGPU("5", "5"), nil, nil),
		catLive(t, "b-q", catGPU("1", "1"), map[string]string{"nvidia.com/gpu": "1"}, nil)),
		catNodes(catNode("gpu-1", "h100", "4", true, false), catNode("gpu-2", "h100", "2", false, false)))
	p := catPlan(t, before, "project \"a\" {\n  queue \"h100\" {\n    gpu = { deserved = 2, limit = 2 }\n  }\n}\n")
	target := p.TargetState()
	bx, tx := indexes(before, target)
	wantTarget := runChecks(before, target, bx, tx, nil, p.Changes, false)
	wantBefore := runChecks(before, before, bx, bx, nil, nil, false)
	for _, code := range []Code{CodeLiveQueueDiffers, CodeLiveQueueMissing, CodePoolCardsUnschedulable} {
		if !slices.ContainsFunc(wantTarget, func(f Finding) bool { return f.Code == code }) ||
			!slices.ContainsFunc(wantBefore, func(f Finding) bool { return f.Code == code }) {
			t.Fatalf("the test's states should both have %s:\n%q\n%q", code, messages(wantTarget), messages(wantBefore))
		}
	}
	for _, targetFirst := range []bool{true, false} {
		sh := newShared(before)
		var gotTarget, gotBefore []Finding
		if targetFirst {
			gotTarget = sh.run(before, target, bx, tx, nil, p.Changes, false)
			gotBefore = sh.run(before, before, bx, bx, nil, nil, false)
		} else {
			gotBefore = sh.run(before, before, bx, bx, nil, nil, false)
			gotTarget = sh.run(before, target, bx, tx, nil, p.Changes, false)
		}
		if !reflect.DeepEqual(gotTarget, wantTarget) || !reflect.DeepEqual(gotBefore, wantBefore) {
			t.Errorf("target checked first %v:\ntarget %q\n  want %q\nbefore %q\n  want %q", targetFirst,
				messages(gotTarget), messages(wantTarget), messages(gotBefore), messages(wantBefore))
		}
	}
	for _, f := range p.Findings {
		if (f.Code == CodeLiveQueueDiffers || f.Code == CodeLiveQueueMissing) && !f.AlreadyPresent {
			t.Errorf("the plan's %s is not marked already present: %s", f.Code, f.Message)
		}
	}
}

// TestBuildWithoutPlanLeavesNothingRunning: the snapshot's checks start
// with Build, before the changes are made; when the changes have an error
// there is no plan, and Build returns with those checks ended, not left
// running on their own goroutine.
func TestBuildWithoutPlanLeavesNothingRunning(t *testing.T) {
	gt := gentenancy.Generate(gentenancy.Spec{Projects: 1000, Seed: gentenancy.BenchSeed})
	st, _, err := gt.State()
	if err != nil {
		t.Fatal(err)
	}
	ov, diags := config.LoadOrdered("desired.hcl", []byte("project \"new-one\" {\n}\n"), nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := Build(st, ov)
	if p != nil || len(diags) != 1 || diags[0].Summary != "Missing department" {
		t.Fatalf("a new project without its department: plan %v, diagnostics %v", p != nil, diags)
	}
	if left := stacks.RunningIn("github.com/krmplan/krmplan/planner."); len(left) > 0 {
		t.Errorf("%d goroutines still run the planner's code after Build, the first:\n%s", len(left), left[0])
	}
}
