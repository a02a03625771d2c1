package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
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
	if err == nil || !strings.Contains(err.Error(), `unknown field "nmae"`) {
		t.Fatalf("a misspelt key: %v", err)
	}
	var syn *json.SyntaxError
	if err := DecodeStrict([]byte("{\n\"name\": \"a\",\n}"), &d); !errors.As(err, &syn) || syn.Offset == 0 {
		t.Fatalf("a syntax error without its offset: %v", err)
	}
}
