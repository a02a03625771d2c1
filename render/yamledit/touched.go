package yamledit

import "bytes"

// touchedChunks marks the chunks of f that the spans of its splice reach,
// with both chunks around a span at a chunk's edge (an insertion there,
// or a value that ends on it): every span lies inside a run of touched
// chunks, none on the edge of one.
func touchedChunks(f *File, spans []Span) []bool {
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
// document, which only a whole check sees.
func anchorIn(f *File, touched []bool) bool {
	for i, c := range f.chunks {
		if touched[i] && bytes.IndexByte(f.src[c.start:c.end], '&') >= 0 {
			return true
		}
	}
	return false
}

// TouchesAnchor reports whether an edited chunk of a file may hold a YAML
// anchor, which an alias in another document may share: then only a parse
// of everything sees what the edits did.
func (ts *Set) TouchesAnchor(spans map[string][]Span) bool {
	for path, sps := range spans {
		if f := ts.files[path]; f != nil && len(sps) > 0 && anchorIn(f, touchedChunks(f, sps)) {
			return true
		}
	}
	return false
}

// Run is a range of whole documents of a file as the splice wrote it.
type Run struct {
	Path string
	Src  []byte
}

// Touched cuts the spliced files out (by path; spans are the splice's, by
// path) into what a check must parse: the runs of chunks that the spans
// reach, each whole documents that parse alone, and the objects that must
// be found in them (those the source had there but Remove did not take
// out, and the new objects the edits placed in those files; a file that
// Remove deletes is skipped). Everything else of out is checked to be
// byte for byte the source's, so it holds the objects the reader found.
// ok is false when it cannot vouch for that cheaply: a created file that
// nothing was written to, an anchor in a touched chunk, an object without
// a name there, bytes outside the spans that changed, lengths that do not
// add up.
func (ts *Set) Touched(out map[string][]byte, spans map[string][]Span) (runs []Run, expected map[ID]bool, ok bool) {
	expected = map[ID]bool{}
	for _, path := range ts.order {
		f := ts.files[path]
		if ts.deleted[path] {
			continue // it held only objects that were removed
		}
		newSrc, edited := out[path], len(spans[path]) > 0
		if !edited {
			if ts.created[path] {
				return nil, nil, false // a created file that nothing was written to
			}
			continue
		}
		touched := touchedChunks(f, spans[path])
		if anchorIn(f, touched) {
			return nil, nil, false
		}
		for _, e := range ts.index {
			if e.file == path && touched[f.chunkOfLine(e.line)] && !ts.removed[e.key()] {
				if e.name == "" {
					return nil, nil, false
				}
				expected[e.key()] = true
			}
		}
		for _, k := range ts.placed[path] {
			expected[k] = true
		}
		fileRuns, ok := f.touchedRuns(newSrc, touched, spans[path])
		if !ok {
			return nil, nil, false
		}
		runs = append(runs, fileRuns...)
	}
	return runs, expected, true
}

// touchedRuns checks that the untouched chunks of f are unchanged in
// newSrc and returns the runs of touched chunks as newSrc has them.
func (f *File) touchedRuns(newSrc []byte, touched []bool, sps []Span) ([]Run, bool) {
	var runs []Run
	// shift is how far the output has moved at the next chunk's start.
	shift, next := 0, 0
	for i := 0; i < len(f.chunks); {
		c := f.chunks[i]
		if !touched[i] {
			if !bytes.Equal(f.src[c.start:c.end], newSrc[c.start+shift:min(c.end+shift, len(newSrc))]) {
				return nil, false
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
			return nil, false
		}
		runs = append(runs, Run{f.path, newSrc[from : end+shift]})
		i = j + 1
	}
	if len(f.src)+shift != len(newSrc) {
		return nil, false
	}
	return runs, true
}

// Chunk is one range of a file that a Set cut at its "---" lines: its
// bytes, whether its documents are parsed yet, and whether spans reach it.
type Chunk struct {
	Start, End int
	Parsed     bool
	Touched    bool
}

// Chunks describes how the Set holds the file path, and which chunks the
// spans of its splice touch: what a check or a test asks of the lazy
// parse. Nil for a file the Set does not hold.
func (ts *Set) Chunks(path string, spans []Span) []Chunk {
	f := ts.files[path]
	if f == nil {
		return nil
	}
	touched := touchedChunks(f, spans)
	out := make([]Chunk, len(f.chunks))
	for i, c := range f.chunks {
		out[i] = Chunk{Start: c.start, End: c.end, Parsed: c.parsed, Touched: touched[i]}
	}
	return out
}
