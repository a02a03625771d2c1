package tenancy

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/quota"
)

// testdata/changes.json is the changes member of a plan.json that the
// planner wrote before the changes were typed: new node pools, departments,
// projects and queues, updates, omitted fields, a shrink, a file with an
// '&' and a namespace with '<' (encoding/json escapes it in a value, the
// file does not in other members), a list and a priority.
func TestChangesJSONBytes(t *testing.T) {
	want, err := os.ReadFile("testdata/changes.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Changes []Change `json:"changes"`
	}
	if err := jsonfile.DecodeStrict(want, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Changes) != 46 {
		t.Fatalf("%d changes, want 46", len(doc.Changes))
	}
	got, err := jsonfile.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the changes written again differ from the file:\n%s", firstDiff(got, want))
	}
	c := doc.Changes[0]
	if c.Action != ActionCreate || c.Field != KindNodePool.Object("l40s").Field(FieldLabelKey) || !c.Before.IsNull() ||
		!c.After.Equal(String("example.com/gpu-class")) || c.Source == nil || !c.Source.Desired || c.Source.Line != 2 {
		t.Errorf("first change = %+v", c)
	}
}

// firstDiff shows the line where a and b first differ.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return "line " + strconv.Itoa(i+1) + ": got  " + la[i] + "\n        want " + lb[i]
		}
	}
	return "lengths differ"
}

var badChanges = []struct{ json, err string }{
	{`{"action":"delete","kind":"Project","object":"a","queue_index":-1,"field":"parent","path":"/spec/parent","before":null,"after":"x"}`,
		`action: "delete" is not an action (create, update or destroy)`},
	{`{"action":"update","kind":"Project","object":"a","queue_index":0,"field":"gpu.limit","path":"/spec/queues/0/resources/gpu/deserved","before":1,"after":2,"resource":"gpu"}`,
		`Project/a: field "gpu.limit", but the path /spec/queues/0/resources/gpu/deserved is gpu.deserved`},
	{`{"action":"update","kind":"Project","object":"a","queue_index":1,"field":"gpu.deserved","path":"/spec/queues/0/resources/gpu/deserved","before":1,"after":2,"resource":"gpu"}`,
		`Project/a: queue_index 1, but the path /spec/queues/0/resources/gpu/deserved says 0`},
	{`{"action":"update","kind":"Project","object":"a","queue_index":0,"field":"gpu.deserved","path":"/spec/queues/0/resources/gpu/deserved","before":"1","after":2,"resource":"gpu"}`,
		`Project/a queue 0 gpu.deserved: before: the string "1": write the number unquoted`},
	{`{"action":"update","kind":"Project","object":"a","queue_index":0,"field":"gpu.deserved","path":"/spec/queues/0/resources/gpu/deserved","before":1,"after":2}`,
		`Project/a queue 0 gpu.deserved: resource "", but the field's resource is "gpu"`},
	{`{"action":"update","kind":"Project","object":"a","queue_index":0,"field":"gpu.deserved","path":"/spec/queues/0/resources/gpu/deserved","before":1,"after":2,"resource":"gpu","shrinks":true}`,
		`Project/a queue 0 gpu.deserved: shrinks is true, but 1 -> 2 does not say so`},
	{`{"action":"update","kind":"Department","object":"a","queue_index":-1,"field":"parent","path":"/spec/parent","before":"x","after":"y"}`,
		`Department/a: a department has no field parent that a plan sets`},
	{`{"action":"update","kind":"Project","object":"a","queue_index":0,"field":"priority","path":"/spec/queues/0/priority","before":1.5,"after":2}`,
		`Project/a queue 0 priority: before: 1.5 is not a whole number between -2147483648 and 2147483647`},
	{`{"action":"update","kind":"Queue","object":"a","queue_index":-1,"field":"parent","path":"/spec/parent","before":"x","after":"y"}`,
		`"Queue" is not a KRM kind (NodePool, Department, Project, ManagedNodesConfig or KRMConfig)`},
	{`{"action":"update","kind":"Project","object":"a","queue_index":-1,"field":"parent","path":"/spec/parent","before":"x","after":"y","extra":1}`,
		`unknown key "extra"`},
}

func TestChangeJSONRefusesWhatDisagrees(t *testing.T) {
	for _, tc := range badChanges {
		var c Change
		err := c.UnmarshalJSON([]byte(tc.json))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s:\n got %v\nwant %s", tc.json, err, tc.err)
		}
	}
}

func TestShrinks(t *testing.T) {
	q := KindProject.Object("p").Queue(0)
	n := func(s string) Value { return Number(quota.MustParse(s)) }
	for _, tc := range []struct {
		f             Field
		before, after Value
		want          bool
	}{
		{QuotaFieldOf(quota.GPU, Deserved), n("4"), n("3"), true},
		{QuotaFieldOf(quota.GPU, Deserved), n("3"), n("4"), false},
		{QuotaFieldOf(quota.GPU, Limit), n("-1"), n("8"), true}, // -1 is +∞
		{QuotaFieldOf(quota.GPU, Limit), n("8"), n("-1"), false},
		{QuotaFieldOf(quota.CPU, Limit), Null, n("-1"), false}, // an absent bound is 0
		{QuotaFieldOf(quota.CPU, Deserved), Null, n("-5"), true},
		{QuotaFieldOf(quota.GPU, OverQuotaWeight), n("3"), n("1"), false},
		{FieldPriority, Int(100), Int(50), false},
	} {
		c := Change{Action: ActionUpdate, Field: q.Field(tc.f), Before: tc.before, After: tc.after}
		if got := c.Shrinks(); got != tc.want {
			t.Errorf("%s %s -> %s: Shrinks = %v, want %v", tc.f, tc.before, tc.after, got, tc.want)
		}
	}
}
