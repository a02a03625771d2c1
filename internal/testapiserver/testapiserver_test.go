package testapiserver

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

func TestMain(m *testing.M) { Main(m) }

var (
	nodePools   = schema.GroupVersionResource{Group: "kai.resources", Version: "v1alpha1", Resource: "nodepools"}
	departments = schema.GroupVersionResource{Group: "kai.resources", Version: "v1alpha1", Resource: "departments"}
	projects    = schema.GroupVersionResource{Group: "kai.resources", Version: "v1alpha1", Resource: "projects"}
	mncs        = schema.GroupVersionResource{Group: "kai.resources", Version: "v1alpha1", Resource: "managednodesconfigs"}
	krmConfigs  = schema.GroupVersionResource{Group: "kai.resources", Version: "v1alpha1", Resource: "krmconfigs"}
	queues      = schema.GroupVersionResource{Group: "scheduling.run.ai", Version: "v2", Resource: "queues"}
)

func obj(apiVersion, kind, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": name},
		"spec":     spec,
	}}
}

func create(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, o *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	got, err := dyn.Resource(gvr).Create(context.Background(), o, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating %s %s: %v", gvr.Resource, o.GetName(), err)
	}
	return got
}

func nested(t *testing.T, o *unstructured.Unstructured, path ...string) any {
	t.Helper()
	v, ok, err := unstructured.NestedFieldNoCopy(o.Object, path...)
	if err != nil || !ok {
		t.Fatalf("%s: no field %s (%v)", o.GetName(), strings.Join(path, "."), err)
	}
	return v
}

func gpuDeserved(t *testing.T, o *unstructured.Unstructured) any {
	t.Helper()
	qs := nested(t, o, "spec", "queues").([]any)
	v, _, _ := unstructured.NestedFieldNoCopy(qs[0].(map[string]any), "resources", "gpu", "deserved")
	return v
}

// server is the test API server and a client of it, for TestServer's
// steps (which run in order: each sees the objects the ones before it made).
type server struct {
	env *Env
	dyn dynamic.Interface
	ctx context.Context
}

func TestServer(t *testing.T) {
	env := Need(t)
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	if len(env.CRDs) != len(wantCRDs) {
		t.Errorf("installed CRDs %v, want %d", env.CRDs, len(wantCRDs))
	}
	s := &server{env: env, dyn: dyn, ctx: context.Background()}
	s.seed(t)
	for _, step := range []struct {
		name string
		run  func(*server, *testing.T)
	}{
		{"json patch test+replace", (*server).jsonPatch},
		{"stale test op is refused", (*server).staleTestRefused},
		{"server dry-run persists nothing", (*server).dryRunPersistsNothing},
		{"schema refuses a string for a number", (*server).schemaRefusesString},
		{"NodePool label pair is immutable (CEL)", (*server).labelPairImmutable},
		{"project requires queues", (*server).projectRequiresQueues},
		{"ManagedNodesConfig and KRMConfig", (*server).singletons},
		{"Queue with status usage", (*server).queueStatus},
		{"kubectl with the admin kubeconfig", (*server).kubectlAdmin},
		{"RBAC: a planner may read KRM objects but not Queues", (*server).rbac},
	} {
		t.Run(step.name, func(t *testing.T) { step.run(s, t) })
	}
}

// seed creates the node pools, the department and the project the steps use.
func (s *server) seed(t *testing.T) {
	create(t, s.dyn, nodePools, obj("kai.resources/v1alpha1", "NodePool", "default", map[string]any{}))
	create(t, s.dyn, nodePools, obj("kai.resources/v1alpha1", "NodePool", "h100", map[string]any{
		"labelKey": "example.com/gpu-class", "labelValue": "h100",
	}))
	create(t, s.dyn, departments, obj("kai.resources/v1alpha1", "Department", "research", map[string]any{
		"queues": []any{map[string]any{
			"name": "research-h100", "nodepool": "h100",
			"resources": map[string]any{
				"gpu":    map[string]any{"deserved": 4, "limit": -1, "overQuotaWeight": 2},
				"cpu":    map[string]any{"deserved": 64000},
				"memory": map[string]any{"deserved": 512000},
			},
		}},
	}))
	create(t, s.dyn, projects, obj("kai.resources/v1alpha1", "Project", "team-a", map[string]any{
		"parent": "research", "namespace": "team-a", "defaultNodePools": []any{"h100"},
		"queues": []any{map[string]any{
			"name": "team-a-h100", "nodepool": "h100", "priority": 100,
			"resources": map[string]any{"gpu": map[string]any{"deserved": 0.5, "limit": 2}},
		}},
	}))
}

// deptPatch tests research's first gpu guarantee for test and replaces it
// with replace.
func (s *server) deptPatch(test, replace any, opts metav1.PatchOptions) (*unstructured.Unstructured, error) {
	p := `[{"op":"test","path":"/spec/queues/0/resources/gpu/deserved","value":` + jsonNum(test) + `},` +
		`{"op":"replace","path":"/spec/queues/0/resources/gpu/deserved","value":` + jsonNum(replace) + `}]`
	return s.dyn.Resource(departments).Patch(s.ctx, "research", types.JSONPatchType, []byte(p), opts)
}

func (s *server) jsonPatch(t *testing.T) {
	got, err := s.deptPatch(4, 6, metav1.PatchOptions{FieldManager: "krmplan"})
	if err != nil {
		t.Fatalf("patch with a passing test op: %v", err)
	}
	if v := gpuDeserved(t, got); v != int64(6) {
		t.Errorf("deserved after patch = %v (%T), want 6", v, v)
	}
	if got.GetGeneration() != 2 {
		t.Errorf("generation %d, want 2", got.GetGeneration())
	}
}

func (s *server) staleTestRefused(t *testing.T) {
	_, err := s.deptPatch(4, 9, metav1.PatchOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("stale test op: err = %v, want Invalid (422)", err)
	}
	cur, err := s.dyn.Resource(departments).Get(s.ctx, "research", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v := gpuDeserved(t, cur); v != int64(6) {
		t.Errorf("deserved after the refused patch = %v, want 6 (unchanged)", v)
	}
}

func (s *server) dryRunPersistsNothing(t *testing.T) {
	before, err := s.dyn.Resource(departments).Get(s.ctx, "research", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.deptPatch(6, 9.5, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatalf("dry-run patch: %v", err)
	}
	if v := gpuDeserved(t, got); v != 9.5 {
		t.Errorf("dry-run result deserved = %v, want 9.5", v)
	}
	after, err := s.dyn.Resource(departments).Get(s.ctx, "research", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.GetResourceVersion() != before.GetResourceVersion() || gpuDeserved(t, after) != int64(6) {
		t.Errorf("dry run changed the object: rv %s -> %s, deserved %v", before.GetResourceVersion(), after.GetResourceVersion(), gpuDeserved(t, after))
	}
	if _, err := s.deptPatch(4, 1, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}); !apierrors.IsInvalid(err) {
		t.Errorf("dry-run with a stale test op: err = %v, want Invalid", err)
	}
}

func (s *server) schemaRefusesString(t *testing.T) {
	p := `[{"op":"replace","path":"/spec/queues/0/resources/gpu/deserved","value":"lots"}]`
	_, err := s.dyn.Resource(departments).Patch(s.ctx, "research", types.JSONPatchType, []byte(p), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
	if !apierrors.IsInvalid(err) {
		t.Errorf("err = %v, want Invalid", err)
	}
}

func (s *server) labelPairImmutable(t *testing.T) {
	p := `[{"op":"replace","path":"/spec/labelValue","value":"h200"}]`
	_, err := s.dyn.Resource(nodePools).Patch(s.ctx, "h100", types.JSONPatchType, []byte(p), metav1.PatchOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("changing labelValue: err = %v, want Invalid", err)
	}
	if !strings.Contains(err.Error(), "immutable") {
		t.Errorf("refusal %q does not name the rule", err)
	}
	p = `[{"op":"add","path":"/spec/labelKey","value":"example.com/x"}]`
	if _, err := s.dyn.Resource(nodePools).Patch(s.ctx, "default", types.JSONPatchType, []byte(p), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}); !apierrors.IsInvalid(err) {
		t.Errorf("adding a label key to default: err = %v, want Invalid", err)
	}
	cur, err := s.dyn.Resource(nodePools).Get(s.ctx, "h100", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v := nested(t, cur, "spec", "labelValue"); v != "h100" {
		t.Errorf("labelValue = %v after refusal", v)
	}
}

func (s *server) projectRequiresQueues(t *testing.T) {
	p := `[{"op":"remove","path":"/spec/queues"}]`
	_, err := s.dyn.Resource(projects).Patch(s.ctx, "team-a", types.JSONPatchType, []byte(p), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
	if !apierrors.IsInvalid(err) {
		t.Errorf("err = %v, want Invalid", err)
	}
}

func (s *server) singletons(t *testing.T) {
	create(t, s.dyn, mncs, obj("kai.resources/v1alpha1", "ManagedNodesConfig", "kai-managed-nodes-config", map[string]any{
		"inclusion_criteria": map[string]any{"nodeSelectorTerms": []any{map[string]any{
			"matchExpressions": []any{map[string]any{"key": "example.com/gpu-class", "operator": "In", "values": []any{"h100"}}},
		}}},
	}))
	got := create(t, s.dyn, krmConfigs, obj("kai.resources/v1alpha1", "KRMConfig", "krm-config", map[string]any{
		"global":            map[string]any{"namespaceProjectLabelKey": "kai/project", "somethingNew": map[string]any{"x": int64(1)}},
		"projectController": map[string]any{"features": map[string]any{"createNamespaces": false}},
	}))
	if v := nested(t, got, "spec", "global", "namespaceProjectLabelKey"); v != "kai/project" {
		t.Errorf("namespaceProjectLabelKey = %v", v)
	}
	if _, ok, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", "global", "somethingNew", "x"); !ok {
		t.Errorf("unknown KRMConfig field was pruned: %v", got.Object["spec"])
	}
}

func (s *server) queueStatus(t *testing.T) {
	q := create(t, s.dyn, queues, obj("scheduling.run.ai/v2", "Queue", "research-h100", map[string]any{
		"priority": 100,
		"resources": map[string]any{
			"gpu": map[string]any{"quota": 6, "limit": -1, "overQuotaWeight": 2},
			"cpu": map[string]any{"quota": 64000, "limit": -1, "overQuotaWeight": 1},
		},
	}))
	q.Object["status"] = map[string]any{
		"allocated":               map[string]any{"nvidia.com/gpu": "3", "cpu": "1500m", "memory": int64(2000000000)},
		"allocatedNonPreemptible": map[string]any{"nvidia.com/gpu": "1"},
	}
	got, err := s.dyn.Resource(queues).UpdateStatus(s.ctx, q, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("updating the Queue status: %v", err)
	}
	if v := nested(t, got, "status", "allocated", "cpu"); v != "1500m" {
		t.Errorf("status.allocated.cpu = %v", v)
	}
	q = got.DeepCopy()
	q.Object["status"] = map[string]any{"allocated": map[string]any{"nvidia.com/gpu": "three"}}
	if _, err := s.dyn.Resource(queues).UpdateStatus(s.ctx, q, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("a non-quantity in status.allocated: err = %v, want Invalid", err)
	}
}

func (s *server) kubectlAdmin(t *testing.T) {
	if s.env.Kubectl == "" {
		t.Fatalf("no kubectl in %s", s.env.AssetsDir)
	}
	out := kubectl(t, s.env, s.env.Kubeconfig, "config", "current-context")
	if strings.TrimSpace(out) != AdminContext {
		t.Errorf("current context %q, want %q", out, AdminContext)
	}
	out = kubectl(t, s.env, s.env.Kubeconfig, "get", "departments.kai.resources", "-o", "name")
	if strings.TrimSpace(out) != "department.kai.resources/research" {
		t.Errorf("kubectl get departments: %q", out)
	}
	out = kubectl(t, s.env, s.env.Kubeconfig, "--context", AdminContext, "patch", "departments.kai.resources", "research",
		"--type=json", "--dry-run=server", "--field-manager=krmplan", "-o", "jsonpath={.spec.queues[0].resources.gpu.deserved}",
		"-p", `[{"op":"test","path":"/spec/queues/0/resources/gpu/deserved","value":6},{"op":"replace","path":"/spec/queues/0/resources/gpu/deserved","value":7}]`)
	if strings.TrimSpace(out) != "7" {
		t.Errorf("kubectl patch --dry-run=server printed %q, want 7", out)
	}
	cmd := exec.Command(s.env.Kubectl, "patch", "departments.kai.resources", "research", "--type=json",
		"-p", `[{"op":"test","path":"/spec/queues/0/resources/gpu/deserved","value":4},{"op":"replace","path":"/spec/queues/0/resources/gpu/deserved","value":7}]`)
	cmd.Env = s.env.Environ(s.env.Kubeconfig)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "invalid") {
		t.Errorf("kubectl patch with a stale test op: err %v, output %q; want a refusal", err, out)
	}
}

func (s *server) rbac(t *testing.T) {
	err := s.env.BindClusterRole(s.ctx, "krmplan-test-krm-reader",
		rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "krmplan:planners"},
		rbacv1.PolicyRule{APIGroups: []string{"kai.resources"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}})
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.env.AddUser("alice", "krmplan:planners")
	if err != nil {
		t.Fatal(err)
	}
	udyn, err := dynamic.NewForConfig(u.Config)
	if err != nil {
		t.Fatal(err)
	}
	list, err := udyn.Resource(departments).List(s.ctx, metav1.ListOptions{Limit: 10})
	if err != nil {
		t.Fatalf("planner listing departments: %v", err)
	}
	if len(list.Items) != 1 {
		t.Errorf("planner sees %d departments, want 1", len(list.Items))
	}
	if _, err := udyn.Resource(queues).List(s.ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("planner listing queues: err = %v, want Forbidden", err)
	}
	p := `[{"op":"replace","path":"/spec/queues/0/resources/gpu/deserved","value":1}]`
	if _, err := udyn.Resource(departments).Patch(s.ctx, "research", types.JSONPatchType, []byte(p), metav1.PatchOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("planner patching: err = %v, want Forbidden", err)
	}
	if s.env.Kubectl != "" {
		cmd := exec.Command(s.env.Kubectl, "--kubeconfig", u.Kubeconfig, "auth", "can-i", "list", "queues.scheduling.run.ai")
		out, _ := cmd.Output()
		if strings.TrimSpace(string(out)) != "no" {
			t.Errorf("kubectl auth can-i list queues as the planner: %q, want no", out)
		}
	}
}

func kubectl(t *testing.T, env *Env, kubeconfig string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, env.Kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("kubectl %s: %v: %s", strings.Join(args, " "), err, ee.Stderr)
		}
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

func jsonNum(v any) string {
	switch v := v.(type) {
	case int:
		return strconv.Itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	panic("jsonNum: not a number")
}

func TestRepoRootAndAssets(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root + "/testdata/crds"); err != nil {
		t.Errorf("repository root %s has no testdata/crds: %v", root, err)
	}
	t.Setenv("KUBEBUILDER_ASSETS", "")
	if _, err := AssetsDir(); err != ErrNoAssets {
		t.Errorf("AssetsDir without KUBEBUILDER_ASSETS: %v, want ErrNoAssets", err)
	}
	t.Setenv("KUBEBUILDER_ASSETS", t.TempDir())
	if _, err := AssetsDir(); err == nil || err == ErrNoAssets {
		t.Errorf("AssetsDir with an empty folder: %v, want an error naming the missing binary", err)
	}
}
