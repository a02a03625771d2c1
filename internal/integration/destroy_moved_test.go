package integration

import (
	"context"
	"os"
	"path/filepath"
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
	f.movedDeleteRefused(ctx)
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
	f.movedChecksRefused(ctx)
}

// mvLabels are mv-ns's labels while mv-nlp holds it.
var mvLabels = map[string]string{"kai/project": "mv-nlp", "team": "nlp", "kubernetes.io/metadata.name": "mv-ns"}

// movedDeleteRefused runs TestMovedScript's patch script with a kubectl
// that refuses the DELETE of mv-nlp itself (its dry run passes), after the
// relabel: the script gives the namespace back to mv-nlp before it reports
// step 2 not applied, and the rollback of step 1 leaves the cluster as it
// was (issue 16 item 1).
func (f *fx) movedDeleteRefused(ctx context.Context) {
	f.refusedStep2(ctx, f.refusingKubectl("mv-nlp", ""), "project.kai.resources/mv-language created\nnamespace/mv-ns labeled\n",
		"krmplan: step 2/2: namespace mv-ns is relabelled kai/project=mv-language\n"+
			"Error from server (InternalError): the test refuses this DELETE\n"+
			"krmplan: step 2/2 failed: kubectl refused the delete of Project mv-nlp\n"+
			"krmplan:   every value it tests is still as expected: the cause is kubectl's message above, not a changed value\n"+
			"krmplan:   namespace mv-ns is labelled kai/project=mv-nlp again, as before the step\n")
	if _, err := f.dyn.Resource(live.GVRProject).Get(ctx, "mv-language", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		f.t.Fatalf("mv-language after the rollback of step 1: %v, want not found", err)
	}
}

// movedChecksRefused runs the patch script again on the cluster the
// rollback left, in which someone changed mv-nlp's deserved since, so
// the delete's checks refuse step 2 before the relabel: the namespace
// keeps mv-nlp's label, and the rollback of step 1 deletes mv-language
// only (issue 16 item 1).
func (f *fx) movedChecksRefused(ctx context.Context) {
	f.setQueue0(live.GVRProject, "mv-nlp", "/resources/gpu/deserved", int64(3))
	f.refusedStep2(ctx, f.environ(f.env.Kubeconfig), "project.kai.resources/mv-language created\n",
		"The request is invalid: the server rejected our request due to an error in our request\n"+
			"krmplan: step 2/2 failed: kubectl refused the delete of Project mv-nlp\n"+
			"krmplan:   changed since the snapshot: gpu.deserved of queue mv-nlp-mv-h100 (node pool mv-h100) (/spec/queues/0/resources/gpu/deserved): the plan read 2, the cluster holds 3\n")
}

// refusedStep2 runs TestMovedScript's patch script with env, which has
// step 2 refused: exit 12, stdout as given, stderr beginning with the two
// steps' announcements, then report, then the applied/not applied line;
// mv-ns keeps mv-nlp's label, as it does after the rollback of step 1.
func (f *fx) refusedStep2(ctx context.Context, env []string, stdout, report string) {
	f.t.Helper()
	r := f.exec(env, "sh", "patch.sh")
	f.wantEqual("exit code of the refused run", r.code, 12)
	f.wantEqual("its stdout", r.stdout, stdout)
	wantErr := "krmplan: step 1/2: growing or new projects: Project mv-language\n" +
		"krmplan: step 2/2: removing renamed projects: Project mv-nlp\n" + report +
		"krmplan: applied: step 1 of 2; not applied: step 2 (a step is applied whole or not at all)\n"
	if !strings.HasPrefix(r.stderr, wantErr) {
		f.t.Errorf("its stderr:\n%s\nwant it to begin with:\n%s", r.stderr, wantErr)
	}
	f.wantEqual("mv-ns's labels after the refused run", f.nsLabels(ctx, "mv-ns"), mvLabels)
	f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "patch.rollback.sh", "1"), 0, "the rollback of step 1")
	f.wantEqual("mv-ns's labels after its rollback", f.nsLabels(ctx, "mv-ns"), mvLabels)
}

// nsLabels is namespace name's labels.
func (f *fx) nsLabels(ctx context.Context, name string) map[string]string {
	f.t.Helper()
	ns, err := f.cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return ns.Labels
}

// refusingKubectl writes bin/kubectl, a kubectl (a shell script calling
// the real one) that refuses the DELETE of project (its dry run passes)
// and, when ns is not "", every JSON patch of namespace ns; and returns
// the environment that puts it first on PATH.
func (f *fx) refusingKubectl(project, ns string) []string {
	real := filepath.Join(f.env.AssetsDir, "kubectl")
	patch := ""
	if ns != "" {
		patch = `*"patch namespace ` + ns + ` --type=json"*)
	echo 'Error from server (InternalError): the test refuses this patch' >&2
	exit 1
	;;
`
	}
	f.must(f.exec(nil, "mkdir", "-p", filepath.Join(f.dir, "bin")), 0, "mkdir")
	f.write("bin/kubectl", `#!/bin/sh
case "$*" in
*"delete --raw /apis/kai.resources/v1alpha1/projects/`+project+` -f -")
	body=$(cat)
	case $body in
	*dryRun*) printf '%s\n' "$body" | '`+real+`' "$@"; exit $? ;;
	esac
	echo 'Error from server (InternalError): the test refuses this DELETE' >&2
	exit 1
	;;
`+patch+`esac
exec '`+real+`' "$@"
`)
	f.must(f.exec(nil, "chmod", "+x", filepath.Join(f.dir, "bin/kubectl")), 0, "chmod")
	return append(f.environ(f.env.Kubeconfig), "PATH="+filepath.Join(f.dir, "bin")+string(os.PathListSeparator)+f.env.AssetsDir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestMovedHeldRefused renames a project without spec.namespace, whose
// namespace (KRM's default one, kai-mh-tools) the relabel holds with the
// manual-override label, and has the DELETE refused after the relabel:
// the script gives the namespace back to mh-tools and removes the
// override label it set (issue 16 item 1). Then the give-back is refused
// too, leaving the namespace labelled for mh-box: the rollback of step 1
// gives it back before it deletes mh-box.
func TestMovedHeldRefused(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.deleteAtCleanup([]tenancy.ObjectAddr{tenancy.KindProject.Object("mh-tools"), tenancy.KindProject.Object("mh-box"),
		tenancy.KindDepartment.Object("mh-dept"), tenancy.KindNodePool.Object("mh-h100")})
	t.Cleanup(func() {
		_, _ = f.cs.CoreV1().Namespaces().Patch(ctx, "kai-mh-tools", types.MergePatchType, []byte(`{"metadata":{"labels":{"kai/project":null}}}`), metav1.PatchOptions{})
		_ = f.cs.CoreV1().Namespaces().Delete(ctx, "kai-mh-tools", metav1.DeleteOptions{})
	})
	ten := strings.NewReplacer("mv-nlp", "mh-tools", "mv-", "mh-", "  namespace: mv-ns\n", "").Replace(movedTenancy)
	f.namespace("kai-mh-tools", map[string]string{"kai/project": "mh-tools", "team": "tools"})
	f.write("tenancy.yaml", ten)
	f.createYAML(f.dir + "/tenancy.yaml")
	f.tenancyRepo(ten)
	f.must(f.krmplan("snapshot", "--git-repo", "repo", "--tenancy", "tenancy.yaml", "--no-cluster", "-o", "state.json"), 0, "snapshot")
	f.write("desired.hcl", "moved {\n  from = \"mh-tools\"\n  to   = \"mh-box\"\n}\n")
	f.must(f.krmplan("plan", "desired.hcl", "--state", "state.json", "--out", "plan.json", "--no-color"), 0, "plan")
	id := f.plan("plan.json").PlanID
	f.must(f.krmplan("render", "plan.json", "--format", "patch", "--approve", id, "--context", "envtest", "-o", "patch.sh"), 0, "render patch")
	labels := map[string]string{"kai/project": "mh-tools", "team": "tools", "kubernetes.io/metadata.name": "kai-mh-tools"}

	r := f.exec(f.refusingKubectl("mh-tools", ""), "sh", "patch.sh")
	f.wantEqual("exit code of the run whose DELETE is refused", r.code, 12)
	for _, line := range []string{
		"krmplan: step 2/2: namespace kai-mh-tools is relabelled kai/project=mh-box, with kai.resources/resource-manual-override=true until project mh-tools is gone",
		"krmplan:   namespace kai-mh-tools is labelled kai/project=mh-tools again, as before the step",
		"krmplan: applied: step 1 of 2; not applied: step 2 (a step is applied whole or not at all)",
	} {
		f.wantLine("its stderr", r.stderr, line)
	}
	f.wantEqual("kai-mh-tools's labels after the refused DELETE", f.nsLabels(ctx, "kai-mh-tools"), labels)
	f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "patch.rollback.sh", "1"), 0, "the rollback of step 1")

	// The give-back refused too: the rollback of step 1 gives it back.
	r = f.exec(f.refusingKubectl("mh-tools", "kai-mh-tools"), "sh", "patch.sh")
	f.wantEqual("exit code of the run whose give-back is refused", r.code, 12)
	f.wantLine("its stderr", r.stderr, "krmplan:   kubectl refused to give namespace kai-mh-tools back to project mh-tools: it is still labelled kai/project=mh-box; label it: kubectl label namespace kai-mh-tools kai/project=mh-tools --overwrite")
	f.wantEqual("kai-mh-tools's labels after it", f.nsLabels(ctx, "kai-mh-tools"), map[string]string{"kai/project": "mh-box", "team": "tools",
		"kubernetes.io/metadata.name": "kai-mh-tools", "kai.resources/resource-manual-override": "true"})
	r = f.must(f.exec(f.environ(f.env.Kubeconfig), "sh", "patch.rollback.sh", "1"), 0, "the rollback of step 1")
	f.wantLine("the rollback's stderr", r.stderr, "krmplan:   namespace kai-mh-tools is labelled kai/project=mh-tools again, as before the step")
	got := f.nsLabels(ctx, "kai-mh-tools")
	f.wantEqual("kai-mh-tools's project label after the rollback", got["kai/project"], "mh-tools")
	if _, err := f.dyn.Resource(live.GVRProject).Get(ctx, "mh-box", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("mh-box after the rollback: %v, want not found", err)
	}
}
