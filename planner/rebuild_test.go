package planner

import (
	"math/rand"
	"reflect"
	"testing"
)

// Planning a snapshot again gives the same plan (planfile's
// re-verification relies on it: plan.json embeds the snapshot as read, and
// show and render plan it again): the same changes, findings with their
// locations, steps, order verdict and summary, on random messy tenancies
// and overlays whose findings point at values of objects the plan does not
// change. The plan's snapshot is the state it was planned from.
func TestBuildAgainIsTheSamePlan(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	planned := 0
	for i := 0; i < 1000; i++ {
		before := messyTenancy(t, r)
		ov := messyOverlay(r, before)
		p, diags := Build(before, ov)
		if diags.HasErrors() {
			continue
		}
		if p.Snapshot != before {
			t.Fatalf("case %d: the plan's snapshot is not the state it was planned from", i)
		}
		again, diags := Build(p.Snapshot, ov)
		if diags.HasErrors() {
			t.Fatalf("case %d: the snapshot does not plan again: %v", i, diags)
		}
		samePlan(t, i, p, again)
		planned++
	}
	if planned < 500 {
		t.Fatalf("%d plans: the cases do not exercise planning again", planned)
	}
}

// FromChanges plans a plan's changes as Build planned them: the same
// steps, order verdict, summary and findings, apart from where a finding
// points at a value desired.hcl sets but does not change.
func TestFromChangesIsBuildOfTheChanges(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	for i := 0; i < 500; i++ {
		before := messyTenancy(t, r)
		p, diags := Build(before, messyOverlay(r, before))
		if diags.HasErrors() {
			continue
		}
		again, err := FromChanges(p.Snapshot, p.Changes)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		strip := func(fs []Finding) []Finding {
			out := make([]Finding, len(fs))
			for k, f := range fs {
				f.Where = nil
				out[k] = f
			}
			return out
		}
		if !reflect.DeepEqual(strip(p.Findings), strip(again.Findings)) {
			t.Fatalf("case %d: findings\n%q\n%q", i, messages(p.Findings), messages(again.Findings))
		}
		if !reflect.DeepEqual(p.Steps, again.Steps) || p.OrderVerified != again.OrderVerified || p.Summary != again.Summary || again.Desired.File != "" {
			t.Fatalf("case %d: steps, order or summary differ", i)
		}
	}
}

// samePlan fails unless a and b are the same plan, the snapshot aside.
func samePlan(t *testing.T, i int, a, b *Plan) {
	t.Helper()
	switch {
	case !reflect.DeepEqual(a.Changes, b.Changes):
		t.Fatalf("case %d: changes differ", i)
	case !reflect.DeepEqual(a.Findings, b.Findings):
		t.Fatalf("case %d: findings differ:\n%+v\n%+v", i, a.Findings, b.Findings)
	case !reflect.DeepEqual(a.Steps, b.Steps) || a.OrderVerified != b.OrderVerified || a.Summary != b.Summary:
		t.Fatalf("case %d: steps, order or summary differ", i)
	}
}
