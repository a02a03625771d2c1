package position_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/tenancy"
	"github.com/krmplan/krmplan/tenancy/position"
)

// refOrigin is Origin as it was decoded before Set: a map of every
// position, which the engine decodes member by member. It is the
// reference that decoding state.json's positions into a Set must
// match: the same positions, the same errors word for word, and the same
// bytes written back.
type refOrigin struct {
	File   string                  `json:"file"`
	Line   int                     `json:"line"`
	Values map[string]position.Pos `json:"values,omitempty"`
}

type refObject struct {
	Metadata jsontext.Value `json:"metadata"`
	Origin   *refOrigin     `json:"origin,omitempty"`
}

type refFile struct {
	FormatVersion int         `json:"format_version"`
	Projects      []refObject `json:"projects"`
}

type newObject struct {
	Metadata jsontext.Value  `json:"metadata"`
	Origin   *tenancy.Origin `json:"origin,omitempty"`
}

type newFile struct {
	FormatVersion int         `json:"format_version"`
	Projects      []newObject `json:"projects"`
}

// positionsFile is a state.json-like file of n projects laid out as
// MarshalLines writes it, the values object of project at being values.
func positionsFile(n, at int, values string) []byte {
	var b strings.Builder
	b.WriteString("{\n  \"format_version\": 3,\n  \"projects\": [\n")
	for i := range n {
		v := fmt.Sprintf(`{"/spec/parent":"%d:11 %d platform","/spec/queues/0/name":"%d:13 %d 'p%d-h100'","/spec/queues/0/resources/gpu/deserved":"%d:28 %d 4"}`,
			10*i+2, 100*i+20, 10*i+5, 100*i+50, i, 10*i+7, 100*i+80)
		if i == at {
			v = values
		}
		fmt.Fprintf(&b, `    {"metadata":{"name":"p%d"},"origin":{"file":"t.yaml","line":%d,"values":%s}}`, i, 10*i+1, v)
		if i < n-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	return []byte(b.String())
}

// positionsCases are values objects of every kind that a file may hold:
// what krmplan writes (kept as the file's bytes), what it reads besides
// (into a map) and what it refuses.
var positionsCases = map[string][]string{"bytes": {
	`{"/spec/parent":"2:11 20 platform","/spec/queues/0/name":"5:13 50 a-h100"}`,
	`{}`,
	`{ "/a" : "1:1 0 x" ,` + "\n\t" + `"/b":"2:1 9 y y" }`,
	`{"/a":"1:1 0 "}`,
	`{"/a":"0:0 0 0"}`,
	`{"/a":"1:1 0 <&>"}`,
	`{"/a<&>":"1:1 0 x","/b":"1:1 0 x"}`,
}, "map": {
	`{"/b":"1:1 0 x","/a":"2:1 9 y"}`,
	`{"/a":"31:15 1214-1216 ab"}`,
	`{"/a":{"line":1,"column":2,"start":3,"end":9,"text":"*x","alias":true,"anchor_line":4}}`,
	`{"\/a":"1:1 0 x"}`,
	`{"/a":"1:1 0 \u0033"}`,
	`{"/a":"1:1 0 \"q\""}`,
	`{"/a":"1:1 0 é"}`,
	"{\"/a\":\"1:1 0 \xff\"}",
	`{"/a":"1:1 0 ` + "\u2028" + `"}`,
	`{"/a":"1234567890123456:1 0 x"}`,
	`null`,
}, "refused": {
	`{"/a":"31:15 x"}`,
	`{"/a":"31:15"}`,
	`{"/a":""}`,
	`{"/a":"01:15 1214 a"}`,
	`{"/a":"+1:15 1214 a"}`,
	`{"/a":"-1:15 1214 a"}`,
	`{"/a":"1:1 2-9 ab"}`,
	`{"/a":"1:1 0 x","/a":"2:1 9 y"}`,
	`{"/a":"1:1 0 x","/b":"1:1 0 x","/a":"2:1 9 y"}`,
	`{"/a":"1:1 0 x","/b":"1:1 0 x","\/a":"2:1 9 y"}`,
	`{"/a":5}`,
	`{"/a":{"line":1,"bogus":2}}`,
	`{"/a":"1:1 0 x",}`,
	`{"/a" "1:1 0 x"}`,
	`{"/a":"1:1 0 x"`,
	"{\"/a\":\"1:1 0 \tx\"}",
	`5`,
	`"1:1 0 x"`,
	`[]`,
	`{"/a":"1:1 0 x"}}`,
}}

// TestPositionsDecodeAsTheMap: every values object decodes to the
// positions the map did, or fails with its error word for word (the same
// line, JSON pointer and message), in both layouts of state.json and by
// both of jsonfile's decoders; and what decodes is written back to the
// map's bytes.
func TestPositionsDecodeAsTheMap(t *testing.T) {
	for kind, cases := range positionsCases {
		for _, values := range cases {
			decodeAsTheMap(t, kind, values)
		}
	}
}

func decodeAsTheMap(t *testing.T, kind, values string) {
	t.Helper()
	{
		compact := positionsFile(400, 230, values) // past parallelMin: DecodeLines decodes it in pieces
		indented := indentFile(t, compact)
		for layout, b := range map[string][]byte{"lines": compact, "indented": indented} {
			for name, decode := range map[string]func([]byte, any) error{"DecodeStrict": jsonfile.DecodeStrict, "DecodeLines": jsonfile.DecodeLines} {
				var ref refFile
				var got newFile
				refErr, gotErr := decode(b, &ref), decode(b, &got)
				if fmt.Sprint(refErr) != fmt.Sprint(gotErr) {
					t.Errorf("%s, %s, %s:\n got %v\nwant %v", values, layout, name, gotErr, refErr)
					continue
				}
				if (refErr != nil) != (kind == "refused") {
					t.Errorf("%s, %s, %s: a %s case, error %v", values, layout, name, kind, refErr)
				}
				if refErr == nil {
					samePositions(t, values+", "+layout+", "+name, ref, got)
					if raw, _ := position.FromFile(got.Projects[230].Origin.Values); raw != (kind == "bytes") {
						t.Errorf("%s, %s, %s: kept as bytes %v, a %s case", values, layout, name, raw, kind)
					}
					if raw, _ := position.FromFile(got.Projects[22].Origin.Values); !raw {
						t.Errorf("%s, %s, %s: project 22 not kept as bytes", values, layout, name)
					}
				}
			}
		}
	}
}

// indentFile is b laid out as jsonfile.Marshal writes a file (every level
// indented), where a values object spans lines.
func indentFile(t *testing.T, b []byte) []byte {
	var v jsontext.Value = bytes.Clone(b)
	if err := v.Indent(jsontext.WithIndent("  ")); err != nil {
		return b // not JSON: one layout of it is enough
	}
	return append(v, '\n')
}

// samePositions checks that got holds ref's positions and writes ref's
// bytes, in both of jsonfile's layouts.
func samePositions(t *testing.T, name string, ref refFile, got newFile) {
	t.Helper()
	for i, r := range ref.Projects {
		o := got.Projects[i].Origin
		want := r.Origin.Values
		if o.Values.Len() != len(want) {
			t.Errorf("%s: project %d: %d positions, want %d", name, i, o.Values.Len(), len(want))
		}
		var ptrs []string
		for ptr, pos := range o.Values.All() {
			ptrs = append(ptrs, ptr)
			if p, ok := o.Values.Value(ptr); !ok || p != pos || want[ptr] != pos {
				t.Errorf("%s: project %d: %s is %+v (Value %+v), want %+v", name, i, ptr, pos, p, want[ptr])
			}
		}
		if !slices.Equal(ptrs, slices.Sorted(maps.Keys(want))) {
			t.Errorf("%s: project %d: pointers %q, want %q", name, i, ptrs, slices.Sorted(maps.Keys(want)))
		}
		if _, ok := o.Values.Value("/spec/nope"); ok {
			t.Errorf("%s: project %d: a position for /spec/nope", name, i)
		}
	}
	for _, marshal := range []func(any) ([]byte, error){jsonfile.Marshal, jsonfile.MarshalLines, json.Marshal} {
		wantB, err1 := marshal(ref)
		gotB, err2 := marshal(got)
		if err1 != nil || err2 != nil || !bytes.Equal(gotB, wantB) {
			t.Errorf("%s: written back:\n%s\nwant:\n%s (%v, %v)", name, gotB, wantB, err2, err1)
		}
	}
}

// TestPositionsKeepTheFilesBytes: positions decoded by the fast path
// hold no copy of them; Set and Shift on them work on a map of their own
// and leave the file's bytes as they are.
func TestPositionsKeepTheFilesBytes(t *testing.T) {
	b := positionsFile(3, -1, "")
	before := bytes.Clone(b)
	var f newFile
	if err := jsonfile.DecodeStrict(b, &f); err != nil {
		t.Fatal(err)
	}
	o := f.Projects[1].Origin
	raw, at := position.FromFile(o.Values)
	if off := uintptr(at) - uintptr(unsafe.Pointer(&b[0])); !raw || off >= uintptr(len(b)) || b[off] != '{' {
		t.Fatalf("not the file's bytes: %v, at %d", raw, off)
	}
	if p, ok := o.Values.Value("/spec/queues/0/name"); !ok || p != (position.Pos{Line: 15, Column: 13, Start: 150, End: 159, Text: "'p1-h100'"}) {
		t.Fatalf("Value: %+v %v", p, ok)
	}
	o.Shift(100, 1000)
	o.Values.Put("/spec/x", position.Pos{Line: 1, Text: "1"})
	if p, _ := o.Values.Value("/spec/queues/0/name"); p != (position.Pos{Line: 115, Column: 13, Start: 1150, End: 1159, Text: "'p1-h100'"}) || o.Values.Len() != 4 || o.Line != 111 {
		t.Fatalf("after Shift and Set: %+v, %d positions, line %d", p, o.Values.Len(), o.Line)
	}
	if !bytes.Equal(b, before) {
		t.Fatal("the file's bytes changed")
	}
	if !f.Projects[0].Origin.Values.Equal(f.Projects[0].Origin.Values) || f.Projects[0].Origin.Values.Equal(o.Values) {
		t.Fatal("Equal")
	}
}

// TestSetUnmarshalJSON: encoding/json's path reads the same positions,
// from a copy of its input (which encoding/json may reuse).
func TestSetUnmarshalJSON(t *testing.T) {
	in := []byte(`{"file":"t.yaml","line":1,"values":{"/a":"2:3 10 x","/b":"4:5 20 'y'"}}`)
	var o tenancy.Origin
	if err := json.Unmarshal(in, &o); err != nil {
		t.Fatal(err)
	}
	copy(in, bytes.Repeat([]byte("#"), len(in)))
	a, ok1 := o.Values.Value("/a")
	b, ok2 := o.Values.Value("/b")
	if !ok1 || !ok2 || a != (position.Pos{Line: 2, Column: 3, Start: 10, End: 11, Text: "x"}) || b != (position.Pos{Line: 4, Column: 5, Start: 20, End: 23, Text: "'y'"}) || o.Values.Len() != 2 {
		t.Fatalf("%+v %+v (%v %v), %d positions", a, b, ok1, ok2, o.Values.Len())
	}
	if err := json.Unmarshal([]byte(`{"file":"t.yaml","line":1,"values":{"/a":"2:3"}}`), &o); err == nil || !strings.Contains(err.Error(), `/~1a: position "2:3" is not "LINE:COLUMN START TEXT"`) {
		t.Fatalf("a bad position: %v", err)
	}
}

// FuzzSetDecodesAsTheMap: any values object, in a file of a few projects,
// decodes as the map of positions did (TestPositionsDecodeAsTheMap's
// checks); its seeds are that test's cases.
func FuzzSetDecodesAsTheMap(f *testing.F) {
	for _, cases := range positionsCases {
		for _, c := range cases {
			f.Add(c)
		}
	}
	f.Fuzz(func(t *testing.T, values string) {
		b := positionsFile(3, 1, values)
		var ref refFile
		var got newFile
		refErr, gotErr := jsonfile.DecodeStrict(b, &ref), jsonfile.DecodeStrict(b, &got)
		if fmt.Sprint(refErr) != fmt.Sprint(gotErr) {
			t.Fatalf("%q:\n got %v\nwant %v", values, gotErr, refErr)
		}
		if refErr == nil {
			samePositions(t, values, ref, got)
		}
	})
}
