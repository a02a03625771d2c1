package jsonfile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestMarshalLines(t *testing.T) {
	type item struct {
		Name string         `json:"name"`
		Deep map[string]any `json:"deep,omitempty"`
	}
	v := struct {
		Version int            `json:"format_version"`
		Digest  string         `json:"digest"`
		Source  map[string]any `json:"source"`
		Items   []item         `json:"items"`
		Empty   []item         `json:"empty"`
		Obj     struct{}       `json:"obj"`
		Text    string         `json:"text"`
	}{
		Version: 3, Digest: "sha256:00",
		Source: map[string]any{"kind": "git", "files": []string{"a", "b"}},
		Items: []item{
			{Name: `a "quoted" [name], {with} brackets: and \ backslash`, Deep: map[string]any{"x": []any{1, map[string]any{"y": "]},"}}}},
			{Name: "<b>&"},
		},
		Empty: []item{},
		Text:  "line\nbreak",
	}
	got, err := MarshalLines(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "format_version": 3,
  "digest": "sha256:00",
  "source": {"files":["a","b"],"kind":"git"},
  "items": [
    {"name":"a \"quoted\" [name], {with} brackets: and \\ backslash","deep":{"x":[1,{"y":"]},"}]}},
    {"name":"<b>&"}
  ],
  "empty": [],
  "obj": {},
  "text": "line\nbreak"
}
`
	if string(got) != want {
		t.Errorf("MarshalLines:\n%s\nwant:\n%s", got, want)
	}
	// The same value as Marshal writes it, layout aside.
	indented, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := json.Compact(&a, got); err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&b, indented); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("MarshalLines and Marshal differ beyond layout:\n%s\n%s", a.String(), b.String())
	}
	// The head is as Marshal writes it: the fingerprint works on it.
	if err := Overwrite(got, Member{Name: "digest", Value: "sha256:00"}, "sha256:11"); err != nil {
		t.Fatal(err)
	}
	if _, vals, err := SumEmpty(got, "digest"); err != nil || strings.Join(vals, ",") != "sha256:11" {
		t.Errorf("SumEmpty = %q, %v", vals, err)
	}
}

// TestMarshalLinesAcrossWrites lays out a value big enough that the
// encoder hands it over in many writes, cutting strings and escapes.
func TestMarshalLinesAcrossWrites(t *testing.T) {
	type item struct {
		Name string `json:"name"`
	}
	var v struct {
		Items []item `json:"items"`
	}
	for i := 0; i < 20000; i++ {
		v.Items = append(v.Items, item{Name: strings.Repeat(`x\"`, i%7) + "]},"})
	}
	got, err := MarshalLines(v)
	if err != nil {
		t.Fatal(err)
	}
	ls := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	if len(ls) != len(v.Items)+4 {
		t.Fatalf("%d lines, want %d", len(ls), len(v.Items)+4)
	}
	for i, l := range ls[2 : len(ls)-2] {
		b, _ := json.Marshal(v.Items[i])
		if want := "    " + string(b) + ","; l != want && l != strings.TrimSuffix(want, ",") {
			t.Fatalf("line %d = %s, want %s", i+3, l, want)
		}
	}
}
