package snapshot_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/snapshot"
)

// TestParseFileInPartsIsParseTenancy checks that reading a large file in
// parts on several cores gives exactly what reading it whole gives:
// objects, order, lines and byte offsets.
func TestParseFileInPartsIsParseTenancy(t *testing.T) {
	for _, n := range []int{48, 3000} {
		src := gentenancy.Generate(gentenancy.Spec{Projects: n, Seed: 3}).YAML()
		var whole, parts snapshot.Tenancy
		if err := whole.ParseTenancy("t.yaml", src); err != nil {
			t.Fatal(err)
		}
		if err := snapshot.ParseFile(&parts, "t.yaml", src); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(whole, parts) {
			t.Fatalf("%d projects: the parts differ from the whole", n)
		}
		if want := 1 + boolInt(len(src) >= 1<<20); snapshot.DocumentParts(src, 2) != want {
			t.Fatalf("%d projects (%d bytes): %d parts, want %d", n, len(src), snapshot.DocumentParts(src, 2), want)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestParseFileInPartsReportsTheFirstError breaks a document near the end
// of a large file, and one cut by a part boundary (an unterminated quoted
// string runs into the next "---"): the error is the one a reading from the
// start reports.
func TestParseFileInPartsReportsTheFirstError(t *testing.T) {
	src := gentenancy.Generate(gentenancy.Spec{Projects: 3000, Seed: 3}).YAML()
	late := bytes.LastIndex(src, []byte("deserved: "))
	mid := bytes.Index(src[len(src)/2:], []byte("\n  name: ")) + len(src)/2
	for name, broken := range map[string][]byte{
		"a string for a number":          append(append(append([]byte(nil), src[:late]...), `deserved: "4"`...), src[late+len("deserved: 4"):]...),
		"a quote open across the marker": append(append(append([]byte(nil), src[:mid]...), "\n  name: \"open"...), src[mid+len("\n  name: "):]...),
	} {
		var whole, parts snapshot.Tenancy
		want := whole.ParseTenancy("t.yaml", broken)
		got := snapshot.ParseFile(&parts, "t.yaml", broken)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Fatalf("%s: got %v, want %v", name, got, want)
		}
	}
}
