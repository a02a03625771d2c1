package integration

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/krmplan/krmplan/snapshot/live"
	"github.com/krmplan/krmplan/tenancy"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// finalizingTenancy is a tenancy of its own (every name starts with
// "fin-"): a department and the project the plan removes.
const finalizingTenancy = `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: fin-a100}
spec: {labelKey: fin.example.com/gpu, labelValue: a100}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: fin-dept}
spec:
  queues:
    - name: fin-dept-a100
      nodepool: fin-a100
      resources:
        gpu: {deserved: 4, limit: 4, overQuotaWeight: 1}
        cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}
        memory: {deserved: -1, limit: -1, overQuotaWeight: 1}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: fin-gone}
spec:
  parent: fin-dept
  queues:
    - name: fin-gone-a100
      nodepool: fin-a100
      resources:
        gpu: {deserved: 1, limit: 4, overQuotaWeight: 1}
        cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}
        memory: {deserved: -1, limit: -1, overQuotaWeight: 1}
`

// TestRollbackWaitsForFinalizer: the rollback of a removal creates the
// project again, but a finalizer (KRM's, here the test's) keeps the
// deleted project Terminating, and a create would meet AlreadyExists. The
// rollback waits for it to be gone, bounded ($KRMPLAN_DELETE_WAIT): past
// the bound it stops at the step with the command to run again; with the
// finalizer released while it waits, it creates the project again.
func TestRollbackWaitsForFinalizer(t *testing.T) {
	f := newFixture(t)
	objs := []tenancy.ObjectAddr{tenancy.KindProject.Object("fin-gone"), tenancy.KindDepartment.Object("fin-dept"), tenancy.KindNodePool.Object("fin-a100")}
	f.deleteAtCleanup(objs)
	release := func() {
		_, _ = f.dyn.Resource(live.GVRProject).Patch(context.Background(), "fin-gone", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	}
	t.Cleanup(release) // before the deletions (cleanups run last first)
	t.Cleanup(func() { _ = f.cs.CoreV1().Nodes().Delete(context.Background(), "fin-node", metav1.DeleteOptions{}) })
	f.createYAML(f.write("tenancy.yaml", finalizingTenancy))
	f.node("fin-node", map[string]string{"fin.example.com/gpu": "a100"}, "16", "16", true, false)
	f.mergePatch(live.GVRProject, "fin-gone", `{"metadata":{"finalizers":["test.krmplan/hold"]}}`)
	before := f.specsOf(objs)

	f.must(f.krmplan("snapshot", "-o", "state.json"), 0, "snapshot")
	f.write("desired.hcl", "removed {\n  project = \"fin-gone\"\n}\n")
	f.must(f.krmplan("plan", "desired.hcl", "--state", "state.json", "--out", "plan.json"), 0, "plan")
	p := f.plan("plan.json")
	f.must(f.krmplan("render", "plan.json", "--format", "patch", "--approve", p.PlanID, "-o", "apply.sh"), 0, "render")
	f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.sh"), 0, "the patch script")
	if o := f.get(live.GVRProject, "fin-gone"); o.GetDeletionTimestamp() == nil {
		t.Fatal("fin-gone is not Terminating: the finalizer did not hold it")
	}

	// Past the bound: stopped at the step, with the command to run again.
	r := f.must(f.exec(append(f.environ(f.env.Kubeconfig), "KRMPLAN_DELETE_WAIT=1"), "sh", "apply.rollback.sh"), 11, "the rollback while fin-gone finalizes")
	f.wantLine("the rollback", r.stderr, "krmplan:   Project fin-gone is still being deleted after 1 s: its finalizers hold it; once it is gone (kubectl get projects.kai.resources fin-gone), run the rollback again: sh 'apply.rollback.sh' 1")
	f.wantLine("the rollback", r.stderr, "krmplan: undone: nothing; not undone: step 1")
	if !containsLine(r.stderr, `^krmplan:   Project fin-gone is still being deleted \(since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; finalizers \["test.krmplan/hold"\]\): waiting up to 1 s for it to be gone$`) {
		t.Errorf("the rollback does not say what it waits for:\n%s", r.stderr)
	}

	// Released while the rollback waits: it creates the project again.
	go func() {
		time.Sleep(2 * time.Second)
		release()
	}()
	r = f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.rollback.sh"), 0, "the rollback once the finalizer is released")
	f.wantLine("the rollback", r.stderr, "krmplan: undone: step 1: the cluster holds the snapshot's values for them again")
	f.wantEqual("the rollback's stdout", r.stdout, "project.kai.resources/fin-gone created\n")
	if o := f.get(live.GVRProject, "fin-gone"); o.GetDeletionTimestamp() != nil {
		t.Error("fin-gone is still Terminating after the rollback")
	}
	after := f.specsOf(objs)
	f.wantEqual("the specs after the rollback", after, before)
}

// containsLine reports whether a line of text matches the regular
// expression re (anchored with ^ and $ by the caller).
func containsLine(text, re string) bool {
	return regexp.MustCompile("(?m)" + re).MatchString(text)
}
