package jsonfile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

type doc struct {
	Name  string            `json:"name"`
	Raw   json.RawMessage   `json:"raw"`
	Tags  map[string]string `json:"tags,omitempty"`
	Empty []int             `json:"empty"`
	List  []int             `json:"list"`
}

// TestMarshalIsTheEncoder checks Marshal against the json.Encoder it
// stands for, byte for byte: indents, HTML characters, a raw message
// compacted, empty lists, the final newline.
func TestMarshalIsTheEncoder(t *testing.T) {
	v := doc{Name: "a <b> & c", Raw: json.RawMessage("[ 1,\n 2 ]"), Tags: map[string]string{"z": "1", "a": "2"}, Empty: []int{}, List: []int{1, 2}}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	got, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("got\n%s\nwant\n%s", got, want.Bytes())
	}
}

func TestDecodeStrict(t *testing.T) {
	var d doc
	err := DecodeStrict([]byte(`{"name": "a", "nmae": "b"}`), &d)
	if err == nil || err.Error() != `line 1: /: unknown key "nmae"` {
		t.Fatalf("a misspelt key: %v", err)
	}
	for in, want := range map[string]string{
		"{\n\"name\": \"a\",\n}":                     "line 2: invalid character ',' at start of value",
		"{\n\"name\": \"a\",\n\"list\": [1, \"x\"]}": "line 3: /list/1: a JSON string where a number belongs",
		"":                                   "the file is empty",
		"{\"name\": \"a\"} x":                "line 1: invalid character 'x' after top-level value",
		"{\"tags\": {\"a\": 1}}":             "line 1: /tags/a: a JSON number where a string belongs",
		"null":                               "line 1: /: a JSON null where an object belongs",
		" \n\t":                              "the file is empty",
		"{\"Name\": \"a\"}":                  `line 1: /: unknown key "Name"`,
		"{\"name\": \"a\", \"name\": \"b\"}": "line 1: /name: duplicate object member name",
		"{\"list\": [1, tru]}":               "line 1: /list/1: invalid character ']' in literal true (expecting 'e')",
	} {
		if err := DecodeStrict([]byte(in), &d); err == nil || err.Error() != want {
			t.Errorf("%q: got %v, want %s", in, err, want)
		}
	}
}

type head struct {
	Version int    `json:"version"`
	When    string `json:"when"`
	ID      string `json:"id"`
	Body    string `json:"body"`
}

func TestOverwriteAndSumEmpty(t *testing.T) {
	b, err := Marshal(head{Version: 1, When: "2026-11-30T10:00:00Z", ID: "000", Body: `"id": "000", <&>`})
	if err != nil {
		t.Fatal(err)
	}
	blank, err := Marshal(head{Version: 1, Body: `"id": "000", <&>`})
	if err != nil {
		t.Fatal(err)
	}
	sum, values, err := SumEmpty(b, "when", "id")
	if err != nil || sum != Sum(blank) || len(values) != 2 || values[0] != "2026-11-30T10:00:00Z" || values[1] != "000" {
		t.Fatalf("SumEmpty %s %q %v, want the sum of the file with both empty %s", sum, values, err, Sum(blank))
	}
	if err := Overwrite(b, Member{"id", "000"}, "a<b"); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"version\": 1,\n  \"when\": \"2026-11-30T10:00:00Z\",\n  \"id\": \"a<b\",\n  \"body\": \"\\\"id\\\": \\\"000\\\", <&>\"\n}\n"
	if string(b) != want {
		t.Fatalf("Overwrite:\n%s\nwant\n%s", b, want)
	}
	if err := Overwrite(b, Member{"id", "a<b"}, `a"b`); err == nil || err.Error() != `id: the value "a\"b" is not as long as "a<b"` {
		t.Fatalf("a shorter value: %v", err)
	}
	if _, _, err := SumEmpty(b, "id", "when"); err == nil || err.Error() != `the member "when" is not in the 256 bytes after the member "id", where krmplan writes it` {
		t.Fatalf("members out of the file's order: %v", err)
	}
	far := append([]byte("{"+strings.Repeat(" ", 256)), b[1:]...)
	if _, _, err := SumEmpty(far, "when"); err == nil || err.Error() != `the member "when" is not in the file's first 256 bytes, where krmplan writes it` {
		t.Fatalf("a member past the head: %v", err)
	}
	if _, _, err := SumEmpty(b, "version"); err == nil || err.Error() != `the member "version" is not a string` {
		t.Fatalf("a number: %v", err)
	}
	for _, spelt := range []string{`"when": "\u0032026-11-30T10:00:00Z"`, `"when":  "2026-11-30T10:00:00Z"`} {
		other := bytes.Replace(b, []byte(`"when": "2026-11-30T10:00:00Z"`), []byte(spelt), 1)
		if _, _, err := SumEmpty(other, "when"); err == nil || err.Error() != `the member "when" is not written as krmplan writes it` {
			t.Errorf("%s: %v", spelt, err)
		}
	}
	if err := Overwrite([]byte("{}"), Member{"id", "x"}, "y"); err == nil || err.Error() != `the file does not begin with the member "id": "x",` {
		t.Fatalf("no member: %v", err)
	}
}

// Marshal's chunks join to the encoder's bytes past a chunk's size.
func TestMarshalPastOneChunk(t *testing.T) {
	big := doc{Name: strings.Repeat("x<y>", chunkSize/2), List: make([]int, 70000), Empty: []int{}}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(big); err != nil {
		t.Fatal(err)
	}
	got, err := Marshal(big)
	if err != nil || !bytes.Equal(got, want.Bytes()) || len(got) < 2*chunkSize {
		t.Fatalf("%d bytes, want %d: %v", len(got), want.Len(), err)
	}
}

// DecodeSummed decodes as DecodeStrict does and sums as SumEmpty does.
func TestDecodeSummed(t *testing.T) {
	b, err := Marshal(head{Version: 1, When: "w", ID: "i", Body: "x"})
	if err != nil {
		t.Fatal(err)
	}
	var h head
	fp, err := DecodeSummed(b, &h, "when", "id")
	sum, values, sumErr := SumEmpty(b, "when", "id")
	if err != nil || h.Body != "x" || fp.Sum != sum || !fp.Holds("w", "i") || fp.Holds("w", "j") || sumErr != nil || len(values) != 2 {
		t.Fatalf("%+v %v %+v", fp, err, h)
	}
	if fp, err := DecodeSummed([]byte(`{"version": 1}`), &h, "id"); err != nil || fp.Err == nil || fp.Holds() {
		t.Fatalf("a file without the member: %+v %v", fp, err)
	}
}
