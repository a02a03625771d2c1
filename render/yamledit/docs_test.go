package yamledit

import (
	"reflect"
	"testing"
)

// TestChunkDocsFallback: a chunk that does not parse alone (a quoted
// value that runs over a "---" line) gives the error of the whole file,
// as Parse reports it.
func TestChunkDocsFallback(t *testing.T) {
	src := []byte("a: 1\n---\nb: \"x\n---\ny\"\n")
	f := lazyFile("t.yaml", src)
	if len(f.chunks) != 3 {
		t.Fatalf("%d chunks", len(f.chunks))
	}
	_, want := Parse("t.yaml", src)
	_, err := f.chunkDocs(1)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("got %v, want %v", err, want)
	}
	// A file that parses: each chunk holds its own documents.
	f = lazyFile("t.yaml", []byte("a: 1\n---\nb: 2\n# c\n---\nc: 3\n"))
	docs, err := f.allDocs()
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, d := range docs {
		got = append(got, d.firstLine, d.lastLine)
	}
	if !reflect.DeepEqual(got, []int{1, 1, 3, 3, 6, 6}) {
		t.Errorf("lines %v", got)
	}
	if HasDirective([]byte("a: 1\n%YAML 1.2\n---\n")) != true || HasDirective([]byte("a: '%x'\n")) {
		t.Error("HasDirective")
	}
}
