package live

// Unit tests of the live reader's conversions and paging, without a
// server; internal/integration reads a real kube-apiserver.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/krmplan/krmplan/snapshot"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// decoded returns JSON as client-go's unstructured decoder gives it
// (integers as int64, other numbers as float64).
func decoded(t *testing.T, js string) *unstructured.Unstructured {
	t.Helper()
	var o unstructured.Unstructured
	if err := o.UnmarshalJSON([]byte(js)); err != nil {
		t.Fatal(err)
	}
	return &o
}

func TestProjectOfKeepsExactNumbersAndGitOpsKeys(t *testing.T) {
	o := decoded(t, `{"apiVersion":"kai.resources/v1alpha1","kind":"Project","metadata":{"name":"a","uid":"u-1","resourceVersion":"42",
		"labels":{"argocd.argoproj.io/instance":"tenancy","team":"x"},"annotations":{"argocd.argoproj.io/tracking-id":"t:kai.resources/Project:/a","note":"y"},
		"managedFields":[{"manager":"kubectl"}]},
		"spec":{"parent":"d","namespace":"ns-a","defaultNodePools":["h100"],"somethingNew":true,
		"queues":[{"name":"a-q","nodepool":"h100","priority":50,"resources":{"gpu":{"deserved":0.1,"limit":-1,"overQuotaWeight":2},"memory":{"deserved":1e17}}}]},
		"status":{"phase":"Ready"}}`)
	p, err := projectOf(o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p)
	want := `{"metadata":{"name":"a","uid":"u-1","resourceVersion":"42","gitops":{"argocd.argoproj.io/instance":"tenancy","argocd.argoproj.io/tracking-id":"t:kai.resources/Project:/a"}},` +
		`"spec":{"namespace":"ns-a","parent":"d","defaultNodePools":["h100"],"queues":[{"name":"a-q","nodepool":"h100","priority":50,` +
		`"resources":{"gpu":{"deserved":0.1,"limit":-1,"overQuotaWeight":2},"memory":{"deserved":100000000000000000}}}]}}`
	if string(b) != want {
		t.Errorf("project:\n got %s\nwant %s", b, want)
	}
	// The range is the one every reader keeps (quota.Parse): a live object
	// with a number of 10^18 or more is refused, naming it.
	big := decoded(t, `{"kind":"Department","metadata":{"name":"d"},"spec":{"queues":[{"name":"q","nodepool":"p","resources":{"memory":{"deserved":1e21}}}]}}`)
	if _, err := departmentOf(big); err == nil || err.Error() != `Department d: spec: "1e+21" is too large: quota numbers must be below 10^18 in magnitude` {
		t.Errorf("err = %v, want the range error naming Department d", err)
	}
	// 0.1 + 0.2 must stay exact after the float64 trip through client-go.
	o2 := decoded(t, `{"kind":"Department","metadata":{"name":"d"},"spec":{"queues":[{"name":"q","nodepool":"p","resources":{"gpu":{"deserved":0.2}}}]}}`)
	d, err := departmentOf(o2)
	if err != nil {
		t.Fatal(err)
	}
	if sum := p.Spec.Queues[0].Resources.GPU.Deserved.Add(*d.Spec.Queues[0].Resources.GPU.Deserved); sum.String() != "0.3" {
		t.Errorf("0.1 + 0.2 = %s", sum)
	}
	if d.Spec.Queues[0].Resources.CPU != nil {
		t.Errorf("an omitted cpu block was filled in: %+v", d.Spec.Queues[0].Resources.CPU)
	}
}

func TestSpecThatIsNotTheShapeIsAnErrorNamingTheObject(t *testing.T) {
	o := decoded(t, `{"kind":"Department","metadata":{"name":"d"},"spec":{"queues":[{"name":"q","resources":{"gpu":{"deserved":"4"}}}]}}`)
	_, err := departmentOf(o)
	if err == nil || err.Error() != `Department d: spec: the string "4": write the number unquoted` {
		t.Errorf("err = %v, want an error naming Department d", err)
	}
}

func TestLiveQueueOf(t *testing.T) {
	o := decoded(t, `{"kind":"Queue","metadata":{"name":"w","creationTimestamp":"2026-01-31T13:00:00+01:00",
		"labels":{"project":"w","kai.resources/resource-manual-override":"True","example.com/hands-off":"true"}},"spec":{"parentQueue":"p","priority":100,
		"resources":{"gpu":{"quota":2.5,"limit":-1,"overQuotaWeight":1},"cpu":{"quota":64000}}},
		"status":{"allocated":{"nvidia.com/gpu":3,"cpu":"1500m","memory":"3Gi"},"allocatedNonPreemptible":{"nvidia.com/gpu":"1"},"requested":{"cpu":"9"}}}`)
	q, err := liveQueueOf(o, []string{"kai.resources/resource-manual-override", "example.com/other"})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%s parent=%s gpu=%s/%s/%s cpu=%s/%v mem=%v alloc=%v np=%v requested=%v created=%s labels=%v", q.Name, q.ParentQueue,
		q.Resources.GPU.Deserved, q.Resources.GPU.Limit, q.Resources.GPU.OverQuotaWeight, q.Resources.CPU.Deserved, q.Resources.CPU.Limit,
		q.Resources.Memory, q.Allocated, q.AllocatedNonPreemptible, q.Requested, q.CreationTimestamp, q.Labels)
	want := "w parent=p gpu=2.5/-1/1 cpu=64000/<nil> mem=<nil> alloc=map[cpu:1500m memory:3Gi nvidia.com/gpu:3] np=map[nvidia.com/gpu:1] " +
		"requested=map[cpu:9] created=2026-01-31T12:00:00Z labels=map[kai.resources/resource-manual-override:True]"
	if got != want {
		t.Errorf("queue:\n got %s\nwant %s", got, want)
	}
	bad := decoded(t, `{"kind":"Queue","metadata":{"name":"b"},"spec":{"resources":{"gpu":{"quota":"lots"}}}}`)
	if _, err := liveQueueOf(bad, nil); err == nil || err.Error() != `Queue b: spec.resources.gpu.quota: lots (string) is not a number` {
		t.Errorf("err = %v", err)
	}
}

func TestNodeOf(t *testing.T) {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"k": "v"}},
		Spec: corev1.NodeSpec{Unschedulable: true},
		Status: corev1.NodeStatus{
			Capacity:    corev1.ResourceList{GPUResourceName: resource.MustParse("8"), "cpu": resource.MustParse("64")},
			Allocatable: corev1.ResourceList{GPUResourceName: resource.MustParse("7"), "cpu": resource.MustParse("63500m"), "memory": resource.MustParse("500Gi")},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionTrue}, {Type: corev1.NodeReady, Status: corev1.ConditionUnknown},
				{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse}, {Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionUnknown}},
		}}
	got, err := nodeOf(n)
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprintf("%s %v cap=%s alloc=%s %v %v ready=%v cordoned=%v pressure=%v", got.Name, got.Labels, got.GPUCapacity, got.GPUAllocatable,
		got.Capacity, got.Allocatable, got.Ready, got.Cordoned, got.Pressure); s !=
		"n1 map[k:v] cap=8 alloc=7 map[cpu:64 nvidia.com/gpu:8] map[cpu:63500m memory:500Gi nvidia.com/gpu:7] ready=false cordoned=true pressure=map[MemoryPressure:True NetworkUnavailable:Unknown]" {
		t.Errorf("node = %s", s)
	}
	cpu, err := nodeOf(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "c"}})
	if err != nil || !cpu.GPUCapacity.IsZero() || cpu.Capacity != nil || cpu.Allocatable != nil || cpu.Labels != nil || cpu.Ready || cpu.Pressure != nil {
		t.Errorf("a node without cards = %+v, %v", cpu, err)
	}
}

func TestKRMConfigOf(t *testing.T) {
	o := decoded(t, `{"kind":"KRMConfig","metadata":{"name":"krm-config"},"spec":{"global":{"namespaceProjectLabelKey":"example.com/project"},
		"projectController":{"args":{"projectNamePrefix":"team","resourceManualOverrideLabelKey":"example.com/hands-off"},
		"features":{"createNamespaces":false},"extraArgs":["--project-name-prefix=ml"]}}}`)
	c := krmConfigOf(o)
	if c.LabelKey() != "example.com/project" || c.NamePrefix() != "ml" || c.OverrideKey() != "example.com/hands-off" || c.CreatesNamespaces() {
		t.Errorf("KRMConfig = %+v", c)
	}
}

func TestGitOpsOf(t *testing.T) {
	if got := GitOpsOf(map[string]string{"app": "x"}, map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}"}); got != nil {
		t.Errorf("no keys: %v", got)
	}
	got := GitOpsOf(map[string]string{"kustomize.toolkit.fluxcd.io/name": "tenancy", "helm.toolkit.fluxcd.io/name": "krm"},
		map[string]string{"kustomize.toolkit.fluxcd.io/name": "from-annotation"})
	want := map[string]string{"kustomize.toolkit.fluxcd.io/name": "from-annotation", "helm.toolkit.fluxcd.io/name": "krm"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("GitOpsOf = %v, want %v", got, want)
	}
}

func TestListPages(t *testing.T) {
	pages := map[string][]int{"": {1, 2}, "c1": {3, 4}, "c2": {5}}
	next := map[string]string{"": "c1", "c1": "c2", "c2": ""}
	var calls []metav1.ListOptions
	expireOnce := true
	got, err := listPages(context.Background(), 2, func(_ context.Context, o metav1.ListOptions) ([]int, string, error) {
		calls = append(calls, o)
		if o.Continue == "c2" && expireOnce {
			expireOnce = false
			return nil, "", apierrors.NewResourceExpired("continue token expired")
		}
		return pages[o.Continue], next[o.Continue], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []int{1, 2, 3, 4, 5}) {
		t.Errorf("items %v, want 1..5 once each", got)
	}
	var conts []string
	for _, c := range calls {
		if c.Limit != 2 {
			t.Errorf("a request without Limit 2: %+v", c)
		}
		conts = append(conts, c.Continue)
	}
	if !reflect.DeepEqual(conts, []string{"", "c1", "c2", "", "c1", "c2"}) {
		t.Errorf("continue tokens %q: want a restart after the expired token", conts)
	}
	boom := errors.New("boom")
	if _, err := listPages(context.Background(), 2, func(context.Context, metav1.ListOptions) ([]int, string, error) { return nil, "", boom }); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}

func TestNotReadReasons(t *testing.T) {
	r := &ClusterReader{Context: "prod", Server: "https://k"}
	gr := schema.GroupResource{Group: "scheduling.run.ai", Resource: "queues"}
	nr, err := r.notRead(context.Background(), nil, snapshot.SourceQueues, "queues.scheduling.run.ai", apierrors.NewForbidden(gr, "", errors.New(`User "u" cannot list`)))
	if err != nil || len(nr) != 1 || nr[0].Reason != `forbidden: queues.scheduling.run.ai is forbidden: User "u" cannot list` {
		t.Errorf("forbidden: %v %v", nr, err)
	}
	nr, err = r.notRead(context.Background(), nil, snapshot.SourceNodes, "nodes", apierrors.NewInternalError(errors.New("etcd down")))
	if err == nil || nr != nil || err.Error() != "reading nodes from context prod (https://k): Internal error occurred: etcd down" {
		t.Errorf("internal error: %v %v, want an error naming the resource and the cluster", nr, err)
	}
}
