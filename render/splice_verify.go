package render

import (
	"bytes"

	"github.com/krmplan/krmplan/planner"
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

// touchedChunks marks the chunks of f that the spans of its splice reach,
// with both chunks around a span at a chunk's edge (an insertion there,
// or a value that ends on it): every span lies inside a run of touched
// chunks, none on the edge of one.
func touchedChunks(f *yamlFile, spans []span) []bool {
	touched := make([]bool, len(f.chunks))
	for _, sp := range spans {
		lo := f.chunkAt(max(sp.Start-1, 0))
		hi := f.chunkAt(min(sp.End, max(len(f.src)-1, 0)))
		for i := lo; i <= hi; i++ {
			touched[i] = true
		}
	}
	return touched
}

// anchorIn reports whether a touched chunk of f may hold a YAML anchor
// (any "&" byte, in a comment or a string too): yaml.v3 lets an alias in a
// later document name it, so an edit under it may change an untouched
// document, which only the whole check sees.
func anchorIn(f *yamlFile, touched []bool) bool {
	for i, c := range f.chunks {
		if touched[i] && bytes.IndexByte(f.src[c.start:c.end], '&') >= 0 {
			return true
		}
	}
	return false
}

// touchesAnchor reports whether an edited chunk of a file may hold a YAML
// anchor (anchorIn).
func (ts *tenancySet) touchesAnchor(spans map[string][]span) bool {
	for path, sps := range spans {
		if f := ts.files[path]; f != nil && len(sps) > 0 && anchorIn(f, touchedChunks(f, sps)) {
			return true
		}
	}
	return false
}

// verifyTouched vouches, without parsing what the splice did not touch,
// that the spliced tenancy files out parse to exactly the plan's target:
// the files' untouched chunks are byte for byte the source's, so they hold
// the snapshot's objects (which read those bytes) and no change is among
// them; each run of touched chunks, parsed alone, holds exactly the
// objects the source had there and the new objects placed in the file,
// each declared once and equal to its target. It works only on a set whose
// files the snapshot read (or parsed whole), and returns false when it
// cannot vouch: then checkTarget parses everything and names the problem.
// objs holds targets already computed (those of the changed objects).
func (ts *tenancySet) verifyTouched(p *planner.Plan, objs map[string]string, out map[string][]byte, spans map[string][]span) bool {
	found := map[string]string{}
	expected := map[string]bool{}
	// run is a range of touched chunks of a file as the splice wrote it.
	type run struct {
		path string
		src  []byte
	}
	var runs []run
	for _, path := range ts.order {
		f := ts.files[path]
		newSrc, edited := out[path], len(spans[path]) > 0
		if !edited {
			if ts.created[path] {
				return false // a created file that nothing was written to
			}
			continue
		}
		touched := touchedChunks(f, spans[path])
		if anchorIn(f, touched) {
			return false
		}
		for _, e := range ts.index {
			if e.file == path && touched[f.chunkOfLine(e.line)] {
				if e.name == "" {
					return false
				}
				expected[e.key()] = true
			}
		}
		for _, k := range ts.placed[path] {
			expected[k] = true
		}
		// shift is how far the output has moved at the next chunk's start.
		shift, next := 0, 0
		sps := spans[path]
		for i := 0; i < len(f.chunks); {
			c := f.chunks[i]
			if !touched[i] {
				if !bytes.Equal(f.src[c.start:c.end], newSrc[c.start+shift:min(c.end+shift, len(newSrc))]) {
					return false
				}
				i++
				continue
			}
			j := i
			for j+1 < len(f.chunks) && touched[j+1] {
				j++
			}
			end := f.chunks[j].end
			from := c.start + shift
			for ; next < len(sps) && (sps[next].Start < end || end == len(f.src)); next++ {
				shift += (sps[next].OutEnd - sps[next].OutStart) - (sps[next].End - sps[next].Start)
			}
			if end+shift > len(newSrc) {
				return false
			}
			runs = append(runs, run{path, newSrc[from : end+shift]})
			i = j + 1
		}
		if len(f.src)+shift != len(newSrc) {
			return false
		}
	}
	// The runs are whole documents, independent of each other: parse them
	// on every core, then collect their objects in file order.
	parsed := make([]snapshot.Tenancy, len(runs))
	errs := make([]error, len(runs))
	onCores(len(runs), func(k int) { errs[k] = parsed[k].ParseTenancy(runs[k].path, runs[k].src) })
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
