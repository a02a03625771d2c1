package tenancy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/quota"
)

func num(s string) *quota.Value {
	v := quota.MustParse(s)
	return &v
}

// small is a tenancy of one pool, one department and two projects.
func small() *Tenancy {
	return &Tenancy{
		NodePools: []NodePool{{Metadata: Meta{Name: "rtx"}, Spec: NodePoolSpec{LabelKey: "gpu", LabelValue: "rtx"}}},
		Departments: []Department{{Metadata: Meta{Name: "ml"}, Spec: DepartmentSpec{Queues: []Queue{
			{Name: "ml-rtx", NodePool: "rtx", Resources: Resources{GPU: &Resource{Deserved: num("4"), Limit: num("-1")}}}}}}},
		Projects: []Project{
			{Metadata: Meta{Name: "a"}, Spec: ProjectSpec{Parent: "ml", Queues: []Queue{
				{Name: "a-rtx", NodePool: "rtx", Resources: Resources{GPU: &Resource{Deserved: num("3")}}}}}},
			{Metadata: Meta{Name: "c"}, Spec: ProjectSpec{Parent: "ml", Queues: []Queue{
				{Name: "c-rtx", NodePool: "rtx", Resources: Resources{GPU: &Resource{Deserved: num("1")}}}}}},
		},
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var gpuDeserved = QuotaFieldOf(quota.GPU, Deserved)

func TestApplyCopiesOnWrite(t *testing.T) {
	before := small()
	was := jsonOf(t, before)
	a := KindProject.Object("a")
	newProject := KindProject.Object("b").Queue(0)
	changes := []Change{
		{Action: ActionUpdate, Field: a.Queue(0).Field(gpuDeserved), Before: Number(quota.MustParse("3")), After: Number(quota.MustParse("2"))},
		{Action: ActionUpdate, Field: a.Field(FieldNamespace), Before: Null, After: String("a-ns")},
		{Action: ActionCreate, Field: a.Queue(1).Field(FieldQueueName), Before: Null, After: String("a-cpu"), NewQueue: true},
		{Action: ActionCreate, Field: a.Queue(1).Field(FieldQueueNodePool), Before: Null, After: String("rtx"), NewQueue: true},
		{Action: ActionCreate, Field: a.Queue(1).Field(QuotaFieldOf(quota.CPU, Limit)), Before: Null, After: Number(quota.MustParse("-1")), NewQueue: true},
		{Action: ActionCreate, Field: newProject.Object.Field(FieldParent), Before: Null, After: String("ml")},
		{Action: ActionCreate, Field: newProject.Field(FieldQueueName), Before: Null, After: String("b-rtx")},
		{Action: ActionCreate, Field: newProject.Field(FieldPriority), Before: Null, After: Int(50)},
	}
	after, err := Apply(before, changes)
	if err != nil {
		t.Fatal(err)
	}
	if jsonOf(t, before) != was {
		t.Fatal("Apply changed its input")
	}
	if len(after.Projects) != 3 || after.Projects[1].Metadata.Name != "b" {
		t.Fatalf("the new project is not in its place by name: %s", jsonOf(t, after.Projects))
	}
	want := `{"namespace":"a-ns","parent":"ml","queues":[{"name":"a-rtx","nodepool":"rtx","resources":{"gpu":{"deserved":2}}},` +
		`{"name":"a-cpu","nodepool":"rtx","resources":{"cpu":{"limit":-1}}}]}`
	if got := jsonOf(t, after.Projects[0].Spec); got != want {
		t.Errorf("project a:\n got %s\nwant %s", got, want)
	}
	if got := jsonOf(t, after.Projects[1].Spec); got != `{"parent":"ml","queues":[{"name":"b-rtx","nodepool":"","priority":50,"resources":{}}]}` {
		t.Errorf("project b: %s", got)
	}
	if &after.Projects[2].Spec.Queues[0] != &before.Projects[1].Spec.Queues[0] || &after.Departments[0].Spec.Queues[0] != &before.Departments[0].Spec.Queues[0] {
		t.Error("an untouched object does not share its queues with the input")
	}
	x := NewIndex(after)
	if v, ok := x.Value(a.Queue(0).Field(gpuDeserved)); !ok || !v.Equal(Number(quota.MustParse("2"))) {
		t.Errorf("Value = %v %v", v, ok)
	}
}

var misfits = []struct {
	c    Change
	want string
}{
	{Change{Action: ActionUpdate, Field: KindProject.Object("x").Field(FieldParent), Before: String("ml"), After: String("y")},
		"change 1 (update Project/x parent): Project/x does not exist"},
	{Change{Action: ActionUpdate, Field: KindProject.Object("a").Queue(1).Field(gpuDeserved), Before: Null, After: Number(quota.Zero)},
		"change 1 (update Project/a queue 1 gpu.deserved): Project/a has 1 queues, so it has no queue 1"},
	{Change{Action: ActionUpdate, Field: KindProject.Object("a").Queue(0).Field(gpuDeserved), Before: Number(quota.MustParse("4")), After: Number(quota.Zero)},
		"change 1 (update Project/a queue 0 gpu.deserved): it says the value was 4, the tenancy holds 3"},
	{Change{Action: ActionCreate, Field: KindProject.Object("a").Field(FieldParent), Before: Null, After: String("ml")},
		"change 1 (create Project/a parent): it creates Project/a, which exists"},
	{Change{Action: ActionUpdate, Field: KindProject.Object("a").Queue(0).Field(FieldPriority), Before: Null, After: String("high")},
		`change 1 (update Project/a queue 0 priority): the value "high" is not what priority holds`},
	{Change{Action: ActionUpdate, Field: KindDepartment.Object("ml").Field(FieldParent), Before: Null, After: String("x")},
		"change 1 (update Department/ml parent): a department has no field parent"},
	{Change{Action: ActionCreate, Field: KindProject.Object("a").Queue(0).Field(FieldQueueName), Before: Null, After: String("z"), NewQueue: true},
		"change 1 (create Project/a queue 0 name): it creates queue 0 of Project/a, which exists"},
}

func TestApplyRefusesWhatDoesNotFit(t *testing.T) {
	for _, tc := range misfits {
		before := small()
		was := jsonOf(t, before)
		_, err := Apply(before, []Change{tc.c})
		if err == nil || err.Error() != tc.want {
			t.Errorf("got %v\nwant %s", err, tc.want)
		}
		if jsonOf(t, before) != was {
			t.Errorf("%s: Apply changed its input", tc.want)
		}
	}
}

func TestDraftAppliesInSteps(t *testing.T) {
	before := small()
	d := NewDraft(before)
	q := KindProject.Object("a").Queue(0).Field(gpuDeserved)
	step1 := []Change{{Action: ActionUpdate, Field: q, Before: Number(quota.MustParse("3")), After: Number(quota.MustParse("2"))}}
	if err := d.Apply(step1); err != nil {
		t.Fatal(err)
	}
	// A second step sees the first: its before is the first's after.
	step2 := []Change{{Action: ActionUpdate, Field: q, Before: Number(quota.MustParse("2")), After: Number(quota.MustParse("1"))}}
	if err := d.Apply(step2); err != nil {
		t.Fatal(err)
	}
	if v, _ := d.Index().Value(q); v.String() != "1" {
		t.Errorf("after two steps: %s", v)
	}
	if v, _ := NewIndex(before).Value(q); v.String() != "3" {
		t.Errorf("the input changed: %s", v)
	}
	if !strings.Contains(jsonOf(t, d.Tenancy().Projects[0]), `"deserved":1`) {
		t.Error("Tenancy does not show the draft")
	}
}

// FuzzApply: any change a plan file can hold (one that decodes) either
// applies or is refused with an error; Apply never panics and never
// changes its input.
func FuzzApply(f *testing.F) {
	for _, c := range misfits {
		b, _ := c.c.MarshalJSON()
		f.Add(b)
	}
	f.Add([]byte(`{"action":"create","kind":"Department","object":"new","queue_index":0,"field":"gpu.limit","path":"/spec/queues/0/resources/gpu/limit","before":null,"after":-1,"resource":"gpu"}`))
	f.Add([]byte(`{"action":"create","kind":"Project","object":"a","queue_index":1,"new_queue":true,"field":"priority","path":"/spec/queues/1/priority","before":null,"after":7}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var c Change
		if c.UnmarshalJSON(b) != nil {
			return
		}
		before := small()
		was := jsonOf(t, before)
		after, err := Apply(before, []Change{c, c})
		if jsonOf(t, before) != was {
			t.Fatalf("Apply changed its input: %s", b)
		}
		if err == nil && after == nil {
			t.Fatal("no tenancy and no error")
		}
	})
}

// TestKRMConfig: KRM's defaults for an absent or empty KRMConfig, and the
// project-controller flags of extraArgs, which win over the fields.
func TestKRMConfig(t *testing.T) {
	var none *KRMConfig
	if none.LabelKey() != "kai/project" || none.NamePrefix() != "kai" || none.OverrideKey() != "kai.resources/resource-manual-override" || !none.CreatesNamespaces() {
		t.Errorf("defaults: %q %q %q %v", none.LabelKey(), none.NamePrefix(), none.OverrideKey(), none.CreatesNamespaces())
	}
	off := false
	c := &KRMConfig{ProjectNamePrefix: "team", ProjectLabelKey: "example.com/project", CreateNamespaces: &off}
	c.ApplyExtraArgs([]string{"--debug", "--project-name-prefix=ml", "-namespace-project-label-key", "example.com/p", "--resource-manual-override-label-key", "example.com/hands-off", "--project-name-prefix"})
	if c.NamePrefix() != "ml" || c.LabelKey() != "example.com/p" || c.OverrideKey() != "example.com/hands-off" || c.CreatesNamespaces() {
		t.Errorf("extraArgs: %+v", c)
	}
	p := &Project{Metadata: Meta{Name: "research"}}
	if got := p.NamespaceName(c.NamePrefix()); got != "ml-research" {
		t.Errorf("namespace %q, want ml-research", got)
	}
	p.Spec.Namespace = "team-research"
	if got := p.NamespaceName(c.NamePrefix()); got != "team-research" {
		t.Errorf("namespace %q, want team-research", got)
	}
	if !IsManualOverride("True") || IsManualOverride("yes") {
		t.Error("IsManualOverride")
	}
}
