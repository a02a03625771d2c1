package snapshot_test

import (
	"bytes"
	"testing"

	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/snapshot"
)

// TestDecodedStateWritesItsBytes: a state.json decoded, its positions
// kept as the file's bytes (tenancy/position), holds the parser's
// positions, and is written again to the same bytes, in both of
// jsonfile's layouts.
func TestDecodedStateWritesItsBytes(t *testing.T) {
	st, _, err := tenancy(200).State()
	if err != nil {
		t.Fatal(err)
	}
	b := st.Marshal()
	got, err := snapshot.Decode("state.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if again := got.Marshal(); !bytes.Equal(again, b) {
		t.Fatalf("written again, %d bytes differ from the %d read", len(again), len(b))
	}
	want, err1 := jsonfile.Marshal(st)
	indented, err2 := jsonfile.Marshal(got)
	if err1 != nil || err2 != nil || !bytes.Equal(indented, want) {
		t.Fatalf("indented: %d bytes, want %d (%v, %v)", len(indented), len(want), err2, err1)
	}
	n := 0
	for i := range st.Projects {
		w, g := st.Projects[i].Origin, got.Projects[i].Origin
		if !g.Values.Equal(w.Values) || g.File != w.File || g.Line != w.Line {
			t.Fatalf("project %s: origin %+v, want %+v", st.Projects[i].Metadata.Name, g, w)
		}
		for ptr, pos := range w.Values.All() {
			if p, ok := g.Values.Value(ptr); !ok || p != pos {
				t.Fatalf("project %s: %s at %+v, want %+v", st.Projects[i].Metadata.Name, ptr, p, pos)
			}
			n++
		}
	}
	if n < 200*10 {
		t.Fatalf("only %d positions looked up", n)
	}
}
