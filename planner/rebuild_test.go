package planner

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/krmplan/krmplan/tenancy"
)

// Planning again from a plan's embedded snapshot gives the same plan
// (planfile's re-verification relies on it): the same changes, findings
// with their locations, steps, order verdict and summary, and the same
// embedded snapshot, on random messy tenancies and overlays whose
// findings point at values of objects the plan does not change.
func TestBuildFromTheEmbeddedSnapshotIsTheSamePlan(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	planned, cited := 0, 0
	for i := 0; i < 1000; i++ {
		before := messyTenancy(t, r)
		ov := messyOverlay(r, before)
		p, diags := Build(before, ov)
		if diags.HasErrors() {
			continue
		}
		again, diags := Build(p.Snapshot, ov)
		if diags.HasErrors() {
			t.Fatalf("case %d: the embedded snapshot does not plan: %v", i, diags)
		}
		samePlan(t, i, p, again)
		if string(p.Snapshot.Marshal()) != string(again.Snapshot.Marshal()) {
			t.Fatalf("case %d: the embedded snapshot of the plan made again differs", i)
		}
		planned++
		cited += keptForFindings(p)
	}
	if planned < 500 || cited < 100 {
		t.Fatalf("%d plans, %d positions kept for findings: the cases do not exercise the kept positions", planned, cited)
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

// keptForFindings counts the positions p's snapshot keeps for objects the
// plan does not change.
func keptForFindings(p *Plan) int {
	changed := map[string]bool{}
	for _, c := range p.Changes {
		changed[c.Object().String()] = true
	}
	n := 0
	count := func(kind, name string, values int) {
		if !changed[kind+"/"+name] {
			n += values
		}
	}
	s := p.Snapshot
	for _, o := range s.Departments {
		count("Department", o.Metadata.Name, originValues(o.Origin))
	}
	for _, o := range s.Projects {
		count("Project", o.Metadata.Name, originValues(o.Origin))
	}
	return n
}

// originValues is the number of value positions o keeps.
func originValues(o *tenancy.Origin) int {
	if o == nil {
		return 0
	}
	return len(o.Values)
}
