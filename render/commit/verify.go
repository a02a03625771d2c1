package commit

import (
	"github.com/krmplan/krmplan/internal/cores"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/render/yamledit"
	"github.com/krmplan/krmplan/snapshot"
)

// changedKeys is the set of the objects the plan changes or adds.
func changedKeys(p *planner.Plan) map[string]bool {
	out := make(map[string]bool, len(p.Changes))
	for _, c := range p.Changes {
		out[snapshot.ObjectKey(c.Kind, c.Object)] = true
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
func verifyTouched(p *planner.Plan, ts *yamledit.Set, objs map[string]string, out map[string][]byte, spans map[string][]yamledit.Span) bool {
	runs, ids, ok := ts.Touched(out, spans)
	if !ok {
		return false
	}
	expected := make(map[string]bool, len(ids))
	for id := range ids {
		expected[snapshot.ObjectKey(id.Kind, id.Name)] = true
	}
	// The runs are whole documents, independent of each other: parse them
	// on every core, then collect their objects in file order.
	found := map[string]string{}
	parsed := make([]snapshot.Tenancy, len(runs))
	errs := make([]error, len(runs))
	cores.Each(len(runs), func(k int) { errs[k] = parsed[k].ParseTenancy(runs[k].Path, runs[k].Src) })
	for k := range runs {
		if errs[k] != nil || !foundObjects(&parsed[k], found) {
			return false
		}
	}
	if len(found) != len(expected) {
		return false
	}
	for k := range changedKeys(p) {
		if !expected[k] {
			return false
		}
	}
	missing := map[string]bool{}
	for k := range expected {
		if _, ok := objs[k]; !ok {
			missing[k] = true
		}
	}
	more, err := targetObjects(p, missing)
	if err != nil {
		return false
	}
	for k, spec := range found {
		want, ok := objs[k]
		if !ok {
			want, ok = more[k]
		}
		if !expected[k] || !ok || want != spec {
			return false
		}
	}
	return true
}

// foundObjects adds the canonical spec of every object of t to found by
// objectKey; false when one is there already (declared twice) or does not
// convert.
func foundObjects(t *snapshot.Tenancy, found map[string]string) bool {
	put := func(kind, name string, spec any) bool {
		k := snapshot.ObjectKey(kind, name)
		if _, dup := found[k]; dup {
			return false
		}
		c, err := canonicalSpec(kind, spec)
		found[k] = c
		return err == nil
	}
	for _, o := range t.NodePools {
		if !put(planner.KindNodePool, o.Metadata.Name, o.Spec) {
			return false
		}
	}
	for _, o := range t.Departments {
		if !put(planner.KindDepartment, o.Metadata.Name, o.Spec) {
			return false
		}
	}
	for _, o := range t.Projects {
		if !put(planner.KindProject, o.Metadata.Name, o.Spec) {
			return false
		}
	}
	return true
}
