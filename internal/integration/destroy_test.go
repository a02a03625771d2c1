package integration

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/snapshot/live"
	"github.com/krmplan/krmplan/tenancy"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// destroyTenancy is a tenancy of its own (every name starts with "del-"),
// committed into git: two pools, a department and two projects on both.
const destroyTenancy = `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: del-a100}
spec: {labelKey: del.example.com/gpu, labelValue: a100}
---
apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: del-h100}
spec: {labelKey: del.example.com/gpu, labelValue: h100}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: del-dept}
spec:
  queues:
    - name: del-dept-a100
      nodepool: del-a100
      resources: {gpu: {deserved: 4, limit: 4, overQuotaWeight: 1}, cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}, memory: {deserved: -1, limit: -1, overQuotaWeight: 1}}
    - name: del-dept-h100
      nodepool: del-h100
      resources: {gpu: {deserved: 4, limit: 4, overQuotaWeight: 1}, cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}, memory: {deserved: -1, limit: -1, overQuotaWeight: 1}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: del-keep}
spec:
  parent: del-dept
  queues:
    - name: del-keep-a100
      nodepool: del-a100
      resources: {gpu: {deserved: 2, limit: 4, overQuotaWeight: 1}, cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}, memory: {deserved: -1, limit: -1, overQuotaWeight: 1}}
    - name: del-keep-h100
      nodepool: del-h100
      resources: {gpu: {deserved: 2, limit: 4, overQuotaWeight: 1}, cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}, memory: {deserved: -1, limit: -1, overQuotaWeight: 1}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: del-gone}
spec:
  parent: del-dept
  queues:
    - name: del-gone-a100
      nodepool: del-a100
      resources: {gpu: {deserved: 1, limit: 4, overQuotaWeight: 1}, cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}, memory: {deserved: -1, limit: -1, overQuotaWeight: 1}}
`

// destroyObjects are the objects of destroyTenancy and of the namesake test.
var destroyObjects = []tenancy.ObjectAddr{
	tenancy.KindProject.Object("del-keep"), tenancy.KindProject.Object("del-gone"), tenancy.KindProject.Object("del-twin"),
	tenancy.KindDepartment.Object("del-dept"), tenancy.KindNodePool.Object("del-a100"), tenancy.KindNodePool.Object("del-h100"),
}

// TestDestroyScript plans removals from a git snapshot, refuses the ones
// KRM would hold (a department its projects name, a pool with queues on
// it), and runs the patch script of the others with the real kubectl
// against the real API server: the cluster then holds exactly the planned
// objects (issue 16 items 1 and 3). It must run before TestLive removes
// the CRDs (Go's file order: destroy_test.go < live_test.go).
func TestDestroyScript(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	t.Cleanup(f.deleteDestroyObjects)
	f.write("tenancy.yaml", destroyTenancy)
	f.createYAML(filepath.Join(f.dir, "tenancy.yaml"))
	f.tenancyRepo(destroyTenancy)
	f.must(f.krmplan("snapshot", "--git-repo", "repo", "--tenancy", "tenancy.yaml", "--no-cluster", "-o", "state.json"), 0, "snapshot")

	// Refused: KRM's finalizers would hold these deletions.
	f.write("dept.hcl", "removed {\n  department = \"del-dept\"\n}\n")
	r := f.must(f.krmplan("plan", "dept.hcl", "--state", "state.json", "--no-color"), 1, "plan removing a department with projects")
	f.wantLine("plan removing a department", r.stdout,
		"Error: department del-dept is removed, but projects del-gone and del-keep still name it as parent: KRM keeps the department Terminating (its finalizer waits, DepartmentDeletionBlocked) until they move or go; give them another department or remove them in this plan")
	f.write("pool.hcl", "removed {\n  node_pool = \"del-h100\"\n}\n")
	r = f.must(f.krmplan("plan", "pool.hcl", "--state", "state.json", "--no-color"), 1, "plan removing a pool in use")
	f.wantLine("plan removing a pool", r.stdout,
		"Error: node pool del-h100 is removed, but project del-keep still has queues on it, so KRM keeps the pool Deleting (ProjectReferencesExist), and department del-dept still has queues on it, and KRM's webhook refuses every later update of a department that names a missing pool; remove those queues in this plan")

	f.write("desired.hcl", `removed {
  node_pool = "del-h100"
}
removed {
  department = "del-dept"
  queue      = "del-h100"
}
removed {
  project = "del-keep"
  queue   = "del-h100"
}
removed {
  project = "del-gone"
}
`)
	r = f.must(f.krmplan("plan", "desired.hcl", "--state", "state.json", "--out", "plan.json", "--no-color"), 0, "plan")
	f.wantLine("plan", r.stdout, "Plan: 0 to add, 2 to change, 2 to destroy.")
	f.wantLine("plan", r.stdout, "Order: 4 steps in phases, every intermediate state verified against the checks.")
	id := f.plan("plan.json").PlanID
	f.must(f.krmplan("render", "plan.json", "--format", "patch", "--approve", id, "--context", "envtest", "-o", "patch.sh"), 0, "render patch")
	script := f.read("patch.sh")
	var steps []string
	for _, m := range regexp.MustCompile(`(?m)^# \d+/\d+ ([a-z ]+): (\w+ [a-z0-9-]+)$`).FindAllStringSubmatch(script, -1) {
		steps = append(steps, m[1]+": "+m[2])
	}
	want := "removing projects and project queues: Project del-gone|removing projects and project queues: Project del-keep|" +
		"removing departments and department queues: Department del-dept|removing node pools: NodePool del-h100"
	if got := strings.Join(steps, "|"); got != want {
		t.Fatalf("steps %s, want %s\n%s", got, want, script)
	}
	before := f.destroySpecs()
	r = f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "patch.sh"), 0, "the patch script")
	wantOut := "projects.kai.resources/del-gone deleted\n" +
		"project.kai.resources/del-keep patched\ndepartment.kai.resources/del-dept patched\n" +
		"nodepools.kai.resources/del-h100 deleted\n"
	if r.stdout != wantOut {
		t.Errorf("the script printed\n%s\nwant\n%s", r.stdout, wantOut)
	}
	// Exactly the planned objects are left...
	for _, gone := range []tenancy.ObjectAddr{tenancy.KindProject.Object("del-gone"), tenancy.KindNodePool.Object("del-h100")} {
		if _, err := f.dyn.Resource(live.KindGVR(gone.Kind)).Get(ctx, gone.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s after the script: %v, want not found", gone, err)
		}
	}
	f.wantEqual("del-keep's queues", queueNames(f.get(live.GVRProject, "del-keep")), []string{"del-keep-a100"})
	f.wantEqual("del-dept's queues", queueNames(f.get(live.GVRDepartment, "del-dept")), []string{"del-dept-a100"})
	f.get(live.GVRNodePool, "del-a100")
	// ... and they are the objects of the spliced branch.
	f.must(f.krmplan("render", "plan.json", "--format", "splice", "--approve", id, "--git-repo", "repo", "--branch", "rm/del"), 0, "render splice")
	spliced := f.must(f.exec(f.environ(f.env.Kubeconfig), "git", "-C", "repo", "show", "rm/del:tenancy.yaml"), 0, "git show").stdout
	f.wantEqual("the spliced tenancy", specsOfYAML(t, spliced), f.destroySpecs())

	// A second run stops at its first change: del-keep's queue 1 is gone.
	if r := f.exec(f.environ(f.env.Kubeconfig), "sh", "patch.sh"); r.code != 12 || !strings.Contains(r.stderr, "the name of queue 1 (/spec/queues/1/name)") {
		t.Errorf("a second run: exit %d\n%s", r.code, r.stderr)
	}
	// The rollback creates the removed objects again and puts the queue
	// entries back at their index: the cluster holds the snapshot's specs.
	f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "patch.rollback.sh"), 0, "the rollback script")
	f.wantEqual("the specs after the rollback", f.destroySpecs(), before)
}

// destroySpecs is the spec of every object of destroyTenancy the cluster
// holds, by address.
func (f *fx) destroySpecs() map[string]string {
	out := map[string]string{}
	for _, a := range destroyObjects {
		o, err := f.dyn.Resource(live.KindGVR(a.Kind)).Get(context.Background(), a.Name, metav1.GetOptions{})
		if err != nil {
			continue
		}
		b, _ := json.Marshal(o.Object["spec"])
		out[a.String()] = string(b)
	}
	return out
}

// specsOfYAML is destroySpecs of the objects in a tenancy file, as the API
// server stores them (read through the same typed spec both ways).
func specsOfYAML(t *testing.T, y string) map[string]string {
	var ten snapshot.Parsed
	if err := ten.ParseTenancy("tenancy.yaml", []byte(y)); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	x := tenancy.NewIndex(&ten.Tenancy)
	for _, a := range destroyObjects {
		if m, ok := x.Manifest(a); ok {
			var doc map[string]any
			_ = json.Unmarshal(m, &doc)
			b, _ := json.Marshal(doc["spec"])
			out[a.String()] = string(b)
		}
	}
	return out
}

// TestDestroyNeverDeletesANamesake: a live snapshot records a project's
// uid; after the project is deleted and created again under its name, the
// removal's script stops at its test of the uid, and the DELETE with the
// old uid as precondition is refused by the API server itself (409), so
// the new project survives both. The live usage of the removed queue makes
// the removal an error until force = true (issue 16 items 2 and 3).
func TestDestroyNeverDeletesANamesake(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	t.Cleanup(f.deleteDestroyObjects)
	f.write("twin.yaml", `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: del-a100}
spec: {labelKey: del.example.com/gpu, labelValue: a100}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: del-dept}
spec:
  queues:
    - {name: del-dept-a100, nodepool: del-a100, resources: {gpu: {deserved: 4, limit: 4, overQuotaWeight: 1}}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: del-twin}
spec:
  parent: del-dept
  queues:
    - {name: del-twin-a100, nodepool: del-a100, resources: {gpu: {deserved: 1, limit: 1, overQuotaWeight: 1}}}
`)
	f.createYAML(filepath.Join(f.dir, "twin.yaml"))
	f.node("del-node", map[string]string{"del.example.com/gpu": "a100"}, "8", "8", true, false)
	t.Cleanup(func() { _ = f.cs.CoreV1().Nodes().Delete(ctx, "del-node", metav1.DeleteOptions{}) })
	f.queue("del-twin-a100", "del-dept-a100", [3]any{1, 1, 1}, map[string]any{"nvidia.com/gpu": "1"}, map[string]any{"nvidia.com/gpu": "1"})
	f.must(f.krmplan("snapshot", "-o", "live.json"), 0, "live snapshot")
	uid := string(f.get(live.GVRProject, "del-twin").GetUID())

	f.write("desired.hcl", "removed {\n  project = \"del-twin\"\n}\n")
	r := f.must(f.krmplan("plan", "desired.hcl", "--state", "live.json", "--no-color"), 1, "plan removing a project in use")
	f.wantLine("plan", r.stdout, "Error: del-twin-a100: 1 card in use, 1 non-preemptible: these workloads stop being schedulable when the queue is removed (KAI's scheduler gives their PodGroups QueueDoesNotExist); set force = true in the removed block to remove it anyway")
	f.write("desired.hcl", "removed {\n  project = \"del-twin\"\n  force   = true\n}\n")
	r = f.must(f.krmplan("plan", "desired.hcl", "--state", "live.json", "--out", "plan.json", "--no-color"), 0, "plan with force")
	f.wantLine("plan", r.stdout, "Warning: del-twin-a100: 1 card in use, 1 non-preemptible: these workloads stop being schedulable when the queue is removed (KAI's scheduler gives their PodGroups QueueDoesNotExist); force = true allows it")
	id := f.plan("plan.json").PlanID
	// --check-live sends the delete's tests too (it once refused every
	// plan with a delete step: unknown action "delete").
	r = f.must(f.krmplan("render", "plan.json", "--format", "patch", "--approve", id, "--check-live", "-o", "patch.sh"), 0, "render --check-live")
	f.wantLine("render --check-live", r.stderr, "Checked live: every test of the 1 step holds on context envtest (a server dry run; nothing changed).")
	script := f.read("patch.sh")
	if !strings.Contains(script, `krmplan_delete projects.kai.resources del-twin /apis/kai.resources/v1alpha1/projects/del-twin '[{"op":"test","path":"/metadata/uid","value":"`+uid+`"}`) {
		t.Fatalf("the script does not test the uid %s before the delete:\n%s", uid, script)
	}

	r = f.must(f.krmplan("plan", "desired.hcl", "--state", "live.json", "--server-dry-run", "--no-color"), 0, "plan --server-dry-run")
	f.wantLine("plan --server-dry-run", r.stdout, "Note: server dry run: the API server accepted all 1 step (dryRun=All, nothing persisted); each step was checked against the live object as it is now, without the effect of the steps before it, since a dry run persists nothing")
	f.get(live.GVRProject, "del-twin") // the dry run deleted nothing

	// The namesake: deleted and created again, with another uid.
	twin := f.get(live.GVRProject, "del-twin")
	if err := f.dyn.Resource(live.GVRProject).Delete(ctx, "del-twin", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	again := f.create(live.GVRProject, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": tenancy.APIVersion, "kind": "Project", "metadata": map[string]any{"name": "del-twin"}, "spec": twin.Object["spec"]}})
	if again.GetUID() == twin.GetUID() {
		t.Fatal("the namesake has the old uid")
	}
	r = f.must(f.krmplan("plan", "desired.hcl", "--state", "live.json", "--server-dry-run", "--no-color"), 1, "plan --server-dry-run with a namesake")
	f.wantLine("plan --server-dry-run with a namesake", r.stdout, "Error: step 1/1 (delete Project del-twin, removing projects and project queues): the API server refused it in a dry run: the server rejected our request due to an error in our request — a value this patch tests (a queue name or a number as read) is no longer what the snapshot read: the object changed since the snapshot; take a new snapshot and plan again")
	r = f.must(f.krmplan("render", "plan.json", "--format", "patch", "--approve", id, "--check-live", "-o", "stale.sh"), 1, "render --check-live with a namesake")
	f.wantLine("render --check-live with a namesake", r.stderr, "--check-live: step 1/1 (removing projects and project queues: Project del-twin): Project del-twin was deleted and created again since the snapshot: its uid is "+string(again.GetUID())+", the plan read "+uid+"; the script never deletes it")
	r = f.exec(f.environ(f.env.Kubeconfig), "sh", "patch.sh")
	if r.code != 11 || r.stdout != "" || !strings.Contains(r.stderr, "changed since the snapshot: the uid of project del-twin (/metadata/uid): the plan read "+uid) {
		t.Errorf("the script with a namesake: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// The precondition alone, as the script's DELETE sends it.
	body := `{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"uid":"` + uid + `"}}`
	f.write("body.json", body)
	r = f.exec(f.environ(f.env.Kubeconfig), "kubectl", "--context", "envtest", "delete", "--raw", "/apis/kai.resources/v1alpha1/projects/del-twin", "-f", "body.json")
	if r.code == 0 || !strings.Contains(r.stderr, "Error from server (Conflict): Operation cannot be fulfilled on Project.kai.resources \"del-twin\": the UID in the precondition ("+uid+") does not match the UID in record") {
		t.Errorf("DELETE with the old uid: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := f.get(live.GVRProject, "del-twin").GetUID(); got != again.GetUID() {
		t.Errorf("the namesake's uid is %s, want %s: it was deleted", got, again.GetUID())
	}
}

// deleteDestroyObjects deletes what the destroy tests create: TestLive (a
// later file) lists the whole cluster.
func (f *fx) deleteDestroyObjects() {
	ctx := context.Background()
	for _, a := range destroyObjects {
		_ = f.dyn.Resource(live.KindGVR(a.Kind)).Delete(ctx, a.Name, metav1.DeleteOptions{})
	}
	_ = f.dyn.Resource(live.GVRQueue).Delete(ctx, "del-twin-a100", metav1.DeleteOptions{})
}

// queueNames is the names of an object's spec.queues, in order.
func queueNames(o *unstructured.Unstructured) []string {
	qs, _, _ := unstructured.NestedSlice(o.Object, "spec", "queues")
	var out []string
	for _, q := range qs {
		if m, ok := q.(map[string]any); ok {
			out = append(out, m["name"].(string))
		}
	}
	return out
}
