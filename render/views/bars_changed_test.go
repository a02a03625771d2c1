package views

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/tenancy"
)

// randomTenancy is a small tenancy of pools p0..p2, departments d0..d3 and
// projects j0..j5 with queues on random pools, some projects under a
// department that does not exist (d4, which a plan may create).
func randomTenancy(r *rand.Rand) string {
	var b strings.Builder
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&b, "apiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata: {name: p%d}\nspec: {labelKey: gpu, labelValue: p%d}\n---\n", i, i)
	}
	queues := func(owner string) string {
		var qs []string
		for i := 0; i < 3; i++ {
			if r.Intn(2) == 0 {
				qs = append(qs, fmt.Sprintf("  - {name: %s-p%d, nodepool: p%d, resources: {gpu: {deserved: %d, limit: -1, overQuotaWeight: 1}}}\n", owner, i, i, r.Intn(6)))
			}
		}
		if len(qs) == 0 {
			return "  queues: []\n"
		}
		return "  queues:\n" + strings.Join(qs, "")
	}
	for d := 0; d < 4; d++ {
		fmt.Fprintf(&b, "apiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: d%d}\nspec:\n%s---\n", d, queues(fmt.Sprintf("d%d", d)))
	}
	for j := 0; j < 6; j++ {
		fmt.Fprintf(&b, "apiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata: {name: j%d}\nspec:\n  parent: d%d\n%s---\n", j, r.Intn(5), queues(fmt.Sprintf("j%d", j)))
	}
	return b.String()
}

// randomChange is desired.hcl changing guarantees, adding queues, moving
// projects, and creating department d4 and new projects, at random.
func randomChange(r *rand.Rand) string {
	var b strings.Builder
	queue := func(owner string) string {
		p := r.Intn(3)
		return fmt.Sprintf("  queue \"p%d\" {\n    name = \"%s-p%d\"\n    gpu = { deserved = %d }\n  }\n", p, owner, p, r.Intn(6))
	}
	for d := 0; d < 5; d++ {
		if r.Intn(3) == 0 {
			fmt.Fprintf(&b, "department \"d%d\" {\n%s}\n", d, queue(fmt.Sprintf("d%d", d)))
		}
	}
	for j := 0; j < 8; j++ {
		if r.Intn(3) != 0 {
			continue
		}
		parent := ""
		if j >= 6 || r.Intn(3) == 0 {
			parent = fmt.Sprintf("  department = \"d%d\"\n", r.Intn(5))
		}
		q := queue(fmt.Sprintf("j%d", j))
		if parent != "" && j < 6 && r.Intn(3) == 0 {
			q = "" // only a move to another department
		}
		fmt.Fprintf(&b, "project \"j%d\" {\n%s%s}\n", j, parent, q)
	}
	return b.String()
}

// TestChangedPoolsDrawTheSameBars: dividing only the pools changedPools
// names gives exactly the splits of dividing every pool, on random plans
// and on a generated tenancy's moves.
func TestChangedPoolsDrawTheSameBars(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	var plans []*planner.Plan
	for i := 0; len(plans) < 400 && i < 4000; i++ {
		s := plantest.State(t, "t.yaml", []byte(randomTenancy(r)))
		ov, diags := config.Load("d.hcl", []byte(randomChange(r)), nil, nil)
		if diags.HasErrors() {
			t.Fatalf("desired file: %v", diags)
		}
		if p, diags := planner.Build(s, ov); !diags.HasErrors() {
			plans = append(plans, p)
		}
	}
	g := gentenancy.Generate(gentenancy.Spec{Projects: 200, Seed: gentenancy.BenchSeed})
	gs, _, err := g.State()
	if err != nil {
		t.Fatal(err)
	}
	plans = append(plans, plantest.Plan(t, gs, gentenancy.MoveFile, g.MoveHCL(0)), plantest.SamplePlan(t, "move-one-card.hcl"))
	drawn := 0
	for i, p := range plans {
		want := poolSplitsOf(p.Snapshot, p.TargetState(), nil, nil) // every pool, each node read again
		if got := poolSplits(p); !reflect.DeepEqual(got, want) {
			t.Fatalf("plan %d:\n%s\nchanged pools only: %+v\nevery pool: %+v", i, p.Desired.Source, got, want)
		}
		drawn += len(want)
	}
	if drawn < len(plans) {
		t.Fatalf("only %d pools drawn in %d plans", drawn, len(plans))
	}
}

// TestChangedPoolsLeavesOutUnchanged: an unchanged pool is not divided.
func TestChangedPoolsLeavesOutUnchanged(t *testing.T) {
	s := clusterState(t, twoPools)
	p := plantest.Plan(t, s, "d.hcl", []byte("project \"vision\" {\n  queue \"h100\" {\n    gpu = { deserved = 9 }\n  }\n}\n"))
	if got := changedPools(p.Indexes()); !reflect.DeepEqual(got, map[string]bool{"h100": true}) {
		t.Errorf("changed pools %v, want h100 only", got)
	}
	none := tenancy.NewIndex(&tenancy.Tenancy{})
	if got := changedPools(none, none); len(got) != 0 {
		t.Errorf("changed pools of two empty states: %v", got)
	}
}
