package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/krmplan/krmplan/internal/testapiserver"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/planfile"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/snapshot/live"
	"github.com/krmplan/krmplan/tenancy"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func TestMain(m *testing.M) { testapiserver.Main(m) }

// fx is the fixture of the live tests: the control plane, clients, the
// built krmplan binary and a work folder for its files.
type fx struct {
	t      *testing.T
	env    *testapiserver.Env
	dyn    dynamic.Interface
	cs     kubernetes.Interface
	bin    string
	dir    string
	root   string
	server string // the admin kubeconfig's server URL
}

func newFixture(t *testing.T) *fx {
	env := testapiserver.Need(t)
	root, err := testapiserver.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	f := &fx{t: t, env: env, root: root, dir: t.TempDir()}
	if f.dyn, err = dynamic.NewForConfig(env.Config); err != nil {
		t.Fatal(err)
	}
	if f.cs, err = kubernetes.NewForConfig(env.Config); err != nil {
		t.Fatal(err)
	}
	kc, err := clientcmd.LoadFromFile(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	f.server = kc.Clusters[kc.Contexts[testapiserver.AdminContext].Cluster].Server
	// The CLI is driven as a user runs it: the built binary, in a child
	// process, with the kubeconfig of the environment.
	f.bin = filepath.Join(t.TempDir(), "krmplan")
	build := exec.Command("go", "build", "-o", f.bin, "./cmd/krmplan")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building krmplan: %v\n%s", err, out)
	}
	return f
}

// result is what one krmplan (or sh) run printed and its exit code.
type result struct {
	stdout, stderr string
	code           int
}

// environ is the environment of a child: the kubeconfig, the built kubectl
// first on PATH, a fixed clock, no colour, and a page wide enough that no
// finding wraps (the tests match each message whole, on one line).
func (f *fx) environ(kubeconfig string) []string {
	return append(f.env.Environ(kubeconfig), "SOURCE_DATE_EPOCH=1767225600", "NO_COLOR=1", "COLUMNS=10000")
}

// krmplan runs the binary in the work folder with the admin kubeconfig.
func (f *fx) krmplan(args ...string) result {
	f.t.Helper()
	return f.exec(f.environ(f.env.Kubeconfig), f.bin, args...)
}

func (f *fx) exec(env []string, name string, args ...string) result {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = f.dir, env
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := result{stdout: so.String(), stderr: se.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		f.t.Fatalf("running %s %s: %v", name, strings.Join(args, " "), err)
	}
	return r
}

// must fails the test unless the run exited with code.
func (f *fx) must(r result, code int, what string) result {
	f.t.Helper()
	if r.code != code {
		f.t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", what, r.code, code, r.stdout, r.stderr)
	}
	return r
}

func (f *fx) write(name, content string) string {
	f.t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f *fx) read(name string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, name))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

func (f *fx) state(name string) *snapshot.State {
	f.t.Helper()
	s, err := snapshot.Load(filepath.Join(f.dir, name))
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

func (f *fx) plan(name string) *planner.Plan {
	f.t.Helper()
	p, err := planfile.Decode(name, []byte(f.read(name)))
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

// gvrOf is the resource of a KRM kind or of KAI's Queue, by kind name.
func gvrOf(kind string) (schema.GroupVersionResource, bool) {
	if kind == "Queue" {
		return live.GVRQueue, true
	}
	k, err := tenancy.ParseKind(kind)
	return live.KindGVR(k), err == nil
}

// createYAML creates every document of a YAML file (KRM kinds only).
func (f *fx) createYAML(path string) {
	f.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		f.t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	for {
		var m map[string]any
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return
		} else if err != nil {
			f.t.Fatalf("%s: %v", path, err)
		}
		if len(m) == 0 {
			continue
		}
		o := &unstructured.Unstructured{Object: m}
		gvr, ok := gvrOf(o.GetKind())
		if !ok {
			f.t.Fatalf("%s: no resource for kind %s", path, o.GetKind())
		}
		f.create(gvr, o)
	}
}

func (f *fx) create(gvr schema.GroupVersionResource, o *unstructured.Unstructured) *unstructured.Unstructured {
	f.t.Helper()
	got, err := f.dyn.Resource(gvr).Create(context.Background(), o, metav1.CreateOptions{})
	if err != nil {
		f.t.Fatalf("creating %s %s: %v", gvr.Resource, o.GetName(), err)
	}
	return got
}

func (f *fx) get(gvr schema.GroupVersionResource, name string) *unstructured.Unstructured {
	f.t.Helper()
	o, err := f.dyn.Resource(gvr).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return o
}

// mergePatch changes an object as someone other than krmplan would.
func (f *fx) mergePatch(gvr schema.GroupVersionResource, name, patch string) {
	f.t.Helper()
	if _, err := f.dyn.Resource(gvr).Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: "someone-else"}); err != nil {
		f.t.Fatalf("patching %s %s: %v", gvr.Resource, name, err)
	}
}

// setQueue0 replaces spec.queues[0] field path (a JSON pointer below the
// queue) of a Department or Project, as another person would.
func (f *fx) setQueue0(gvr schema.GroupVersionResource, name, path string, value any) {
	f.t.Helper()
	b, _ := json.Marshal([]map[string]any{{"op": "replace", "path": "/spec/queues/0" + path, "value": value}})
	if _, err := f.dyn.Resource(gvr).Patch(context.Background(), name, types.JSONPatchType, b, metav1.PatchOptions{FieldManager: "someone-else"}); err != nil {
		f.t.Fatalf("patching %s %s: %v", gvr.Resource, name, err)
	}
}

// queue0 returns spec.queues[0].resources.gpu.<field> of an object.
func (f *fx) queue0(gvr schema.GroupVersionResource, name, field string) any {
	f.t.Helper()
	o := f.get(gvr, name)
	qs, _, _ := unstructured.NestedSlice(o.Object, "spec", "queues")
	if len(qs) == 0 {
		f.t.Fatalf("%s %s has no queue", gvr.Resource, name)
	}
	v, _, _ := unstructured.NestedFieldNoCopy(qs[0].(map[string]any), "resources", "gpu", field)
	return v
}

func (f *fx) rv(gvr schema.GroupVersionResource, name string) string {
	f.t.Helper()
	return f.get(gvr, name).GetResourceVersion()
}

// node creates a node with labels and nvidia.com/gpu capacity and
// allocatable in its status (as the kubelet and the device plugin would).
func (f *fx) node(name string, labels map[string]string, capacity, allocatable string, ready, cordoned bool) {
	f.t.Helper()
	status := corev1.ConditionTrue
	if !ready {
		status = corev1.ConditionFalse
	}
	st := corev1.NodeStatus{
		Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64"), corev1.ResourceMemory: resource.MustParse("512Gi")},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("63"), corev1.ResourceMemory: resource.MustParse("500Gi")},
		Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status, Reason: "Test", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}},
	}
	if capacity != "" {
		st.Capacity[live.GPUResourceName] = resource.MustParse(capacity)
		st.Allocatable[live.GPUResourceName] = resource.MustParse(allocatable)
	}
	f.nodeWith(name, labels, cordoned, st)
}

// nodeWith creates a node with labels and the status given (capacity,
// allocatable, conditions), as the kubelet would write it.
func (f *fx) nodeWith(name string, labels map[string]string, cordoned bool, st corev1.NodeStatus) {
	f.t.Helper()
	ctx := context.Background()
	n, err := f.cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.NodeSpec{Unschedulable: cordoned}}, metav1.CreateOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	n.Status = st
	if _, err := f.cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fx) namespace(name string, labels map[string]string) {
	f.t.Helper()
	if _, err := f.cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// queue creates a KAI Queue with gpu quota/limit/overQuotaWeight, cpu and
// memory unlimited, and the scheduler's status.
func (f *fx) queue(name, parent string, gpu [3]any, allocated, nonPreemptible map[string]any) *unstructured.Unstructured {
	f.t.Helper()
	return f.queueWith(name, parent, gpu, map[string]any{"allocated": allocated, "allocatedNonPreemptible": nonPreemptible})
}

// queueWith is queue with the status fields given (nil ones left out).
func (f *fx) queueWith(name, parent string, gpu [3]any, status map[string]any) *unstructured.Unstructured {
	f.t.Helper()
	unl := map[string]any{"quota": -1, "limit": -1, "overQuotaWeight": 1}
	spec := map[string]any{"resources": map[string]any{
		"gpu": map[string]any{"quota": gpu[0], "limit": gpu[1], "overQuotaWeight": gpu[2]},
		"cpu": unl, "memory": unl,
	}}
	if parent != "" {
		spec["parentQueue"] = parent
	}
	q := f.create(live.GVRQueue, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": map[string]any{"name": name}, "spec": spec}})
	st := map[string]any{}
	for k, v := range status {
		if m, ok := v.(map[string]any); ok && m != nil {
			st[k] = m
		}
	}
	q.Object["status"] = st
	got, err := f.dyn.Resource(live.GVRQueue).UpdateStatus(context.Background(), q, metav1.UpdateOptions{})
	if err != nil {
		f.t.Fatalf("Queue %s status: %v", name, err)
	}
	return got
}

// deleteCRD deletes a CRD and waits until the server no longer serves it.
func (f *fx) deleteCRD(name string, gvr schema.GroupVersionResource) {
	f.t.Helper()
	ctx := context.Background()
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if err := f.dyn.Resource(crds).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		f.t.Fatalf("deleting CRD %s: %v", name, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := f.dyn.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1})
		if apierrors.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("CRD %s still served 30 s after its deletion (last list: %v)", name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// findings returns the finding lines ("Error: …", "Warning: …", "Note: …")
// of a plan's text output.
func findings(out string) []string {
	var fs []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Error: ") || strings.HasPrefix(l, "Warning: ") || strings.HasPrefix(l, "Note: ") {
			fs = append(fs, l)
		}
	}
	return fs
}

// hasLine reports whether text has the exact line.
func hasLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

func (f *fx) wantLine(what, text, line string) {
	f.t.Helper()
	if !hasLine(text, line) {
		f.t.Errorf("%s: no line\n  %s\nin:\n%s", what, line, text)
	}
}

func (f *fx) wantEqual(what string, got, want any) {
	f.t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		f.t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// in returns the fixture for a subtest: the same cluster, binary and work
// folder, failing t.
func (f *fx) in(t *testing.T) *fx {
	c := *f
	c.t = t
	return &c
}

// deleteAtCleanup deletes objs (those that exist) when the test ends: the
// tests share one API server, and TestLive lists the whole cluster.
func (f *fx) deleteAtCleanup(objs []tenancy.ObjectAddr) {
	f.t.Cleanup(func() {
		for _, a := range objs {
			_ = f.dyn.Resource(live.KindGVR(a.Kind)).Delete(context.Background(), a.Name, metav1.DeleteOptions{})
		}
	})
}

// wantAbsent fails the test for each of the work folder's files names
// that exists: a refused command writes nothing.
func (f *fx) wantAbsent(why string, names ...string) {
	f.t.Helper()
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(f.dir, name)); !errors.Is(err, fs.ErrNotExist) {
			f.t.Errorf("%s, and %s: %v", why, name, err)
		}
	}
}
