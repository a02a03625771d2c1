package jsonfile

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// listsDoc has top-level lists of every shape: through an embedded struct,
// of objects, strings and numbers, omitted when empty, and a named slice
// type (which is never cut: it may write itself).
type listsDoc struct {
	Version int            `json:"format_version"`
	Digest  string         `json:"digest"`
	Meta    map[string]any `json:"meta"`
	listsInline
	Names   []string         `json:"names,omitempty"`
	Numbers []float64        `json:"numbers"`
	Named   namedList        `json:"named"`
	Maps    []map[string]int `json:"maps"`
	Last    []listItem       `json:"last"`
}

type listsInline struct {
	Items []listItem `json:"items"`
	Empty []listItem `json:"empty,omitempty"`
}

type listItem struct {
	Name string         `json:"name"`
	Deep map[string]any `json:"deep,omitempty"`
	Ptr  *int           `json:"ptr,omitempty"`
}

type namedList []listItem

func listsValue(n int) listsDoc {
	v := listsDoc{Version: 3, Digest: "sha256:00"}
	for i := range n {
		v.Items = append(v.Items, listItem{Name: fmt.Sprintf("item \"%d\" <&> ,\n]}", i), Deep: map[string]any{"b": []any{i, "x"}, "a": nil}, Ptr: &i})
		v.Names = append(v.Names, fmt.Sprintf("n%d", i))
		v.Numbers = append(v.Numbers, float64(i)/3)
		v.Named = append(v.Named, listItem{Name: "named"})
		v.Maps = append(v.Maps, map[string]int{"z": i, "a": -i})
		v.Last = append(v.Last, listItem{})
	}
	return v
}

// bothLayouts is listsValue(n) as MarshalLines and as Marshal write it.
func bothLayouts(t testing.TB, n int) (lines, indented []byte) {
	v := listsValue(n)
	lines, err := MarshalLines(&v)
	if err == nil {
		indented, err = Marshal(&v)
	}
	if err != nil {
		t.Fatal(err)
	}
	return lines, indented
}

// withParallelMin sets parallelMin for one test.
func withParallelMin(t *testing.T, n int) {
	old := parallelMin
	parallelMin = n
	t.Cleanup(func() { parallelMin = old })
}

// MarshalLines writes the same bytes in pieces on every core as on one.
func TestMarshalLinesParallelSameBytes(t *testing.T) {
	withParallelMin(t, 1)
	for _, n := range []int{0, 1, 2, 3, 7, 100, 1000} {
		v := listsValue(n)
		want, err := marshalLinesSeq(&v)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range []any{&v, v} {
			got, err := MarshalLines(in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("n=%d %T: MarshalLines in pieces:\n%s\nwant:\n%s", n, in, got, want)
			}
		}
		if rv, _, _ := structOf(&v); n >= 2 && len(bigLists(rv)) != 5 {
			t.Errorf("n=%d: %d big lists, want 5 (items, names, numbers, maps, last)", n, len(bigLists(rv)))
		}
	}
}

// DecodeLines reads what DecodeStrict reads, in both layouts, and refuses
// what it refuses with its very words.
func TestDecodeLinesAsDecodeStrict(t *testing.T) {
	withParallelMin(t, 1)
	lines, indented := bothLayouts(t, 50)
	for _, b := range [][]byte{lines, indented} {
		if cuts := margin.listCuts(b, reflect.TypeFor[listsDoc]()); len(cuts) != 5 {
			t.Fatalf("%d lists cut, want 5:\n%s", len(cuts), b)
		}
		var got, want listsDoc
		if err := DecodeLines(b, &got); err != nil {
			t.Fatal(err)
		}
		if err := DecodeStrict(b, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || len(got.Items) != 50 || *got.Items[49].Ptr != 49 {
			t.Fatalf("DecodeLines read another value than DecodeStrict from\n%s", b)
		}
		// ... in pieces, not by reading it again.
		var pieces listsDoc
		if rv, _, _ := structOf(&pieces); !decodeCuts(b, rv, &pieces, margin.listCuts(b, rv.Type())) || !reflect.DeepEqual(pieces, want) {
			t.Fatalf("the file does not read in pieces:\n%s", b)
		}
	}
	item := "\n    " + `{"name":"item \"3\" <&> ,\n]}","deep":{"a":null,"b":[3,"x"]},"ptr":3},` + "\n"
	if !strings.Contains(string(lines), item) {
		t.Fatalf("no line %q in the file", item)
	}
	for _, c := range []struct {
		what, from, to string
		valid          bool // JSON of the right shape, though not in the layout
	}{
		{"unknown key in an element", `"ptr":3}`, `"ptr":3,"pointer":1}`, false},
		{"duplicate key in an element", `"ptr":3}`, `"ptr":3,"ptr":4}`, false},
		{"wrong type in an element", `"ptr":3}`, `"ptr":"3"}`, false},
		{"two elements on a line", `"ptr":3},`, `"ptr":3},{},`, true},
		{"an element over two lines", `"ptr":3},`, "\"ptr\":\n3},", true},
		{"an element indented otherwise", `"ptr":3},`, "\"ptr\":3},\n      ", true},
		{"missing comma", `"ptr":3},`, `"ptr":3}`, false},
		{"a list member twice", `"names": [`, `"numbers": [],` + "\n" + `  "names": [`, false},
		{"unknown top-level member", `"digest": "sha256:00",`, `"digest": "sha256:00", "x": 1,`, false},
		{"trailing data", "}\n", "}\n{}", false},
		{"a list of a nested object", `"meta": null,`, "\"meta\": {\"x\": 1,\n  \"names\": [\n    \"a\",\n    \"b\"\n  ]},", true},
		{"a list nested in a member", "  \"names\": [", "  \"deep\": {\"x\":\n  \"names\": [\n    1\n  ]},\n  \"names\": [", false},
		{"a syntax error", `"ptr":3}`, `"ptr":3]`, false},
	} {
		b := []byte(strings.Replace(string(lines), c.from, c.to, 1))
		if bytes.Equal(b, lines) {
			t.Fatalf("%s: no %q in the file", c.what, c.from)
		}
		var got, want listsDoc
		errGot, errWant := DecodeLines(b, &got), DecodeStrict(b, &want)
		switch {
		case (errWant == nil) != c.valid:
			t.Errorf("%s: DecodeStrict: %v", c.what, errWant)
		case c.valid && (errGot != nil || !reflect.DeepEqual(got, want)):
			t.Errorf("%s: DecodeLines read another value than DecodeStrict (error %v)", c.what, errGot)
		case !c.valid && (errGot == nil || errGot.Error() != errWant.Error()):
			t.Errorf("%s: DecodeLines: %v\nDecodeStrict: %v", c.what, errGot, errWant)
		}
	}
}

// A list of many small elements is read in one pass: its elements are not
// made before they are read, many times the file's bytes.
func TestDecodeLinesBoundsItsLists(t *testing.T) {
	withParallelMin(t, 1)
	v := listsValue(3)
	for range 10000 {
		v.Last = append(v.Last, listItem{})
	}
	b, err := MarshalLines(&v)
	if err != nil {
		t.Fatal(err)
	}
	small := strings.ReplaceAll(string(b), `{"name":""}`, `{}`)
	var names []string
	for _, c := range margin.listCuts([]byte(small), reflect.TypeFor[listsDoc]()) {
		names = append(names, c.name)
	}
	if strings.Join(names, " ") != "items names numbers maps" {
		t.Errorf("lists cut: %v, want all but last", names)
	}
	var got listsDoc
	if err := DecodeLines([]byte(small), &got); err != nil || len(got.Last) != 10003 {
		t.Errorf("DecodeLines: %v, %d elements", err, len(got.Last))
	}
}

// A list whose name another field may take (encoding/json's rules for
// embedded structs decide which) is never cut; neither is one of a type
// that writes itself.
func TestTopListsLeaveOutShadowedNames(t *testing.T) {
	type inner struct {
		Items []listItem `json:"items"`
		Other []listItem `json:"other"`
	}
	type doc struct {
		Items string `json:"items"`
		inner
		More []int `json:"more"`
	}
	var names []string
	for _, l := range topLists(reflect.TypeFor[doc]()) {
		names = append(names, l.name)
	}
	if strings.Join(names, " ") != "other more" {
		t.Errorf("top-level lists %v, want other more", names)
	}
	if l := topLists(reflect.TypeFor[selfWriting]()); len(l) != 0 {
		t.Errorf("lists of a type that writes itself: %v", l)
	}
}

type selfWriting struct {
	Items []listItem `json:"items"`
}

func (selfWriting) MarshalJSON() ([]byte, error) { return []byte("{}"), nil }

// FuzzDecodeLines: whatever the bytes, DecodeLines reads what DecodeStrict
// reads, or refuses them in its words.
func FuzzDecodeLines(f *testing.F) {
	lines, indented := bothLayouts(f, 4)
	f.Add(lines)
	f.Add(indented)
	f.Fuzz(func(t *testing.T, b []byte) {
		old := parallelMin
		parallelMin = 1
		defer func() { parallelMin = old }()
		var got, want listsDoc
		errGot, errWant := DecodeLines(b, &got), DecodeStrict(b, &want)
		switch {
		case (errGot == nil) != (errWant == nil) || errGot != nil && errGot.Error() != errWant.Error():
			t.Fatalf("DecodeLines: %v\nDecodeStrict: %v", errGot, errWant)
		case errGot == nil && !reflect.DeepEqual(got, want):
			t.Fatalf("DecodeLines read another value than DecodeStrict")
		}
	})
}

// A value that does not encode fails in pieces as in one pass.
func TestMarshalLinesParallelError(t *testing.T) {
	withParallelMin(t, 1)
	v := listsValue(100)
	v.Items[70].Deep["bad"] = make(chan int)
	_, errOne := marshalLinesSeq(&v)
	_, err := MarshalLines(&v)
	if errOne == nil || err == nil || err.Error() != errOne.Error() {
		t.Errorf("MarshalLines: %v\none pass: %v", err, errOne)
	}
}
