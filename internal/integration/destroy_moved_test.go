package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/snapshot/live"
	"github.com/krmplan/krmplan/tenancy"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// movedTenancy is a tenancy of its own (every name starts with "mv-"): a
// department and a project whose queue has a derived name, in a namespace
// of its own.
const movedTenancy = `apiVersion: kai.resources/v1alpha1
kind: NodePool
metadata: {name: mv-h100}
spec: {labelKey: mv.example.com/gpu, labelValue: h100}
---
apiVersion: kai.resources/v1alpha1
kind: Department
metadata: {name: mv-dept}
spec:
  queues:
    - name: mv-dept-h100
      nodepool: mv-h100
      resources: {gpu: {deserved: 4, limit: 4, overQuotaWeight: 1}}
---
apiVersion: kai.resources/v1alpha1
kind: Project
metadata: {name: mv-nlp}
spec:
  parent: mv-dept
  namespace: mv-ns
  queues:
    - name: ""
      nodepool: mv-h100
      resources: {gpu: {deserved: 2, limit: 4, overQuotaWeight: 1}}
`

// TestMovedScript renames a project (a moved block) and runs the patch
// script with the real kubectl against the real API server: the new
// project is created with the old one's spec and namespace, the namespace
// is relabelled for it, then the old project is deleted; the rollback
// undoes the three (issue 16 item 5).
// KRM's controllers do not run here, so what is proven is the script's
// commands and what the API server then holds, not KRM's reconcile. It
// runs before TestLive removes the CRDs (file order).
func TestMovedScript(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	objs := []tenancy.ObjectAddr{tenancy.KindProject.Object("mv-nlp"), tenancy.KindProject.Object("mv-language"),
		tenancy.KindDepartment.Object("mv-dept"), tenancy.KindNodePool.Object("mv-h100")}
	f.deleteAtCleanup(objs)
	t.Cleanup(func() {
		// The test API server runs no namespace controller, so a deleted
		// namespace stays Terminating: its project label goes first, so
		// that later tests that list labelled namespaces do not see it.
		_, _ = f.cs.CoreV1().Namespaces().Patch(ctx, "mv-ns", types.MergePatchType, []byte(`{"metadata":{"labels":{"kai/project":null}}}`), metav1.PatchOptions{})
		_ = f.cs.CoreV1().Namespaces().Delete(ctx, "mv-ns", metav1.DeleteOptions{})
	})
	f.namespace("mv-ns", map[string]string{"kai/project": "mv-nlp", "team": "nlp"})
	f.write("tenancy.yaml", movedTenancy)
	f.createYAML(f.dir + "/tenancy.yaml")
	f.tenancyRepo(movedTenancy)
	f.must(f.krmplan("snapshot", "--git-repo", "repo", "--tenancy", "tenancy.yaml", "--no-cluster", "-o", "state.json"), 0, "snapshot")

	f.write("desired.hcl", "moved {\n  from = \"mv-nlp\"\n  to   = \"mv-language\"\n}\n")
	r := f.must(f.krmplan("plan", "desired.hcl", "--state", "state.json", "--out", "plan.json", "--no-color"), 0, "plan")
	f.wantLine("plan", r.stdout, "Plan: 1 to add, 0 to change, 1 to destroy.")
	f.wantLine("plan", r.stdout, "Order: 2 steps in phases, every intermediate state verified against the checks.")
	id := f.plan("plan.json").PlanID
	f.must(f.krmplan("render", "plan.json", "--format", "patch", "--approve", id, "--context", "envtest", "-o", "patch.sh"), 0, "render patch")
	r = f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "patch.sh"), 0, "the patch script")
	wantOut := "project.kai.resources/mv-language created\nnamespace/mv-ns labeled\nprojects.kai.resources/mv-nlp deleted\n"
	if r.stdout != wantOut {
		t.Errorf("the script printed\n%s\nwant\n%s", r.stdout, wantOut)
	}
	if _, err := f.dyn.Resource(live.GVRProject).Get(ctx, "mv-nlp", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("mv-nlp after the script: %v, want not found", err)
	}
	lang := f.get(live.GVRProject, "mv-language")
	f.wantEqual("mv-language's spec", lang.Object["spec"], map[string]any{"parent": "mv-dept", "namespace": "mv-ns",
		"queues": []any{map[string]any{"name": "", "nodepool": "mv-h100",
			"resources": map[string]any{"gpu": map[string]any{"deserved": int64(2), "limit": int64(4), "overQuotaWeight": int64(1)}}}}})
	ns, err := f.cs.CoreV1().Namespaces().Get(ctx, "mv-ns", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The label is moved; the namespace's other labels are kept.
	f.wantEqual("mv-ns's labels", ns.Labels, map[string]string{"kai/project": "mv-language", "team": "nlp", "kubernetes.io/metadata.name": "mv-ns"})
	// A second run stops at the create: mv-language exists.
	if r := f.exec(f.environ(f.env.Kubeconfig), "sh", "patch.sh"); r.code == 0 || !strings.Contains(r.stderr, "step 1/2 failed") {
		t.Errorf("a second run: exit %d\n%s", r.code, r.stderr)
	}
	// The rollback creates mv-nlp again, gives the namespace back to it,
	// then deletes mv-language.
	f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "patch.rollback.sh"), 0, "the rollback script")
	if _, err := f.dyn.Resource(live.GVRProject).Get(ctx, "mv-language", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("mv-language after the rollback: %v, want not found", err)
	}
	f.wantEqual("mv-nlp's namespace after the rollback", f.get(live.GVRProject, "mv-nlp").Object["spec"].(map[string]any)["namespace"], "mv-ns")
	if ns, err = f.cs.CoreV1().Namespaces().Get(ctx, "mv-ns", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	f.wantEqual("mv-ns's labels after the rollback", ns.Labels, map[string]string{"kai/project": "mv-nlp", "team": "nlp", "kubernetes.io/metadata.name": "mv-ns"})
}
