package yamledit

import (
	"bytes"
	"cmp"
	"slices"
	"sort"

	"github.com/krmplan/krmplan/internal/cores"
	"github.com/krmplan/krmplan/internal/yamlsrc"
)

// chunk is a range of a tenancy file that starts at a "---" line (or at
// the file's start) and ends before the next one, and its documents once
// parsed. A file that yaml.v3 reads is cut only between documents there
// (yamlsrc.DocumentMarkers, which cuts where the reader does), so a chunk parses alone to the documents the
// whole file has in that range.
type chunk struct {
	start, end int // byte range
	line       int // 1-based line of start
	docs       []*yamlDoc
	parsed     bool
}

// objEntry is one object of an edited kind in a tenancy file: where its
// document starts (its first key's line, Origin.Line), and its spec.parent
// (a project's department).
type objEntry struct {
	kind, name, parent string
	file               string
	line               int
}

func (e objEntry) key() ID { return ID{e.kind, e.name} }

// lazyFile is a tenancy file cut into chunks and not parsed yet.
func lazyFile(path string, src []byte) *File {
	f := newYAMLFile(path, src)
	start := 0
	for _, m := range append(yamlsrc.DocumentMarkers(src), len(src)) {
		f.chunks = append(f.chunks, chunk{start: start, end: m, line: f.LineOf(start)})
		start = m
	}
	return f
}

// HasDirective reports a line that starts with "%" (%YAML, %TAG): a
// directive applies to the document after it, across a chunk's end, so a
// file with one is parsed whole.
func HasDirective(src []byte) bool {
	return bytes.HasPrefix(src, []byte("%")) || bytes.Contains(src, []byte("\n%"))
}

// chunkAt is the index of the chunk that holds byte offset off (the last
// chunk for the end of the file).
func (f *File) chunkAt(off int) int {
	i := sort.Search(len(f.chunks), func(i int) bool { return f.chunks[i].start > off })
	return max(i-1, 0)
}

// chunkOfLine is the index of the chunk that holds line l.
func (f *File) chunkOfLine(l int) int {
	i := sort.Search(len(f.chunks), func(i int) bool { return f.chunks[i].line > l })
	return max(i-1, 0)
}

// chunkDocs parses chunk i once. When a chunk does not parse alone, the
// whole file is parsed: its error is the one a reading from the start
// finds, and without an error its documents are shared out to the chunks.
func (f *File) chunkDocs(i int) ([]*yamlDoc, error) {
	c := &f.chunks[i]
	if c.parsed {
		return c.docs, nil
	}
	docs, err := f.decode(c.start, c.end, c.line)
	if err == nil {
		c.docs, c.parsed = docs, true
		return docs, nil
	}
	whole, err := Parse(f.path, f.src)
	if err != nil {
		return nil, err
	}
	for j := range f.chunks {
		f.chunks[j].docs, f.chunks[j].parsed = nil, true
	}
	for _, d := range whole.chunks[0].docs {
		j := f.chunkOfLine(d.firstLine)
		f.chunks[j].docs = append(f.chunks[j].docs, d)
	}
	return f.chunks[i].docs, nil
}

// allDocs parses every chunk and returns the file's documents in order.
func (f *File) allDocs() ([]*yamlDoc, error) {
	var out []*yamlDoc
	for i := range f.chunks {
		docs, err := f.chunkDocs(i)
		if err != nil {
			return nil, err
		}
		out = append(out, docs...)
	}
	return out, nil
}

// docAt returns the document of f whose first key is on line l, nil when
// none starts there.
func (f *File) docAt(l int) (*yamlDoc, error) {
	docs, err := f.chunkDocs(f.chunkOfLine(l))
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		if d.firstLine == l {
			return d, nil
		}
	}
	return nil, nil
}

// edited reports whether d is the document of an object of an edited kind.
func (ts *Set) edited(d *yamlDoc) bool {
	return d.apiVersion == ts.schema.APIVersion && ts.schema.edits(d.kind)
}

// eachDoc calls fn with the documents of an edited kind of file first,
// then those of the other files in order, parsing chunks as it goes,
// until fn returns true.
func (ts *Set) eachDoc(first *File, fn func(*File, *yamlDoc) bool) error {
	files := []*File{first}
	for _, p := range ts.order {
		if g := ts.files[p]; g != first {
			files = append(files, g)
		}
	}
	for _, g := range files {
		for i := range g.chunks {
			docs, err := g.chunkDocs(i)
			if err != nil {
				return err
			}
			for _, d := range docs {
				if ts.edited(d) && fn(g, d) {
					return nil
				}
			}
		}
	}
	return nil
}

// findNeighbour returns the first node of role r (see neighbours order:
// file's documents first) for which ok holds; ok() is false when none does.
func (ts *Set) findNeighbour(r string, file *File, ok func(like) bool) (like, error) {
	var found like
	err := ts.eachDoc(file, func(g *File, d *yamlDoc) bool {
		for _, n := range roleNodes(d.root, r) {
			if l := (like{f: g, n: n}); ok(l) {
				found = l
				return true
			}
		}
		return false
	})
	return found, err
}

// docEntries lists the objects of an edited kind of parsed documents.
func (ts *Set) docEntries(path string, docs []*yamlDoc) []objEntry {
	var out []objEntry
	for _, d := range docs {
		if !ts.edited(d) {
			continue
		}
		e := objEntry{kind: d.kind, name: d.name, file: path, line: d.firstLine}
		if ts.schema.Parent[d.kind] != "" {
			e.parent = scalarOf(MapGet(MapGet(d.root, "spec"), "parent"))
		}
		out = append(out, e)
	}
	return out
}

// sortEntries puts entries in file order: by the file's place in order,
// then by line (no two documents start on one line of a file).
func sortEntries(es []objEntry, order []string) {
	rank := make(map[string]int, len(order))
	for i, p := range order {
		rank[p] = i
	}
	// Sorted by small keys, each file's rank looked up once: a snapshot
	// of 10,000 projects lists them by kind.
	type key struct{ file, line, i int }
	keys := make([]key, len(es))
	for i, e := range es {
		keys[i] = key{rank[e.file], e.line, i}
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line), cmp.Compare(a.i, b.i))
	})
	sorted := make([]objEntry, len(es))
	for j, k := range keys {
		sorted[j] = es[k.i]
	}
	copy(es, sorted)
}

// object returns the document of entry e, checked to be that object: nil
// when the document at e's line is not (the file changed).
func (ts *Set) object(e objEntry) (*File, *yamlDoc, error) {
	f := ts.files[e.file]
	d, err := f.docAt(e.line)
	if err != nil || d == nil {
		return f, nil, err
	}
	if d.apiVersion != ts.schema.APIVersion || d.kind != e.kind || d.name != e.name {
		return f, nil, nil
	}
	return f, d, nil
}

// entriesOf lists the entries of kind in file path, in order.
func (ts *Set) entriesOf(kind, path string) []objEntry {
	var out []objEntry
	for _, e := range ts.index {
		if e.kind == kind && e.file == path {
			out = append(out, e)
		}
	}
	return out
}

// prefetch parses at the same time, one worker per core, the chunks that
// hold the objects of changes: a plan that changes hundreds of objects
// edits as many documents, which Edits then reads one by one. A
// chunk that does not parse alone is left to chunkDocs, whose error is the
// one a reading of the whole file finds.
func (ts *Set) prefetch(changes []Change) {
	type want struct {
		f *File
		i int
	}
	var wants []want
	seen := map[want]bool{}
	for _, c := range changes {
		e, ok := ts.byKey[c.ID]
		if !ok {
			continue // a new object
		}
		f := ts.files[e.file]
		w := want{f, f.chunkOfLine(e.line)}
		if !f.chunks[w.i].parsed && !seen[w] {
			seen[w] = true
			wants = append(wants, w)
		}
	}
	docs := make([][]*yamlDoc, len(wants))
	parsed := make([]bool, len(wants))
	cores.Each(len(wants), func(k int) {
		c := wants[k].f.chunks[wants[k].i]
		d, err := wants[k].f.decode(c.start, c.end, c.line)
		docs[k], parsed[k] = d, err == nil
	})
	for k, w := range wants {
		if parsed[k] {
			w.f.chunks[w.i].docs, w.f.chunks[w.i].parsed = docs[k], true
		}
	}
}
