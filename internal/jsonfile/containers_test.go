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
