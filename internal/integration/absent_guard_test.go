package integration

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/krmplan/krmplan/snapshot/live"
	"github.com/krmplan/krmplan/tenancy"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// absentTenancy has a root project written without spec.parent (every name
// starts with "abs-", so that it shares nothing with the other tests).
const absentTenancy = `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: abs-a100}
spec: {labelKey: abs.example.com/gpu, labelValue: a100}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: abs-dept}
spec:
  queues:
    - name: abs-dept-a100
      nodepool: abs-a100
      resources:
        gpu: {deserved: 4, limit: 4, overQuotaWeight: 1}
        cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}
        memory: {deserved: -1, limit: -1, overQuotaWeight: 1}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: abs-root}
spec:
  queues:
    - name: abs-root-a100
      nodepool: abs-a100
      resources:
        gpu: {deserved: 0, limit: 4, overQuotaWeight: 1}
        cpu: {deserved: -1, limit: -1, overQuotaWeight: 1}
        memory: {deserved: -1, limit: -1, overQuotaWeight: 1}
`

// TestAbsentGuard: moving a root project whose spec.parent key is absent
// into a department is an add after a test of null (JSON patch has no test
// of absence; the API server's JSON patch passes a test of null only on a
// missing key). The real API server and kubectl show both sides: with a
// parent set by someone else since the snapshot, the script stops at the
// step and names it, and the other person's parent stays; with the key
// absent again, the script adds the parent; the rollback removes it.
func TestAbsentGuard(t *testing.T) {
	f := newFixture(t)
	f.deleteAtCleanup([]tenancy.ObjectAddr{tenancy.KindNodePool.Object("abs-a100"), tenancy.KindDepartment.Object("abs-dept"), tenancy.KindProject.Object("abs-root")})
	t.Cleanup(func() { _ = f.cs.CoreV1().Nodes().Delete(context.Background(), "abs-node", metav1.DeleteOptions{}) })
	f.createYAML(f.write("tenancy.yaml", absentTenancy))
	f.node("abs-node", map[string]string{"abs.example.com/gpu": "a100"}, "16", "16", true, false)

	f.must(f.krmplan("snapshot", "-o", "state.json"), 0, "snapshot")
	f.write("desired.hcl", "project \"abs-root\" {\n  department = \"abs-dept\"\n}\n")
	f.must(f.krmplan("plan", "desired.hcl", "--state", "state.json", "--out", "plan.json"), 0, "plan")
	p := f.plan("plan.json")
	if len(p.Steps) != 1 {
		t.Fatalf("want 1 step, got %d", len(p.Steps))
	}
	ops, _ := json.Marshal(p.Steps[0].Ops)
	f.wantEqual("the step's operations", string(ops),
		`[{"op":"test","path":"/spec/parent","value":null},{"op":"add","path":"/spec/parent","value":"abs-dept"}]`)
	f.must(f.krmplan("render", "plan.json", "--format", "patch", "--approve", p.PlanID, "-o", "apply.sh"), 0, "render")

	// Someone gives the project a parent since the snapshot: the add would
	// overwrite it, so the test of null stops the step.
	f.mergePatch(live.GVRProject, "abs-root", `{"spec":{"parent":"abs-other"}}`)
	r := f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.sh"), 11, "the patch script over a parent set since")
	f.wantLine("the report", r.stderr, "krmplan:   changed since the snapshot: parent of project abs-root (/spec/parent): the plan read nothing there, the cluster holds abs-other")
	f.wantEqual("the other person's parent", parentOf(f, "abs-root"), "abs-other")

	// The key absent again: the step goes through, and the rollback takes
	// the parent away again.
	f.mergePatch(live.GVRProject, "abs-root", `{"spec":{"parent":null}}`)
	f.wantEqual("parent removed", parentOf(f, "abs-root"), nil)
	f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.sh"), 0, "the patch script")
	f.wantEqual("parent after the script", parentOf(f, "abs-root"), "abs-dept")
	f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "apply.rollback.sh"), 0, "the rollback")
	f.wantEqual("parent after the rollback", parentOf(f, "abs-root"), nil)
}

// parentOf is a project's spec.parent as the cluster stores it; nil when
// the key is absent.
func parentOf(f *fx, name string) any {
	f.t.Helper()
	v, ok, _ := unstructured.NestedFieldNoCopy(f.get(live.GVRProject, name).Object, "spec", "parent")
	if !ok {
		return nil
	}
	return v
}
