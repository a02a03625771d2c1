package jsonfile

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// lists holds a list and a map of each of Go's types that List and Map
// read for a bounded decoding (boundedLists).
type lists struct {
	S []string          `json:"s"`
	I []int             `json:"i"`
	M map[string]string `json:"m"`
}

// TestListsAndMapsReadAsTheEngine: List and Map read what the engine
// reads, the same values (null is nil, [] and {} empty but not nil) and
// the same errors word for word (a value of the wrong kind, in a list, a
// map or for the whole of it, a key given twice, bad syntax, a file cut
// short).
func TestListsAndMapsReadAsTheEngine(t *testing.T) {
	for _, in := range []string{
		`{"s":null,"i":null,"m":null}`,
		`{"s":[],"i":[],"m":{}}`,
		`{"s":["a","b"],"i":[1,-2],"m":{"a":"b","c":""}}`,
		`{"s":[1]}`, `{"s":["a",{}]}`, `{"s":{}}`, `{"s":"a"}`, `{"s":[true]}`,
		`{"i":["x"]}`, `{"i":[1.5]}`, `{"i":[1e400]}`, `{"i":{}}`,
		`{"m":[]}`, `{"m":"a"}`, `{"m":{"a":1}}`, `{"m":{"a":"b","a":"c"}}`, `{"m":{"a":null}}`,
		`{"s":["a",]}`, `{"m":{"a":"b",}}`, `{"m":{"a":"b"}`, `{"s":["a"`, `{"s":["\ud800"]}`,
		"{\n\"s\": [\"a\",\n\n 2]}",
	} {
		var got, want lists
		gotErr := DecodeStrict([]byte(in), &got)
		wantErr := decodeStrict([]byte(in), &want, engineOptions)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v, %v\nwant %#v, %v", in, got, gotErr, want, wantErr)
		}
	}
	var v lists
	if err := DecodeStrict([]byte(`{"s":[],"i":[],"m":{}}`), &v); err != nil || v.S == nil || v.I == nil || v.M == nil {
		t.Errorf("[] and {}: got %#v, %v; want empty lists and map, not nil", v, err)
	}
	if err := DecodeStrict([]byte("{\"m\":{\"a\":\"b\",\n\"a\":\"c\"}}"), &v); err == nil || err.Error() != `line 2: /m/a: duplicate object member name` {
		t.Errorf("a key given twice: got %v", err)
	}
}

// TestListsAndMapsRefusedAtTheirElement: a list of strings or numbers, or
// a map, of more elements than the file's bytes allow is refused at the
// first element past the bound, named by its JSON pointer (a map's entry
// by its key, escaped) on its line. A map's first 64 entries count half
// of their 32 bytes each, the next ones all of them.
func TestListsAndMapsRefusedAtTheirElement(t *testing.T) {
	keys := make([]string, 20000)
	for i := range keys {
		keys[i] = fmt.Sprintf(`"a/%d":""`, i)
	}
	for _, c := range []struct{ in, want string }{
		{`{"s":[` + strings.Repeat(`"",`, 30000) + `""]}`, "line 1: /s/5041: " + (&TooManyError{Made: 80672, Read: 15128}).Error()},
		{"{\n\"i\":[" + strings.Repeat(`0,`, 30000) + `0]}`, "line 2: /i/10923: " + (&TooManyError{Made: 87392, Read: 21852}).Error()},
		{`{"m":{` + strings.Join(keys, ",") + `}}`, "line 1: /m/a~13272: " + (&TooManyError{Made: 103712, Read: 38168}).Error()},
	} {
		if err := DecodeStrict([]byte(c.in), &lists{}); err == nil || err.Error() != c.want {
			t.Errorf("%.20s…: got %v\nwant %s", c.in, err, c.want)
		}
	}
	// The same elements, fewer: read.
	var v lists
	if err := DecodeStrict([]byte(`{"s":[`+strings.Repeat(`"",`, 2000)+`""],"m":{`+strings.Join(keys[:1000], ",")+`}}`), &v); err != nil || len(v.S) != 2001 || len(v.M) != 1000 {
		t.Errorf("got %d, %d, %v", len(v.S), len(v.M), err)
	}
}

// tagged is a file of MarshalLines whose big list's elements each hold a
// map: a list DecodeLines reads in pieces.
type tagged struct {
	Items []taggedItem `json:"items"`
}

type taggedItem struct {
	Name string            `json:"name"`
	Tags map[string]string `json:"tags"`
}

// TestDecodeLinesVerdictIsOneDecodings: whether DecodeLines refuses a file
// does not depend on how its pieces ran. Two elements each within the
// slack, together over it, were read when their pieces ran at once (each
// saw the slack whole) and refused when one ran after the other; now the
// file is refused as one decoding refuses it, in its words, whatever the
// cores; and elements that stay within it together are read.
func TestDecodeLinesVerdictIsOneDecodings(t *testing.T) {
	withParallelMin(t, 1)
	file := func(entries ...int) []byte {
		var v tagged
		for i, n := range entries {
			it := taggedItem{Name: fmt.Sprint(i), Tags: map[string]string{}}
			for k := range n {
				it.Tags[fmt.Sprint(k)] = ""
			}
			v.Items = append(v.Items, it)
		}
		b, err := MarshalLines(&v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	over := file(1, 1750, 1750, 1)  // each 1,750 entries are about 40 kB over their bytes
	within := file(1, 1750, 700, 1) // together under the 64 kB slack
	var want tagged
	wantErr := DecodeStrict(over, &want)
	if wantErr == nil || !strings.HasPrefix(wantErr.Error(), "line 5: /items/2/tags/") {
		t.Fatalf("one decoding: %v", wantErr)
	}
	t.Cleanup(func() { partsAtOnce = false })
	for run := range 20 {
		partsAtOnce = run%2 == 1 // as if on as many cores as parts, every other run
		var got tagged
		if err := DecodeLines(over, &got); err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("run %d: DecodeLines: %v\nwant %v", run, err, wantErr)
		}
		got = tagged{}
		if err := DecodeLines(within, &got); err != nil || len(got.Items) != 4 || len(got.Items[1].Tags) != 1750 {
			t.Fatalf("run %d: within the budget: %v", run, err)
		}
	}
}

// inBudget judges the parts as one decoding from the start would: each
// element's peak on what the skeleton and the elements before it made
// beyond their bytes.
func TestInBudget(t *testing.T) {
	el := func(made, read, peak int64) part { return part{made: made, read: read, peak: peak} }
	for _, c := range []struct {
		skel  part
		elems [][]part
		want  bool
	}{
		{part{}, [][]part{{el(40000, 100, 39950), el(40000, 100, 39950)}}, false},
		{part{}, [][]part{{el(40000, 100, 39950)}, {el(20000, 100, 19950)}}, true},
		{part{made: 30000}, [][]part{{el(40000, 100, 39950)}}, false},
		{part{}, [][]part{{el(66000, 100, 65950)}}, false},                    // its own peak is over
		{part{}, [][]part{{el(100, 70000, 0), el(100000, 100, 99950)}}, true}, // what one left under pays for the next
	} {
		if got := inBudget(c.skel, c.elems); got != c.want {
			t.Errorf("%+v %+v: %v, want %v", c.skel, c.elems, got, c.want)
		}
	}
}
