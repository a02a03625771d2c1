package render

import (
	"reflect"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/gentenancy"
)

// lazySplice splices fx's plan with the snapshot's index (chunks parsed on
// demand) and with every file parsed whole, fails unless both give the
// same edits, and returns the set, the spliced tenancy files and the spans.
func lazySplice(t *testing.T, fx fixture) (*tenancySet, map[string][]byte, map[string][]span) {
	t.Helper()
	var paths []string
	srcs := map[string][]byte{}
	for _, sf := range fx.plan.Snapshot.Source.Files {
		paths = append(paths, sf.Path)
		srcs[sf.Path] = fx.repo[sf.Path]
	}
	var sets [2]*tenancySet
	var edits [2]map[string][]Edit
	for i, s := range []bool{true, false} {
		snap := &fx.plan.Snapshot
		if !s {
			snap = nil
		}
		ts, err := newTenancySet(paths, srcs, snap)
		if err != nil {
			t.Fatal(err)
		}
		if edits[i], err = tenancyEdits(fx.plan, ts, nil); err != nil {
			t.Fatal(err)
		}
		sets[i] = ts
	}
	if !reflect.DeepEqual(edits[0], edits[1]) {
		t.Fatalf("the lazy set edits differently:\n%v\n%v", edits[0], edits[1])
	}
	out, spans := map[string][]byte{}, map[string][]span{}
	for f, b := range srcs {
		out[f] = b
	}
	for f, es := range edits[0] {
		b, sp, err := spliceSpans(srcs[f], es)
		if err != nil {
			t.Fatal(err)
		}
		out[f], spans[f] = b, sp
	}
	return sets[0], out, spans
}

// TestVerifyTouched: the splice of the generated tenancy's moves (many
// documents, few touched) and of a new project and queue is vouched for
// without parsing the untouched documents; a byte changed in an untouched
// document, or a value written wrong in a touched one, is not, and then
// checkTarget names the problem.
func TestVerifyTouched(t *testing.T) {
	g := gentenancy.Generate(gentenancy.Spec{Projects: 96, Seed: gentenancy.BenchSeed})
	src := g.YAML()
	fx := planOn(t, memRepo{gentenancy.TenancyFile: src}, []string{gentenancy.TenancyFile}, string(g.MoveHCL(1))+`
project "research" {
  department = "`+g.Moves()[0].To+`"
  queue "h100" {
    name = "research-h100"
    gpu = { deserved = 0, limit = 2 }
  }
}
`)
	ts, out, spans := lazySplice(t, fx)
	objs, err := targetObjects(fx.plan, changedKeys(fx.plan))
	if err != nil {
		t.Fatal(err)
	}
	if !ts.verifyTouched(fx.plan, objs, out, spans) {
		t.Fatal("the splice is not vouched for")
	}
	f := ts.files[gentenancy.TenancyFile]
	parsed := 0
	for _, c := range f.chunks {
		if c.parsed {
			parsed++
		}
	}
	if parsed > 8 || len(f.chunks) < 90 {
		t.Errorf("%d of %d chunks parsed", parsed, len(f.chunks))
	}
	touched := touchedChunks(f, spans[gentenancy.TenancyFile])
	untouched := -1
	for i, c := range f.chunks {
		if !touched[i] && c.start > 0 {
			untouched = i
			break
		}
	}
	bad := append([]byte(nil), out[gentenancy.TenancyFile]...)
	bad[f.chunks[untouched].start+5] = 'X' // the chunk starts before any edit
	if ts.verifyTouched(fx.plan, objs, map[string][]byte{gentenancy.TenancyFile: bad}, spans) {
		t.Error("a changed byte outside the edits is vouched for")
	}
	s := spans[gentenancy.TenancyFile][0]
	bad = append([]byte(nil), out[gentenancy.TenancyFile]...)
	bad[s.OutStart] = '7'
	if ts.verifyTouched(fx.plan, objs, map[string][]byte{gentenancy.TenancyFile: bad}, spans) {
		t.Error("a wrong value is vouched for")
	}
	all, err := targetObjects(fx.plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkTarget(all, map[string][]byte{gentenancy.TenancyFile: bad}); err == nil || !strings.Contains(err.Error(), "the spliced files would not hold the planned") {
		t.Errorf("checkTarget: %v", err)
	}
}

// TestLazySpliceSample: on the sample tenancy, the lazy set edits exactly
// as the whole parse does, for values, new keys, a new queue and a new
// project, and vouches for the result.
func TestLazySpliceSample(t *testing.T) {
	fx := planOn(t, memRepo{"tenancy.yaml": readSample(t)}, []string{"tenancy.yaml"}, newProjectAndQueue)
	ts, out, spans := lazySplice(t, fx)
	if !ts.verifyTouched(fx.plan, nil, out, spans) {
		t.Fatal("the splice is not vouched for")
	}
}

// TestChunkDocsFallback: a chunk that does not parse alone (a quoted
// value that runs over a "---" line) gives the error of the whole file,
// as parseYAMLFile reports it.
func TestChunkDocsFallback(t *testing.T) {
	src := []byte("a: 1\n---\nb: \"x\n---\ny\"\n")
	f := lazyFile("t.yaml", src)
	if len(f.chunks) != 3 {
		t.Fatalf("%d chunks", len(f.chunks))
	}
	_, want := parseYAMLFile("t.yaml", src)
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
	if hasDirective([]byte("a: 1\n%YAML 1.2\n---\n")) != true || hasDirective([]byte("a: '%x'\n")) {
		t.Error("hasDirective")
	}
}

// holdsBlob knows git's ids of the empty blob in both object formats.
func TestHoldsBlob(t *testing.T) {
	for _, c := range []struct {
		b    string
		id   string
		want bool
	}{
		{"", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", true},
		{"", "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813", true},
		{"x", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", false},
		{"x", "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813", false},
	} {
		if got := holdsBlob([]byte(c.b), c.id); got != c.want {
			t.Errorf("holdsBlob(%q, %s) = %v", c.b, c.id, got)
		}
	}
}
