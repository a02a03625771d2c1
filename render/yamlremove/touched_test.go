package yamlremove

import (
	"reflect"
	"testing"

	"github.com/krmplan/krmplan/render/yamledit"
)

// TestTouchedAfterRemovals: after a removal, the Set's cheap check of a
// splice expects the neighbours in the touched chunks and not the removed
// object, and skips a deleted file.
func TestTouchedAfterRemovals(t *testing.T) {
	src := map[string][]byte{"a.yaml": []byte(proj("a")), "t.yaml": []byte(proj("b") + "---\n" + proj("c") + "---\n" + proj("d"))}
	paths := []string{"a.yaml", "t.yaml"}
	known, at := index(t, paths, src)
	ts, err := yamledit.NewSet(testSchema, paths, src, known, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rs []Removal
	for _, n := range []string{"a", "c"} {
		r := rm("Project", n, NoQueue, "")
		r.Origin = at[r.ID]
		rs = append(rs, r)
	}
	got, err := Removals(ts, rs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Deleted, []string{"a.yaml"}) {
		t.Fatalf("deleted %v", got.Deleted)
	}
	out, spans, err := yamledit.SpliceSpans(src["t.yaml"], got.Edits["t.yaml"])
	if err != nil {
		t.Fatal(err)
	}
	runs, expected, ok := ts.Touched(map[string][]byte{"t.yaml": out}, map[string][]yamledit.Span{"t.yaml": spans})
	if !ok {
		t.Fatal("Touched cannot vouch")
	}
	want := map[yamledit.ID]bool{{Kind: "Project", Name: "b"}: true, {Kind: "Project", Name: "d"}: true}
	if !reflect.DeepEqual(expected, want) {
		t.Errorf("expected %v, want %v", expected, want)
	}
	if len(runs) != 1 || string(runs[0].Src) != proj("b")+"---\n"+proj("d") {
		t.Errorf("runs %q", runs)
	}
}
