package tenancy

import (
	"encoding/json"
	"testing"
)

func TestApplyDestroys(t *testing.T) {
	before := small()
	before.Projects[0].Spec.Queues = append(before.Projects[0].Spec.Queues,
		Queue{Name: "a-cpu", NodePool: "cpu"}, Queue{Name: "a-big", NodePool: "big"})
	was := jsonOf(t, before)
	a := KindProject.Object("a")
	changes := []Change{
		DestroyObject(KindProject.Object("c")),
		DestroyQueue(a.Queue(2), "a-big", "big"),
		DestroyQueue(a.Queue(0), "a-rtx", "rtx"),
	}
	after, err := Apply(before, changes)
	if err != nil {
		t.Fatal(err)
	}
	if jsonOf(t, before) != was {
		t.Fatal("Apply changed its input")
	}
	if got := jsonOf(t, after.Projects); got != `[{"metadata":{"name":"a"},"spec":{"parent":"ml","queues":[{"name":"a-cpu","nodepool":"cpu","resources":{}}]}}]` {
		t.Errorf("projects after: %s", got)
	}
	x := NewIndex(after)
	if x.Has(KindProject.Object("c")) || x.Project("a") == nil {
		t.Error("the index does not follow the removal")
	}
}

func TestApplyDestroyRefuses(t *testing.T) {
	a := KindProject.Object("a")
	cases := []struct {
		changes []Change
		want    string
	}{
		{[]Change{DestroyObject(KindProject.Object("zz"))}, "change 1 (destroy Project/zz metadata.name): it removes Project/zz, which does not exist"},
		{[]Change{DestroyQueue(a.Queue(0), "other", "rtx")}, `change 1 (destroy Project/a queue 0 name): it removes queue 0 of Project/a as "other", the tenancy holds "a-rtx"`},
		{[]Change{DestroyQueue(a.Queue(3), "x", "rtx")}, "change 1 (destroy Project/a queue 3 name): Project/a has no queue 3"},
		{[]Change{DestroyQueue(a.Queue(0), "a-rtx", "rtx"), {Action: ActionUpdate, Field: a.Queue(0).Field(gpuDeserved), Before: Null, After: Null}},
			"change 2 (update Project/a queue 0 gpu.deserved): the value null is not what gpu.deserved holds"},
		{[]Change{DestroyQueue(a.Queue(0), "a-rtx", "rtx"), {Action: ActionUpdate, Field: a.Field(FieldNamespace), Before: Null, After: String("x")}}, ""},
		{[]Change{DestroyQueue(a.Queue(0), "a-rtx", "rtx"), {Action: ActionUpdate, Field: a.Queue(0).Field(FieldPriority), Before: Null, After: Int(1)}},
			"change 2 (update Project/a queue 0 priority): it changes queue 0 of Project/a after a queue of it was removed, which moved the queues' indices"},
		{[]Change{{Action: ActionDestroy, Field: a.Field(FieldName), Before: String("a"), After: String("a")}},
			"change 1 (destroy Project/a metadata.name): a destroy goes from the name to nothing"},
	}
	for _, c := range cases {
		_, err := Apply(small(), c.changes)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

func TestDestroyChangeJSON(t *testing.T) {
	for _, c := range []Change{DestroyObject(KindDepartment.Object("ml")), DestroyQueue(KindDepartment.Object("ml").Queue(1), "ml-h100", "h100")} {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back Change
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if jsonOf(t, back) != string(b) || !back.Before.Equal(c.Before) || back.Action != ActionDestroy {
			t.Errorf("round trip of %s gave %s", b, jsonOf(t, back))
		}
	}
	bad := `{"action":"destroy","kind":"Project","object":"a","queue_index":0,"field":"priority","path":"/spec/queues/0/priority","before":1,"after":null}`
	var c Change
	if err := json.Unmarshal([]byte(bad), &c); err == nil || err.Error() != "Project/a: a destroy names an object's metadata.name or a queue's name, not priority" {
		t.Errorf("err = %v", err)
	}
}
