package planner

import (
	"strings"
	"testing"

	"github.com/krmplan/krmplan/tenancy"
)

// splitBefore is a full pool of 8 h100 cards: department a holds them all,
// for its projects p (6) and q (2).
func splitBefore(t *testing.T) (before, want string) {
	return catPool("h100", "h100") + catDept("a", catQ("a-h100", "h100", catGPU("8", "8"))) +
			catProj("p", "a", "", catQ("p-h100", "h100", catGPU("6", "8"))) + catProj("q", "a", "", catQ("q-h100", "h100", catGPU("2", "8"))),
		`department "b" {
  queue "h100" {
    name = "b-h100"
    gpu = { deserved = 6, limit = 8 }
  }
}
department "a" {
  queue "h100" {
    gpu { deserved = 2 }
  }
}
project "p" {
  department = "b"
}
`
}

// stepsStayClean applies p's steps one by one to its snapshot and runs
// every check on the whole state after each: none may add an error. It is
// the plain form of the scoped verification the planner runs.
func stepsStayClean(t *testing.T, p *Plan) {
	t.Helper()
	d := tenancy.NewDraft(&p.Snapshot.Tenancy)
	for n, st := range p.Steps {
		if err := d.Apply(stepChanges(p.Changes, st)); err != nil {
			t.Fatalf("step %d: %v", n+1, err)
		}
		for _, f := range Check(withTenancy(p.Snapshot, d.Tenancy()), nil) {
			if f.Level == LevelError {
				t.Fatalf("after step %d (%s %s): %s", n+1, st.Phase, st.Object, f.Message)
			}
		}
	}
}

// A project that changes department on a full pool has no safe order in
// one plan; the split gives two, each verified, that reach the target.
func TestSplitUnsafeMove(t *testing.T) {
	yaml, desired := splitBefore(t)
	before := catState(t, yaml, catNodes(catNode("gpu-1", "h100", "8", true, false)))
	p := catPlan(t, before, desired)
	var unsafe []string
	for _, f := range p.Findings {
		if f.Code == CodeUnsafeOrder {
			unsafe = append(unsafe, f.Message)
		}
	}
	want := "no safe order: after step 1 (patch Department a, shrinking departments) the state would have an error this plan does not end with: " +
		"a-h100: the projects are guaranteed 8 cards in total, but the department only has 2 cards — 6 cards of those guarantees cannot be met; " +
		"it takes two plans — first: shrink department a (h100: 8 cards → 2 cards), create department b (h100: 6 cards), " +
		"move project p from department a to b (h100: 6 cards → 0 cards); second: grow project p (h100: 0 cards → 6 cards); " +
		"until the second, the gpu guarantee of project p on h100 (6 cards) is 0 (plan --split-unsafe DIR writes the two desired files)"
	if len(unsafe) != 1 || unsafe[0] != want {
		t.Fatalf("unsafe-order:\n got %q\nwant %q", unsafe, want)
	}
	if p.Split == nil {
		t.Fatal("no split")
	}
	wantFirst := `department "a" {
  queue "h100" {
    name   = "a-h100"
    gpu    = { deserved = 2, limit = 8, over_quota_weight = 1 }
    cpu    = { deserved = unlimited, limit = unlimited, over_quota_weight = 1 }
    memory = { deserved = unlimited, limit = unlimited, over_quota_weight = 1 }
  }
}

department "b" {
  queue "h100" {
    name   = "b-h100"
    gpu    = { deserved = 6, limit = 8, over_quota_weight = 1 }
    cpu    = { deserved = unlimited, limit = unlimited, over_quota_weight = 1 }
    memory = { deserved = unlimited, limit = unlimited, over_quota_weight = 1 }
  }
}

project "p" {
  department = "b"
  queue "h100" {
    name   = "p-h100"
    gpu    = { deserved = 0, limit = 8, over_quota_weight = 1 }
    cpu    = { deserved = unlimited, limit = unlimited, over_quota_weight = 1 }
    memory = { deserved = unlimited, limit = unlimited, over_quota_weight = 1 }
  }
}
`
	if got := string(p.Split.First); got != wantFirst {
		t.Errorf("first:\n%s\nwant:\n%s", got, wantFirst)
	}
	if got := string(p.Split.Second); !strings.Contains(got, `gpu    = { deserved = 6, limit = 8, over_quota_weight = 1 }`) || strings.Contains(got, "department \"") {
		t.Errorf("second:\n%s", got)
	}

	// Plan the first file against the snapshot, then the second against
	// the state the first leaves: both render, in a verified order whose
	// every step leaves the whole state clean, and the second ends at the
	// first plan's target.
	p1 := catPlan(t, before, string(p.Split.First))
	if !p1.Renderable() || !p1.OrderVerified {
		t.Fatalf("first: renderable %v, verified %v: %q", p1.Renderable(), p1.OrderVerified, messages(p1.Findings))
	}
	stepsStayClean(t, p1)
	p2 := catPlan(t, p1.TargetState(), string(p.Split.Second))
	if !p2.Renderable() || !p2.OrderVerified || len(p2.Changes) != 1 {
		t.Fatalf("second: renderable %v, verified %v, %d changes: %q", p2.Renderable(), p2.OrderVerified, len(p2.Changes), messages(p2.Findings))
	}
	stepsStayClean(t, p2)
	if !sameObjects(p2.Target, p.Target) {
		t.Error("the two plans do not reach the target")
	}
	// The same move on a pool with room for both guarantees is one plan.
	roomy := catState(t, yaml, catNodes(catNode("gpu-1", "h100", "8", true, false), catNode("gpu-2", "h100", "8", true, false)))
	if one := catPlan(t, roomy, desired); !one.Renderable() || !one.OrderVerified || one.Split != nil {
		t.Errorf("with room: renderable %v, verified %v, split %v: %q", one.Renderable(), one.OrderVerified, one.Split != nil, messages(one.Findings))
	}
}
