package planner

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// removalTenancy: two pools; department d on both; project p on both (its
// defaultNodePools names both), project q on a100 only.
const removalTenancy = `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: a100}
spec: {labelKey: gpu, labelValue: a100}
---
apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: h100}
spec: {labelKey: gpu, labelValue: h100}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: d}
spec:
  queues:
  - {name: d-a100, nodepool: a100, resources: {gpu: {deserved: 4, limit: 4, overQuotaWeight: 1}}}
  - {name: d-h100, nodepool: h100, resources: {gpu: {deserved: 2, limit: 2, overQuotaWeight: 1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: p}
spec:
  parent: d
  defaultNodePools: [a100, h100]
  queues:
  - {name: p-a100, nodepool: a100, resources: {gpu: {deserved: 2, limit: 4, overQuotaWeight: 1}}}
  - {name: p-h100, nodepool: h100, priority: 50, resources: {gpu: {deserved: 2, limit: 2, overQuotaWeight: 1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: q}
spec:
  parent: d
  queues:
  - {name: q-a100, nodepool: a100, resources: {gpu: {deserved: 1, limit: 1, overQuotaWeight: 1}}}
`

// codesOf is "level code" of each finding not already present.
func codesOf(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		if !f.AlreadyPresent {
			out = append(out, string(f.Level)+" "+string(f.Code))
		}
	}
	return out
}

// TestRemovalsOrderChildrenFirst: the removal of a project, of a project
// queue, of the department queue above it and of the pool are planned in
// that order, every intermediate state verified, and the steps' JSON
// patches turn the objects as read into the target.
func TestRemovalsOrderChildrenFirst(t *testing.T) {
	before := mustState(t, removalTenancy)
	p := catPlan(t, before, `
removed { node_pool = "h100" }
removed {
  department = "d"
  queue      = "h100"
}
project "p" {
  default_node_pools = ["a100"]
}
removed {
  project = "p"
  queue   = "h100"
}
removed { project = "q" }
`)
	if !p.OrderVerified || !p.Renderable() {
		t.Fatalf("verified %v, renderable %v: %q", p.OrderVerified, p.Renderable(), messages(p.Findings))
	}
	if s := p.Summary; s.Add != 0 || s.Change != 2 || s.Destroy != 2 {
		t.Errorf("summary %+v, want 0 to add, 2 to change, 2 to destroy", s)
	}
	var steps []string
	for _, st := range p.Steps {
		steps = append(steps, string(st.Phase)+": "+string(st.Action)+" "+st.Object.String())
	}
	want := []string{
		"removing projects and project queues: patch Project/p",
		"removing projects and project queues: delete Project/q",
		"removing departments and department queues: patch Department/d",
		"removing node pools: delete NodePool/h100",
	}
	if !slices.Equal(steps, want) {
		t.Fatalf("steps\n%s\nwant\n%s", strings.Join(steps, "\n"), strings.Join(want, "\n"))
	}
	ops, _ := json.Marshal(p.Steps[0].Ops)
	wantOps := `[{"op":"test","path":"/spec/defaultNodePools","value":["a100","h100"]},{"op":"replace","path":"/spec/defaultNodePools","value":["a100"]},` +
		`{"op":"test","path":"/spec/queues/1/name","value":"p-h100"},{"op":"test","path":"/spec/queues/1/nodepool","value":"h100"},{"op":"test","path":"/spec/queues/1/priority","value":50},` +
		`{"op":"test","path":"/spec/queues/1/resources/gpu/deserved","value":2},{"op":"test","path":"/spec/queues/1/resources/gpu/limit","value":2},{"op":"test","path":"/spec/queues/1/resources/gpu/overQuotaWeight","value":1},` +
		`{"op":"remove","path":"/spec/queues/1"}]`
	if string(ops) != wantOps {
		t.Errorf("ops of p\n got %s\nwant %s", ops, wantOps)
	}
	ops, _ = json.Marshal(p.Steps[3].Ops)
	if want := `[{"op":"test","path":"/spec/labelKey","value":"gpu"},{"op":"test","path":"/spec/labelValue","value":"h100"}]`; string(ops) != want {
		t.Errorf("tests of the pool's deletion\n got %s\nwant %s", ops, want)
	}
	bx, tx := p.Indexes()
	for _, st := range p.Steps {
		if st.Action != StepPatch {
			if tx.Has(st.Object) {
				t.Errorf("%s is deleted but the target has it", st.Object)
			}
			continue
		}
		doc, _ := bx.Manifest(st.Object)
		ops, _ := json.Marshal(st.Ops)
		patch, err := jsonpatch.DecodePatch(ops)
		if err != nil {
			t.Fatal(err)
		}
		got, err := patch.Apply(doc)
		if err != nil {
			t.Fatalf("%s: %v", st.Object, err)
		}
		if want, _ := tx.Manifest(st.Object); !jsonpatch.Equal(got, want) {
			t.Errorf("%s after its patch:\n%s\nwant\n%s", st.Object, got, want)
		}
	}
	if got, want := codesOf(p.Findings), []string{"warning removal-namespace-kept", "note removal-usage-not-read", "note removal-usage-not-read", "note removal-usage-not-read"}; !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
}

// TestRemovalsKRMWouldHold: a department its projects name, a pool with
// queues on it, and a department queue with project queues under it are
// errors; force allows only the last, as a warning; the unknown-parent and
// unknown-pool errors they would also make are not repeated.
func TestRemovalsKRMWouldHold(t *testing.T) {
	before := mustState(t, removalTenancy)
	cases := []struct{ desired, want string }{
		{`removed { department = "d" }`,
			"error removal-blocked: department d is removed, but projects p and q still name it as parent: KRM keeps the department Terminating (its finalizer waits, DepartmentDeletionBlocked) until they move or go; give them another department or remove them in this plan"},
		{`removed { node_pool = "h100" }`,
			"error removal-blocked: node pool h100 is removed, but project p still has queues on it, so KRM keeps the pool Deleting (ProjectReferencesExist), and department d still has queues on it, and KRM's webhook refuses every later update of a department that names a missing pool; remove those queues in this plan"},
		{"removed {\n department = \"d\"\n queue = \"h100\"\n}",
			"error removal-orphans-queues: d-h100: department d's queue on node pool h100 is removed, but project p still has queues there: KAI's scheduler drops those queues and their workloads (QueueDoesNotExist) until KRM next reconciles each project and makes them root queues outside any department; set force = true in the removed block to remove it anyway"},
		{"removed {\n department = \"d\"\n queue = \"h100\"\n force = true\n}",
			"warning forced-removal: d-h100: department d's queue on node pool h100 is removed, but project p still has queues there: KAI's scheduler drops those queues and their workloads (QueueDoesNotExist) until KRM next reconciles each project and makes them root queues outside any department; force = true allows it"},
	}
	for _, c := range cases {
		p := catPlan(t, before, c.desired)
		var got []string
		for _, m := range messages(p.Findings) {
			if strings.Contains(m, "removal") || strings.Contains(m, "unknown-") {
				got = append(got, m)
			}
		}
		if len(got) == 0 || got[0] != c.want {
			t.Errorf("%s:\n got %q\nwant %s", c.desired, got, c.want)
		}
		for _, m := range got[1:] {
			if !strings.HasPrefix(m, "note removal-usage-not-read") {
				t.Errorf("%s: another finding %s", c.desired, m)
			}
		}
	}
}

// TestRemovalStepOrphansQueues: a department queue removed before the
// project queues under it is an unsafe order, although the state after
// the step has only a warning.
func TestRemovalStepOrphansQueues(t *testing.T) {
	before := mustState(t, removalTenancy)
	p := catPlan(t, before, "removed {\n department = \"d\"\n queue = \"h100\"\n}\nremoved {\n project = \"p\"\n queue = \"h100\"\n}\nproject \"p\" {\n default_node_pools = [\"a100\"]\n}\n")
	if !p.OrderVerified {
		t.Fatalf("not verified: %q", messages(p.Findings))
	}
	bx, tx := p.Indexes()
	steps := slices.Clone(p.Steps)
	slices.Reverse(steps)
	errs := newShared(before).stepErrors(before, bx, tx, p.Changes, steps)
	f := firstUnsafe(errs, nil)
	want := "no safe order: after step 1 (patch Department d, removing departments and department queues) the state would have an error this plan does not end with: d-h100: department d's queue on node pool h100 is removed while project p still has queues there"
	if f == nil || f.Message != want {
		t.Errorf("got %+v\nwant %s", f, want)
	}
}

// TestRemovalUsageFromLiveData: a removed queue with allocated cards is an
// error naming them, unless forced; without usage it says nothing.
func TestRemovalUsageFromLiveData(t *testing.T) {
	before := mustState(t, removalTenancy)
	before.NotRead = slices.DeleteFunc(before.NotRead, func(n snapshot.NotRead) bool { return n.What != snapshot.SourceNodes })
	before.LiveQueues = []snapshot.LiveQueue{
		{Name: "q-a100", Allocated: map[string]string{"nvidia.com/gpu": "3", "cpu": "2500m"}, AllocatedNonPreemptible: map[string]string{"nvidia.com/gpu": "1"}},
		{Name: "p-h100", Allocated: map[string]string{"memory": "2G"}},
	}
	before.Namespaces = []snapshot.Namespace{{Name: "kai-q", Labels: map[string]string{"kai/project": "q"}}}
	p := catPlan(t, before, "removed {\n project = \"q\"\n}\nremoved {\n project = \"p\"\n queue = \"h100\"\n force = true\n}\nproject \"p\" {\n default_node_pools = [\"a100\"]\n}\n")
	var got []string
	for _, m := range messages(p.Findings) {
		if strings.Contains(m, "removal") {
			got = append(got, m)
		}
	}
	want := []string{
		"error removal-in-use: q-a100: 3 cards in use, 1 non-preemptible (and 2500 millicores of cpu): these workloads stop being schedulable when the queue is removed (KAI's scheduler gives their PodGroups QueueDoesNotExist); set force = true in the removed block to remove it anyway",
		"warning removal-namespace-kept: project q is removed: KRM deletes its queues but keeps its namespace kai-q, still labelled kai/project=q, with every workload in it; a new project can use it only after the label is changed (kubectl label namespace kai-q kai/project=<project> --overwrite), or delete the namespace by hand",
		"warning forced-removal: p-h100: 2000 MB of memory in use: these workloads stop being schedulable when the queue is removed (KAI's scheduler gives their PodGroups QueueDoesNotExist); force = true allows it",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p.Findings[0].Where[0].Line != 1 || !p.Findings[0].Where[0].Desired {
		t.Errorf("the error points at %+v, want the removed block", p.Findings[0].Where)
	}
}

// TestMovedRemovalInUseAdvice: the old project of a moved block whose
// queues are in use is refused with advice for the moved block, which is
// where force = true goes.
func TestMovedRemovalInUseAdvice(t *testing.T) {
	// q's queue is unnamed, as a moved block requires: KRM names it q-a100.
	before := mustState(t, strings.Replace(removalTenancy, "{name: q-a100, nodepool: a100,", "{name: \"\", nodepool: a100,", 1))
	before.NotRead = slices.DeleteFunc(before.NotRead, func(n snapshot.NotRead) bool { return n.What != snapshot.SourceNodes })
	before.LiveQueues = []snapshot.LiveQueue{{Name: "q-a100", Allocated: map[string]string{"nvidia.com/gpu": "1"}}}
	p := catPlan(t, before, "moved {\n from = \"q\"\n to = \"r\"\n}\n")
	want := "error removal-in-use: q-a100: 1 card in use: these workloads stop being schedulable when the queue is removed (KAI's scheduler gives their PodGroups QueueDoesNotExist); set force = true in the moved block to remove it anyway"
	if !slices.Contains(messages(p.Findings), want) {
		t.Errorf("got\n%s\nwant among them\n%s", strings.Join(messages(p.Findings), "\n"), want)
	}
}

// TestQueueNameKept: editing an existing entry's name in desired.hcl
// renames no KAI Queue (KRM finds a project's by its labels, a
// department's by its owner), so the plan warns, at the name in
// desired.hcl, as a plan between refs does at the head's line
// (planner/between's TestRenameRefused).
func TestQueueNameKept(t *testing.T) {
	before := mustState(t, removalTenancy)
	p := catPlan(t, before, "project \"p\" {\n queue \"h100\" {\n  name = \"p-fast\"\n }\n}\ndepartment \"d\" {\n queue \"a100\" {\n  name = \"d-gpu\"\n }\n}\n")
	var got []string
	var lines []int
	for _, f := range p.Findings {
		if f.Code == "queue-name-kept" {
			got = append(got, string(f.Level)+" "+f.Message)
			for _, w := range f.Where {
				if w.Desired {
					lines = append(lines, w.Line)
				}
			}
		}
	}
	want := []string{
		`warning department d's queue on node pool a100 is renamed from "d-a100" to "d-gpu" in the spec, but KRM finds the Queue it made by its owner and keeps its name d-a100: no Queue d-gpu is made, the checks and messages name it d-gpu, and workloads keep naming d-a100; to get a Queue named d-gpu, remove the entry in one plan (a removed block, or a pull request) and add it again in the next`,
		`warning project p's queue on node pool h100 is renamed from "p-h100" to "p-fast" in the spec, but KRM finds the Queue it made by its labels (the project and the node pool) and keeps its name p-h100: no Queue p-fast is made, the checks and messages name it p-fast, and workloads keep naming p-h100; to get a Queue named p-fast, remove the entry in one plan (a removed block, or a pull request) and add it again in the next`,
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if slices.Sort(lines); !slices.Equal(lines, []int{3, 8}) {
		t.Errorf("the warnings point at desired.hcl lines %v, want 3 and 8 (the names)", lines)
	}
}

// TestForcedRemovalsCount counts the removals whose force allowed a
// forced-removal warning: one per removal, whatever the number of its
// warnings, and a queue removal only by a warning on its own pool.
func TestForcedRemovalsCount(t *testing.T) {
	p, q := tenancy.KindProject.Object("p"), tenancy.KindProject.Object("q")
	forced := func(c tenancy.Change) tenancy.Change { c.Force = true; return c }
	pa := forced(tenancy.DestroyQueue(tenancy.QueueAddr{Object: p, Index: 1}, "p-a100", "a100"))
	ph := forced(tenancy.DestroyQueue(tenancy.QueueAddr{Object: p, Index: 0}, "p-h100", "h100"))
	plan := &Plan{Changes: []tenancy.Change{pa, ph, forced(tenancy.DestroyObject(q))}, Findings: []Finding{
		{Code: CodeForcedRemoval, Level: LevelWarning, Object: p, Queue: "p-a100", Pool: "a100"},
		{Code: CodeRemovalUsageNotRead, Level: LevelNote, Object: p, Queue: "p-h100", Pool: "h100"},
		{Code: CodeForcedRemoval, Level: LevelWarning, Object: q, Queue: "q-a100", Pool: "a100"},
		{Code: CodeForcedRemoval, Level: LevelWarning, Object: q, Queue: "q-h100", Pool: "h100"},
	}}
	if n := plan.ForcedRemovals(); n != 2 {
		t.Errorf("%d forced removals, want 2 (p's queue on a100, q)", n)
	}
	plan.Findings = plan.Findings[1:2]
	if n := plan.ForcedRemovals(); n != 0 {
		t.Errorf("%d forced removals without a forced-removal warning, want 0", n)
	}
}
