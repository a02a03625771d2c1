package commit

import (
	"github.com/krmplan/krmplan/internal/cores"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/render/yamledit"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// changedObjects is the set of the objects the plan changes or adds.
func changedObjects(p *planner.Plan) map[tenancy.ObjectAddr]bool {
	out := make(map[tenancy.ObjectAddr]bool, len(p.Changes))
	for i := range p.Changes {
		out[p.Changes[i].Object()] = true
	}
	return out
}

// verifyTouched vouches, without parsing what the splice did not touch,
// that the spliced tenancy files out parse to exactly the plan's target:
// the files' untouched chunks are byte for byte the source's, so they hold
// the snapshot's objects (which read those bytes) and no change is among
// them; each run of touched chunks, parsed alone, holds exactly the
// objects the source had there and the new objects placed in the file,
// each declared once and equal to its target (yamledit's Touched). It
// works only on a set whose files the snapshot read (or parsed whole), and
// returns false when it cannot vouch: then checkTarget parses everything
// and names the problem. objs holds targets already computed (those of
// the changed objects).
func verifyTouched(p *planner.Plan, ts *yamledit.Set, objs specs, out map[string][]byte, spans map[string][]yamledit.Span) bool {
	runs, ids, ok := ts.Touched(out, spans)
	if !ok {
		return false
	}
	expected := make(map[tenancy.ObjectAddr]bool, len(ids))
	for id := range ids {
		k, err := tenancy.ParseKind(id.Kind)
		if err != nil {
			return false
		}
		expected[k.Object(id.Name)] = true
	}
	// The runs are whole documents, independent of each other: parse them
	// on every core, then collect their objects in file order.
	found := specs{}
	parsed := make([]snapshot.Parsed, len(runs))
	errs := make([]error, len(runs))
	cores.Each(len(runs), func(k int) { errs[k] = parsed[k].ParseTenancy(runs[k].Path, runs[k].Src) })
	for k := range runs {
		if errs[k] != nil || addSpecs(found, &parsed[k].Tenancy, nil) != nil {
			return false
		}
	}
	if len(found) != len(expected) {
		return false
	}
	for a := range changedObjects(p) {
		if !expected[a] {
			return false
		}
	}
	missing := map[tenancy.ObjectAddr]bool{}
	for a := range expected {
		if _, ok := objs[a]; !ok {
			missing[a] = true
		}
	}
	more := targetSpecs(p, missing)
	for a, spec := range found {
		want, ok := objs[a]
		if !ok {
			want, ok = more[a]
		}
		if !expected[a] || !ok || want != spec {
			return false
		}
	}
	return true
}
