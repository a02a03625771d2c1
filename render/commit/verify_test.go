package commit

import (
	"reflect"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/render/yamledit"
)

// lazySplice splices fx's plan with the snapshot's index (chunks parsed on
// demand) and with every file parsed whole, fails unless both give the
// same edits, and returns the set, the spliced tenancy files and the spans.
func lazySplice(t *testing.T, fx plantest.Fixture) (*yamledit.Set, map[string][]byte, map[string][]yamledit.Span) {
	t.Helper()
	var paths []string
	srcs := map[string][]byte{}
	for _, sf := range fx.Plan.Snapshot.Source.Files {
		paths = append(paths, sf.Path)
		srcs[sf.Path] = fx.Repo[sf.Path]
	}
	var sets [2]*yamledit.Set
	var edits [2]map[string][]yamledit.Edit
	for i, trusted := range []bool{true, false} {
		ts, err := newSet(fx.Plan.Snapshot, paths, srcs, trusted)
		if err != nil {
			t.Fatal(err)
		}
		if edits[i], err = tenancyEdits(fx.Plan, ts, nil); err != nil {
			t.Fatal(err)
		}
		sets[i] = ts
	}
	if !reflect.DeepEqual(edits[0], edits[1]) {
		t.Fatalf("the lazy set edits differently:\n%v\n%v", edits[0], edits[1])
	}
	out, spans := map[string][]byte{}, map[string][]yamledit.Span{}
	for f, b := range srcs {
		out[f] = b
	}
	for f, es := range edits[0] {
		b, sp, err := yamledit.SpliceSpans(srcs[f], es)
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
	fx := plantest.PlanOn(t, plantest.Repo{gentenancy.TenancyFile: src}, []string{gentenancy.TenancyFile}, string(g.MoveHCL(1))+`
project "research" {
  department = "`+g.Moves()[0].To+`"
  queue "h100" {
    name = "research-h100"
    gpu = { deserved = 0, limit = 2 }
  }
}
`)
	ts, out, spans := lazySplice(t, fx)
	objs := targetSpecs(fx.Plan, changedObjects(fx.Plan))
	if !verifyTouched(fx.Plan, ts, objs, out, spans) {
		t.Fatal("the splice is not vouched for")
	}
	chunks := ts.Chunks(gentenancy.TenancyFile, spans[gentenancy.TenancyFile])
	parsed := 0
	for _, c := range chunks {
		if c.Parsed {
			parsed++
		}
	}
	if parsed > 8 || len(chunks) < 90 {
		t.Errorf("%d of %d chunks parsed", parsed, len(chunks))
	}
	untouched := -1
	for i, c := range chunks {
		if !c.Touched && c.Start > 0 {
			untouched = i
			break
		}
	}
	bad := append([]byte(nil), out[gentenancy.TenancyFile]...)
	bad[chunks[untouched].Start+5] = 'X' // the chunk starts before any edit
	if verifyTouched(fx.Plan, ts, objs, map[string][]byte{gentenancy.TenancyFile: bad}, spans) {
		t.Error("a changed byte outside the edits is vouched for")
	}
	s := spans[gentenancy.TenancyFile][0]
	bad = append([]byte(nil), out[gentenancy.TenancyFile]...)
	bad[s.OutStart] = '7'
	if verifyTouched(fx.Plan, ts, objs, map[string][]byte{gentenancy.TenancyFile: bad}, spans) {
		t.Error("a wrong value is vouched for")
	}
	all := targetSpecs(fx.Plan, nil)
	if err := checkTarget(all, map[string][]byte{gentenancy.TenancyFile: bad}); err == nil || !strings.Contains(err.Error(), "the spliced files would not hold the planned") {
		t.Errorf("checkTarget: %v", err)
	}
}

// TestLazySpliceSample: on the sample tenancy, the lazy set edits exactly
// as the whole parse does, for values, new keys, a new queue and a new
// project, and vouches for the result.
func TestLazySpliceSample(t *testing.T) {
	fx := plantest.PlanOn(t, plantest.Repo{"tenancy.yaml": plantest.Sample(t, "tenancy.yaml")}, []string{"tenancy.yaml"}, newProjectAndQueue)
	ts, out, spans := lazySplice(t, fx)
	if !verifyTouched(fx.Plan, ts, nil, out, spans) {
		t.Fatal("the splice is not vouched for")
	}
}

// parsedChunks counts the chunks of file that ts parsed.
func parsedChunks(ts *yamledit.Set, file string) (parsed, all int) {
	chunks := ts.Chunks(file, nil)
	for _, c := range chunks {
		if c.Parsed {
			parsed++
		}
	}
	return parsed, len(chunks)
}

// TestValueEditsParseNothing: a plan that changes only values the
// snapshot found is spliced from the positions it recorded, without
// parsing a document of the file (lazySplice checks that the edits are
// those of a whole parse); a document with an anchor, an alias or a tag
// byte, even in a comment, is parsed, and edited the same.
func TestValueEditsParseNothing(t *testing.T) {
	g := gentenancy.Generate(gentenancy.Spec{Projects: 96, Seed: gentenancy.BenchSeed})
	src := g.YAML()
	fx := plantest.PlanOn(t, plantest.Repo{gentenancy.TenancyFile: src}, []string{gentenancy.TenancyFile}, string(g.MoveHCL(0)))
	ts, out, spans := lazySplice(t, fx)
	if parsed, all := parsedChunks(ts, gentenancy.TenancyFile); parsed != 0 || all < 90 {
		t.Errorf("%d of %d chunks parsed", parsed, all)
	}
	if !verifyTouched(fx.Plan, ts, targetSpecs(fx.Plan, changedObjects(fx.Plan)), out, spans) {
		t.Error("the splice is not vouched for")
	}
	first := fx.Plan.Changes[0].Object()
	bx, _ := fx.Plan.Indexes()
	origin, _ := bx.Origin(first)
	for _, comment := range []string{"# R&D", "# see *notes*", "# not !!int"} {
		lines := strings.SplitAfter(string(src), "\n")
		lines[origin.Line-1] = comment + "\n" + lines[origin.Line-1]
		marked := []byte(strings.Join(lines, ""))
		fx := plantest.PlanOn(t, plantest.Repo{gentenancy.TenancyFile: marked}, []string{gentenancy.TenancyFile}, string(g.MoveHCL(0)))
		ts, _, _ := lazySplice(t, fx)
		if parsed, _ := parsedChunks(ts, gentenancy.TenancyFile); parsed != 1 {
			t.Errorf("%q before %s: %d chunks parsed, want the one of %s", comment, first, parsed, first)
		}
	}
}
