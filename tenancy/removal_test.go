package tenancy

import (
	"encoding/json"
	"runtime"
	"testing"
)

// A removal reads as a removed block's keys, from the flag and from
// plan.json, and every other spelling is refused with the reason.
func TestParseRemovalAddr(t *testing.T) {
	for _, c := range []struct{ in, str, json, err string }{
		{in: "project=legacy", str: "project=legacy", json: `{"project":"legacy"}`},
		{in: "queue=h100,department=x", str: "department=x,queue=h100", json: `{"department":"x","queue":"h100"}`},
		{in: "node_pool=old", str: "node_pool=old", json: `{"node_pool":"old"}`},
		{in: "project=", err: `"project=" is not key=value: a removal is project=NAME, department=NAME or node_pool=NAME, with queue=POOL for one queue entry`},
		{in: "legacy", err: `"legacy" is not key=value: a removal is project=NAME, department=NAME or node_pool=NAME, with queue=POOL for one queue entry`},
		{in: "projects=legacy", err: `unknown key "projects": the keys are those of a removed block, node_pool, department, project and queue`},
		{in: "project=a,department=b", err: "a removal names exactly one object: node_pool, department or project"},
		{in: "queue=h100", err: "a removal names one object: node_pool, department or project"},
		{in: "project=a,queue=x,queue=y", err: "queue is given twice"},
		{in: "node_pool=old,queue=old", err: "a node pool has no queues: queue=POOL removes a queue entry of a department or a project"},
	} {
		r, err := ParseRemovalAddr(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s: got %v, want error %s", c.in, err, c.err)
			}
			continue
		}
		if err != nil || r.String() != c.str {
			t.Errorf("%s: got %v %v, want %s", c.in, r, err, c.str)
			continue
		}
		b, err := json.Marshal(r)
		if err != nil || string(b) != c.json {
			t.Errorf("%s: JSON %s %v, want %s", c.in, b, err, c.json)
		}
		var back RemovalAddr
		if err := json.Unmarshal(b, &back); err != nil || back != r {
			t.Errorf("%s: read back %v %v", c.in, back, err)
		}
	}
	var r RemovalAddr
	if err := json.Unmarshal([]byte(`{"project":"a","force":true}`), &r); err == nil {
		t.Error("an unknown key in plan.json is read")
	}
}

// A removal in plan.json is read as encoding/json reads it (a key in
// another case, a key twice: the last), refused in its words, at about a
// hundred bytes for each (encoding/json's Decoder: 2.5 kB, 7 MB for the
// removals a hostile plan.json lists before its list is refused).
func TestRemovalAddrUnmarshalJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"department":"x","queue":"h100"}`, "department=x,queue=h100"},
		{`{"Project":"a"}`, "project=a"},
		{`{"project":"a","project":"b"}`, "project=b"},
		{`{"project":"a","force":true}`, `a removal: json: unknown field "force"`},
		{`{"project":1}`, "a removal: json: cannot unmarshal number into Go struct field removalJSON.project of type string"},
		{`null`, `a removal null: "" is not key=value: a removal is project=NAME, department=NAME or node_pool=NAME, with queue=POOL for one queue entry`},
		{`{"node_pool":"old","queue":"old"}`, `a removal {"node_pool":"old","queue":"old"}: a node pool has no queues: queue=POOL removes a queue entry of a department or a project`},
	} {
		var r RemovalAddr
		got := ""
		if err := r.UnmarshalJSON([]byte(c.in)); err != nil {
			got = err.Error()
		} else {
			got = r.String()
		}
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
	}
	const n = 1000
	in := []byte(`{"project":"legacy"}`)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for range n {
		var r RemovalAddr
		if err := r.UnmarshalJSON(in); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&m1)
	if per := (m1.TotalAlloc - m0.TotalAlloc) / n; per > 256 {
		t.Errorf("reading a removal allocated %d bytes, more than 256", per)
	}
}

// Matches names the destroy of the whole object, or of one queue entry.
func TestRemovalAddrMatches(t *testing.T) {
	p := KindProject.Object("p")
	whole, queue := DestroyObject(p), DestroyQueue(p.Queue(1), "", "h100")
	for _, c := range []struct {
		r    RemovalAddr
		c    *Change
		want bool
	}{
		{RemovalAddr{Object: p}, &whole, true},
		{RemovalAddr{Object: p}, &queue, false},
		{RemovalAddr{Object: p, Pool: "h100"}, &queue, true},
		{RemovalAddr{Object: p, Pool: "a100"}, &queue, false},
		{RemovalAddr{Object: KindDepartment.Object("p")}, &whole, false},
	} {
		if got := c.r.Matches(c.c); got != c.want {
			t.Errorf("%s matches %s: %v", c.r, c.c.Describe(), got)
		}
	}
}
