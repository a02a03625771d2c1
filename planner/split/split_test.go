package split

import (
	"fmt"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// The tenancy builders: one pool (label gpu=<name>), departments and
// projects with one flow-style queue each, gpu as given, cpu and memory
// unlimited.

func pool(name string) string {
	return fmt.Sprintf("---\napiVersion: kai.resources/v1alpha1\nkind: NodePool\nmetadata: {name: %s}\nspec: {labelKey: gpu, labelValue: %s}\n", name, name)
}

func dept(name, queue string) string {
	return fmt.Sprintf("---\napiVersion: kai.resources/v1alpha1\nkind: Department\nmetadata: {name: %s}\nspec:\n  queues:\n%s", name, queue)
}

func proj(name, parent, queue string) string {
	return fmt.Sprintf("---\napiVersion: kai.resources/v1alpha1\nkind: Project\nmetadata: {name: %s}\nspec:\n  parent: %s\n  queues:\n%s", name, parent, queue)
}

func queue(name, pool, deserved, limit string) string {
	return fmt.Sprintf("    - {name: %s, nodepool: %s, resources: {gpu: {deserved: %s, limit: %s, overQuotaWeight: 1}, "+
		"cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}, memory: {deserved: -1, limit: -1, overQuotaWeight: 1}}}\n", name, pool, deserved, limit)
}

// state parses yaml into a sealed state with nodes of the given cards on
// pool h100 (queues and namespaces not read).
func state(t *testing.T, yaml string, nodes ...string) *snapshot.State {
	t.Helper()
	var ten snapshot.Parsed
	if err := ten.ParseTenancy("t.yaml", []byte(yaml)); err != nil {
		t.Fatal(err)
	}
	s := &snapshot.State{Source: snapshot.Source{Kind: "git"}, Tenancy: ten.Tenancy}
	for _, what := range []string{snapshot.SourceQueues, snapshot.SourceNamespaces} {
		s.NotRead = append(s.NotRead, snapshot.NotRead{What: what, Reason: "test"})
	}
	for i, cards := range nodes {
		c := quota.MustParse(cards)
		s.Nodes = append(s.Nodes, snapshot.Node{Name: fmt.Sprintf("gpu-%d", i+1), Labels: map[string]string{"gpu": "h100"}, GPUCapacity: c, GPUAllocatable: c, Ready: true})
	}
	s.Seal()
	return s
}

func plan(t *testing.T, before *snapshot.State, hcl string) *planner.Plan {
	t.Helper()
	ov, diags := config.Load("desired.hcl", []byte(hcl), nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := planner.Build(before, ov)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p
}

func messages(fs []planner.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f.Level) + " " + string(f.Code) + ": " + f.Message
	}
	return out
}

// splitBefore is a full pool of 8 h100 cards: department a holds them all,
// for its projects p (6) and q (2).
func splitBefore() (before, want string) {
	return pool("h100") + dept("a", queue("a-h100", "h100", "8", "8")) +
			proj("p", "a", queue("p-h100", "h100", "6", "8")) + proj("q", "a", queue("q-h100", "h100", "2", "8")),
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
func stepsStayClean(t *testing.T, p *planner.Plan) {
	t.Helper()
	d := tenancy.NewDraft(&p.Snapshot.Tenancy)
	for n, st := range p.Steps {
		var cs []tenancy.Change
		for _, i := range st.Changes {
			cs = append(cs, p.Changes[i])
		}
		if err := d.Apply(cs); err != nil {
			t.Fatalf("step %d: %v", n+1, err)
		}
		now := *p.Snapshot
		now.Tenancy = *d.Tenancy()
		for _, f := range planner.CheckState(&now) {
			if f.Level == planner.LevelError {
				t.Fatalf("after step %d (%s %s): %s", n+1, st.Phase, st.Object, f.Message)
			}
		}
	}
}

// wantFirst is the first file of the split of splitBefore.
const wantFirst = `department "a" {
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

// A project that changes department on a full pool has no safe order in
// one plan; the split gives two, each verified, that reach the target.
func TestSplitUnsafeMove(t *testing.T) {
	yaml, desired := splitBefore()
	before := state(t, yaml, "8")
	p := plan(t, before, desired)
	s := Remedy(before, p)
	var unsafe []string
	for _, f := range p.Findings {
		if f.Code == planner.CodeUnsafeOrder {
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
	if s == nil {
		t.Fatal("no split")
	}
	if got := string(s.First); got != wantFirst {
		t.Errorf("first:\n%s\nwant:\n%s", got, wantFirst)
	}
	if got := string(s.Second); !strings.Contains(got, `gpu    = { deserved = 6, limit = 8, over_quota_weight = 1 }`) || strings.Contains(got, "department \"") {
		t.Errorf("second:\n%s", got)
	}

	// Plan the first file against the snapshot, then the second against
	// the state the first leaves: both render, in a verified order whose
	// every step leaves the whole state clean, and the second ends at the
	// first plan's target.
	p1 := plan(t, before, string(s.First))
	if !p1.Renderable() || !p1.OrderVerified {
		t.Fatalf("first: renderable %v, verified %v: %q", p1.Renderable(), p1.OrderVerified, messages(p1.Findings))
	}
	stepsStayClean(t, p1)
	p2 := plan(t, p1.TargetState(), string(s.Second))
	if !p2.Renderable() || !p2.OrderVerified || len(p2.Changes) != 1 {
		t.Fatalf("second: renderable %v, verified %v, %d changes: %q", p2.Renderable(), p2.OrderVerified, len(p2.Changes), messages(p2.Findings))
	}
	stepsStayClean(t, p2)
	if !sameObjects(p2.Target, p.Target) {
		t.Error("the two plans do not reach the target")
	}
	// The same move on a pool with room for both guarantees is one plan.
	roomy := state(t, yaml, "8", "8")
	one := plan(t, roomy, desired)
	if !one.Renderable() || !one.OrderVerified || Remedy(roomy, one) != nil {
		t.Errorf("with room: renderable %v, verified %v: %q", one.Renderable(), one.OrderVerified, messages(one.Findings))
	}
}
