package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/jsonfile"
)

// allocBound is the most a hostile file's decoding may allocate per byte
// of it: a real state allocates 1.5 (10,000 projects, 24.5 MB), the
// hostile ones of these tests about 0.1 now and 100 to 260 before each
// element was counted (jsonfile.Element).
const allocBound = 4

// hostileMB is the size of the lists of the hostile files: small enough
// for a test, large enough that 4 bytes per byte are far from the slack.
const hostileMB = 4 << 20

// repeated is a JSON list of elem, as many as fill n bytes.
func repeated(elem string, n int) string {
	return "[" + strings.Repeat(elem+",", n/(len(elem)+1)) + elem + "]"
}

// reseal sets the digest of state.json bytes b to that of its content, as
// anyone may (the digest is a sha256 of the file, not a signature).
func reseal(t *testing.T, b []byte) []byte {
	t.Helper()
	sum, vals, err := jsonfile.SumEmpty(b, "taken_at", "digest")
	if err != nil {
		t.Fatal(err)
	}
	if err := jsonfile.Overwrite(b, jsonfile.Member{Name: "digest", Value: vals[1]}, "sha256:"+sum); err != nil {
		t.Fatal(err)
	}
	return b
}

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// hostileStates are state.json files whose lists hold millions of short
// elements, each with its digest made right, and what Decode says.
func hostileStates(t *testing.T) map[string]struct {
	b    []byte
	want string
} {
	_, base := sealedState(t, "")
	list := func(member, elems string) []byte {
		s := strings.Replace(string(base), `  "not_read": [`, fmt.Sprintf("  %q: %s,\n  \"not_read\": [", member, elems), 1)
		return reseal(t, []byte(s))
	}
	queues := func(elems string) []byte { // the project's queues: elems, then its own queue
		s := strings.Replace(string(base), `"queues":[`, `"queues":[`+elems, 1)
		return reseal(t, []byte(s))
	}
	out := map[string]struct {
		b    []byte
		want string
	}{}
	add := func(name string, b []byte, want string) {
		out[name] = struct {
			b    []byte
			want string
		}{b, want}
	}
	add("nodes of {}", list("nodes", repeated("{}", hostileMB)), "state.json: not a krmplan snapshot: line 11: /nodes/0: the node has no name")
	add("namespaces of {}", list("namespaces", repeated("{}", hostileMB)), "state.json: not a krmplan snapshot: line 11: /namespaces/0: the namespace has no name")
	add("live queues of {}", list("live_queues", repeated("{}", hostileMB)), "state.json: not a krmplan snapshot: line 11: /live_queues/0: the Queue has no name")
	add("the smallest nodes", list("nodes", repeated(`{"name":"a"}`, hostileMB)),
		"state.json: not a krmplan snapshot: line 11: /nodes/616: "+tooMany(74528, 8962))
	add("a project's queues of {}", queues(strings.Repeat("{},", hostileMB/3)),
		"state.json: not a krmplan snapshot: line 9: /projects/0/spec/queues/1077: "+tooMany(69176, 3605))
	departments := reseal(t, []byte(strings.Replace(string(base), `"departments": []`, `"departments": `+repeated("{}", hostileMB), 1)))
	add("departments of {}", departments, "state.json: not a krmplan snapshot: line 7: /departments/0: the department has no metadata.name; kubectl refuses an object without one")
	return out
}

// TestDecodeBoundsHostileLists: a state whose lists hold millions of "{}"
// (or of the shortest element that is otherwise valid), with a digest
// that matches, is refused at the first element without a name, or once
// its elements are more bytes than the file's, having allocated a few
// times the file's bytes at most. (Before, such a file was read whole:
// 100 to 260 bytes allocated per byte.)
func TestDecodeBoundsHostileLists(t *testing.T) {
	for name, c := range hostileStates(t) {
		var err error
		got := allocated(func() { _, err = Decode("state.json", c.b) })
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v\nwant %s", name, err, c.want)
		}
		if got > allocBound*uint64(len(c.b)) {
			t.Errorf("%s: the decoding allocated %d bytes for a file of %d, more than %d per byte", name, got, len(c.b), allocBound)
		}
	}
}

// TestDecodeReadsTheSmallestElements: the shortest element of each list
// that has what it must (a name) is read, and so are hundreds of them.
func TestDecodeReadsTheSmallestElements(t *testing.T) {
	_, base := sealedState(t, "")
	s := strings.Replace(string(base), `  "not_read": [`, "  \"nodes\": "+repeated(`{"name":"a"}`, 6000)+
		",\n  \"live_queues\": [{\"name\":\"a\"}],\n  \"namespaces\": [{\"name\":\"a\"}],\n  \"not_read\": [", 1)
	s = strings.Replace(s, `"departments": []`, `"departments": [{"metadata":{"name":"a"}}]`, 1)
	s = strings.Replace(s, `"queues":[`, `"queues":[{},`, 1)
	st, err := Decode("state.json", reseal(t, []byte(s)))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Nodes) != 6000/13+1 || st.Nodes[0].Name != "a" || st.Departments[0].Metadata.Name != "a" || len(st.Projects[0].Spec.Queues) != 2 || st.Namespaces[0].Name != "a" {
		t.Errorf("got %d nodes, %+v, %+v", len(st.Nodes), st.Departments, st.Projects[0].Spec.Queues)
	}
}

// TestLoadClusterDataBoundsHostileLists: cluster data is read as a
// state's lists are.
func TestLoadClusterDataBoundsHostileLists(t *testing.T) {
	for name, c := range map[string]struct{ js, want string }{
		"nodes of {}":        {`{"nodes": ` + repeated("{}", hostileMB) + `, "live_queues": [], "namespaces": []}`, "line 1: /nodes/0: the node has no name"},
		"the smallest nodes": {`{"nodes": ` + repeated(`{"name":"a"}`, hostileMB) + `, "live_queues": [], "namespaces": []}`, "line 1: /nodes/612: " + tooMany(73560, 7966)},
	} {
		p := filepath.Join(t.TempDir(), "cluster.json")
		if err := os.WriteFile(p, []byte(c.js), 0o644); err != nil {
			t.Fatal(err)
		}
		var err error
		got := allocated(func() { _, err = LoadClusterData(p) })
		if want := p + ": not cluster data: " + c.want; err == nil || err.Error() != want {
			t.Errorf("%s: got %v\nwant %s", name, err, want)
		}
		if got > allocBound*uint64(len(c.js)) {
			t.Errorf("%s: the decoding allocated %d bytes for a file of %d, more than %d per byte", name, got, len(c.js), allocBound)
		}
	}
}
