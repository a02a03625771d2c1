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
		var whole, parts snapshot.Parsed
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

// largeTenancy is a generated tenancy file large enough to be read in
// parts (over parallelParseMin, 1 MiB): 3,000 projects (2.5 MB), or under
// -short 1,440 (1.2 MB), which is still cut in two, so that the quick run
// keeps every case at half the bytes.
func largeTenancy(t *testing.T) []byte {
	n := 3000
	if testing.Short() {
		n = 1440
	}
	src := gentenancy.Generate(gentenancy.Spec{Projects: n, Seed: 3}).YAML()
	if snapshot.DocumentParts(src, 2) != 2 {
		t.Fatalf("%d projects (%d bytes) are not read in two parts", n, len(src))
	}
	return src
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
	src := largeTenancy(t)
	late := bytes.LastIndex(src, []byte("deserved: "))
	mid := bytes.Index(src[len(src)/2:], []byte("\n  name: ")) + len(src)/2
	for name, broken := range map[string][]byte{
		"a string for a number":          append(append(append([]byte(nil), src[:late]...), `deserved: "4"`...), src[late+len("deserved: 4"):]...),
		"a quote open across the marker": append(append(append([]byte(nil), src[:mid]...), "\n  name: \"open"...), src[mid+len("\n  name: "):]...),
	} {
		var whole, parts snapshot.Parsed
		want := whole.ParseTenancy("t.yaml", broken)
		got := snapshot.ParseFile(&parts, "t.yaml", broken)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Fatalf("%s: got %v, want %v", name, got, want)
		}
	}
}

// TestParseFileInPartsBlockScalarMarker puts a "---" line inside an
// annotation's text (a block scalar, and plain and quoted ones) just after
// the middle of a large file, where it is cut into two parts. A "---"
// indented under its key is text: the file must not be cut there. One at
// column 0 is a document marker to yaml.v3 even there (it ends the scalar
// and the document), so cutting there is what a reading from the start
// does. Either way the parts give exactly the whole's result, or its error.
func TestParseFileInPartsBlockScalarMarker(t *testing.T) {
	src := largeTenancy(t)
	for _, tc := range []struct {
		name             string
		head, dash, tail string
	}{
		{"literal, --- indented", "    description: |\n      first\n", "      ---\n", "      last\n"},
		{"folded, --- indented", "    description: >\n      first\n", "      ---\n", "      last\n"},
		{"keep, --- and text indented", "    description: |+\n      first\n", "      --- text\n", "\n"},
		{"indentation indicator", "    description: |2\n       first\n", "      ---\n", "      last\n"},
		{"literal, --- at column 0", "    description: |\n      first\n", "---\n", "      last\n"},
		{"literal, --- at column 0 and a document after it", "    description: |\n      first\n", "---\n",
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cut\n  annotations:\n"},
		{"literal, --- and text at column 0", "    description: |\n      first\n", "--- last\n", ""},
		{"plain, --- at column 0", "    description: first\n", "---\n", "      last\n"},
		{"quoted, --- at column 0", "    description: \"first\n", "---\n", "      last\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The annotation goes into the document holding the middle of
			// the file, with lines of text before the "---" until that line
			// is the first candidate for a cut after the middle.
			var b []byte
			var dash int // offset of the "---" line in b
			filler := ""
			for {
				text := tc.head + filler + tc.dash + tc.tail
				mid := (len(src) + len(text)) / 2
				start := bytes.LastIndex(src[:mid], []byte("\n---\n"))
				at := start + bytes.Index(src[start:], []byte("\n  annotations:\n")) + len("\n  annotations:\n")
				if dash = at + len(tc.head) + len(filler); dash >= mid {
					b = append(append(append([]byte(nil), src[:at]...), text...), src[at:]...)
					break
				}
				filler += "      more text\n"
			}
			cuts := snapshot.DocumentCuts(b, 2)
			if column0 := tc.dash[0] == '-'; len(cuts) != 1 || column0 && cuts[0] != dash || !column0 && cuts[0] <= dash {
				t.Fatalf("cut at %v; the --- line is at %d", cuts, dash)
			}
			var whole, parts snapshot.Parsed
			werr := whole.ParseTenancy("t.yaml", b)
			perr := snapshot.ParseFile(&parts, "t.yaml", b)
			switch {
			case (werr == nil) != (perr == nil) || werr != nil && werr.Error() != perr.Error():
				t.Fatalf("parts: %v, whole: %v", perr, werr)
			case werr == nil && !reflect.DeepEqual(whole, parts):
				t.Fatal("the parts differ from the whole")
			}
		})
	}
}
