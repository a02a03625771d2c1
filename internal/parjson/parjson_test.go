package parjson_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/internal/parjson"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
)

// same checks all three outputs against encoding/json.
func same(t *testing.T, what string, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parjson.Marshal(v, false)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: compact differs at byte %d:\n got %.200s\nwant %.200s", what, diffAt(got, want), got[diffAt(got, want):], want[diffAt(got, want):])
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	pretty, err := parjson.Marshal(v, true)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pretty, b.Bytes()) {
		at := diffAt(pretty, b.Bytes())
		t.Fatalf("%s: pretty differs at byte %d:\n got %.200q\nwant %.200q", what, at, pretty[at:], b.Bytes()[at:])
	}
	sum, err := parjson.Sum256(v)
	if err != nil {
		t.Fatal(err)
	}
	if sum != sha256.Sum256(want) {
		t.Fatalf("%s: Sum256 is not the sha256 of json.Marshal", what)
	}
}

func diffAt(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

type inner struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
	Ptr    *int              `json:"ptr"`
	Weird  string            `json:"weird<&>,omitempty"` // not a plain key: the struct goes whole
}

type plainInner struct {
	Name  string         `json:"name"`
	Nums  []float64      `json:"nums"`
	Any   any            `json:"any,omitempty"`
	Deep  *plainInner    `json:"deep,omitempty"`
	Value marshalsItself `json:"value"`
	Text  textItself     `json:"text"`
}

type marshalsItself struct{ n int }

func (m marshalsItself) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(` { "n" : %d } `, m.n)), nil
}

type textItself struct{ s string }

func (x *textItself) MarshalText() ([]byte, error) { return []byte("<" + x.s + ">"), nil }

type embedded struct {
	plainInner
	Extra int `json:"extra"`
}

type top struct {
	Version  int               `json:"version"`
	Empty    string            `json:"empty,omitempty"`
	Zero     int               `json:"zero,omitempty"`
	Kept     string            `json:"kept"`
	NoTag    string            // named by its Go name
	Skipped  string            `json:"-"`
	hidden   string            // unexported: never written
	AsString int               `json:"as_string,string"` // an option: the struct goes whole
	Nil      []plainInner      `json:"nil"`
	None     []plainInner      `json:"none"`
	Few      []plainInner      `json:"few"`
	Many     []plainInner      `json:"many"`
	Ptrs     []*plainInner     `json:"ptrs"`
	Odd      []inner           `json:"odd"`
	Embeds   []embedded        `json:"embeds"`
	Map      map[string]int    `json:"map"`
	Nested   plainInner        `json:"nested"`
	NilPtr   *plainInner       `json:"nil_ptr"`
	Strings  []string          `json:"strings"`
	Raw      json.RawMessage   `json:"raw"`
	Labels   map[string]string `json:"labels,omitempty"`
}

type wrapper struct {
	Top   top  `json:"top"`
	Plain body `json:"body"`
}

type body struct {
	Items []plainInner `json:"items"`
	Next  *body        `json:"next,omitempty"`
}

func item(i int) plainInner {
	p := plainInner{Name: fmt.Sprintf("item <%d> & \u2028 \"q\" \\ \t é \xff", i), Nums: []float64{float64(i), 0.5, 1e21},
		Value: marshalsItself{i}, Text: textItself{fmt.Sprint(i)}}
	if i%3 == 0 {
		p.Any = map[string]any{"b": []int{i}, "a": "<x>"}
	}
	if i%5 == 0 {
		p.Deep = &plainInner{Name: "deep", Value: marshalsItself{-i}}
	}
	return p
}

// TestSameBytesAsEncodingJSON compares with encoding/json on values with
// every feature the plain path has and every one it hands over whole.
func TestSameBytesAsEncodingJSON(t *testing.T) {
	one := 1
	v := top{Version: 1, Kept: "", NoTag: "x", Skipped: "never", hidden: "never", AsString: 7, None: []plainInner{},
		Map: map[string]int{"z": 1, "a<": 2}, Nested: item(-1), Strings: make([]string, 3000), Raw: json.RawMessage(`{"b": 1, "a": [ 1 ]}`)}
	for i := 0; i < 3; i++ {
		v.Few = append(v.Few, item(i))
	}
	for i := 0; i < 2000; i++ {
		v.Many = append(v.Many, item(i))
		if i%7 == 0 {
			v.Ptrs = append(v.Ptrs, nil)
		} else {
			it := item(i)
			v.Ptrs = append(v.Ptrs, &it)
		}
		v.Odd = append(v.Odd, inner{Name: fmt.Sprint(i), Ptr: &one, Labels: map[string]string{"k": "<v>"}})
		v.Embeds = append(v.Embeds, embedded{plainInner: item(i), Extra: i})
	}
	same(t, "top", v)
	same(t, "pointer to top", &v)
	w := wrapper{Top: v, Plain: body{Items: v.Many[:700], Next: &body{Items: v.Many[:600]}}}
	same(t, "wrapper", &w)
	same(t, "empty", &wrapper{})
	same(t, "a slice at the top", v.Many)
	same(t, "a string", "<a> & b")
	same(t, "nil", nil)
}

// TestSameBytesOnPlansAndStates compares on what krmplan writes: a
// snapshot of 3,000 projects and a plan on it.
func TestSameBytesOnPlansAndStates(t *testing.T) {
	g := gentenancy.Generate(gentenancy.Spec{Projects: 2000, Seed: 5})
	st, _, err := g.State()
	if err != nil {
		t.Fatal(err)
	}
	same(t, "state", st)
	ov, diags := config.Load(gentenancy.MoveFile, g.MoveHCL(0), nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := planner.Build(st, ov)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	same(t, "plan", p)
	if !strings.Contains(string(p.Marshal()), `"plan_id": "`+p.PlanID+`"`) {
		t.Fatal("plan.json lacks its plan id")
	}
	decodesSame(t, "state.json", st.Marshal(), func() any { return new(snapshot.State) })
	decodesSame(t, "plan.json", p.Marshal(), func() any { return new(planner.Plan) })
}

// decodesSame decodes data with Decode and with encoding/json's Decoder
// (strict, as krmplan reads its files) and compares the values.
func decodesSame(t *testing.T, what string, data []byte, zero func() any) {
	t.Helper()
	want, got := zero(), zero()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(want); err != nil {
		t.Fatal(err)
	}
	if err := parjson.Decode(data, got, true); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: Decode gives another value than encoding/json", what)
	}
}
