package render

import (
	"bytes"
	"cmp"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
)

// chunk is a range of a tenancy file that starts at a "---" line (or at
// the file's start) and ends before the next one, and its documents once
// parsed. A file that yaml.v3 reads is cut only between documents there
// (snapshot.DocumentMarkers), so a chunk parses alone to the documents the
// whole file has in that range.
type chunk struct {
	start, end int // byte range
	line       int // 1-based line of start
	docs       []*yamlDoc
	parsed     bool
}

// objEntry is one KRM object of a plan kind in a tenancy file: where its
// document starts (its first key's line, snapshot.Origin.Line), and the
// name of a project's department.
type objEntry struct {
	kind, name, parent string
	file               string
	line               int
}

func (e objEntry) key() string { return snapshot.ObjectKey(e.kind, e.name) }

// lazyFile is a tenancy file cut into chunks and not parsed yet.
func lazyFile(path string, src []byte) *yamlFile {
	f := newYAMLFile(path, src)
	start := 0
	for _, m := range append(snapshot.DocumentMarkers(src), len(src)) {
		f.chunks = append(f.chunks, chunk{start: start, end: m, line: f.lineOf(start)})
		start = m
	}
	return f
}

// hasDirective reports a line that starts with "%" (%YAML, %TAG): a
// directive applies to the document after it, across a chunk's end, so a
// file with one is parsed whole.
func hasDirective(src []byte) bool {
	return bytes.HasPrefix(src, []byte("%")) || bytes.Contains(src, []byte("\n%"))
}

// chunkAt is the index of the chunk that holds byte offset off (the last
// chunk for the end of the file).
func (f *yamlFile) chunkAt(off int) int {
	i := sort.Search(len(f.chunks), func(i int) bool { return f.chunks[i].start > off })
	return max(i-1, 0)
}

// chunkOfLine is the index of the chunk that holds line l.
func (f *yamlFile) chunkOfLine(l int) int {
	i := sort.Search(len(f.chunks), func(i int) bool { return f.chunks[i].line > l })
	return max(i-1, 0)
}

// chunkDocs parses chunk i once. When a chunk does not parse alone, the
// whole file is parsed: its error is the one a reading from the start
// finds, and without an error its documents are shared out to the chunks.
func (f *yamlFile) chunkDocs(i int) ([]*yamlDoc, error) {
	c := &f.chunks[i]
	if c.parsed {
		return c.docs, nil
	}
	docs, err := f.decode(c.start, c.end, c.line)
	if err == nil {
		c.docs, c.parsed = docs, true
		return docs, nil
	}
	whole, err := parseYAMLFile(f.path, f.src)
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
func (f *yamlFile) allDocs() ([]*yamlDoc, error) {
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
func (f *yamlFile) docAt(l int) (*yamlDoc, error) {
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

// eachDoc calls fn with the KRM documents of a plan kind of file first,
// then those of the other files in order, parsing chunks as it goes,
// until fn returns true.
func (ts *tenancySet) eachDoc(first *yamlFile, fn func(*yamlFile, *yamlDoc) bool) error {
	files := []*yamlFile{first}
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
				if d.apiVersion == snapshot.KRMAPIVersion && isPlanKind(d.kind) && fn(g, d) {
					return nil
				}
			}
		}
	}
	return nil
}

// findNeighbour returns the first node of role r (see neighbours order:
// file's documents first) for which ok holds; ok() is false when none does.
func (ts *tenancySet) findNeighbour(r string, file *yamlFile, ok func(like) bool) (like, error) {
	var found like
	err := ts.eachDoc(file, func(g *yamlFile, d *yamlDoc) bool {
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

// docEntries lists the KRM objects of a plan kind of parsed documents.
func docEntries(path string, docs []*yamlDoc) []objEntry {
	var out []objEntry
	for _, d := range docs {
		if d.apiVersion != snapshot.KRMAPIVersion || !isPlanKind(d.kind) {
			continue
		}
		e := objEntry{kind: d.kind, name: d.name, file: path, line: d.firstLine}
		if d.kind == planner.KindProject {
			e.parent = scalarOf(mapGet(mapGet(d.root, "spec"), "parent"))
		}
		out = append(out, e)
	}
	return out
}

// snapshotEntries lists the snapshot's objects written in the files lazy
// holds: the snapshot read those very bytes (their blobs match), so its
// origins say where every object's document starts without parsing it.
func snapshotEntries(s *snapshot.State, lazy map[string]bool) []objEntry {
	var out []objEntry
	add := func(kind, name, parent string, o *snapshot.Origin) {
		if o != nil && lazy[o.File] {
			out = append(out, objEntry{kind: kind, name: name, parent: parent, file: o.File, line: o.Line})
		}
	}
	for _, o := range s.NodePools {
		add(planner.KindNodePool, o.Metadata.Name, "", o.Origin)
	}
	for _, o := range s.Departments {
		add(planner.KindDepartment, o.Metadata.Name, "", o.Origin)
	}
	for _, o := range s.Projects {
		add(planner.KindProject, o.Metadata.Name, o.Spec.Parent, o.Origin)
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
	slices.SortFunc(es, func(a, b objEntry) int {
		return cmp.Or(cmp.Compare(rank[a.file], rank[b.file]), cmp.Compare(a.line, b.line))
	})
}

// object returns the document of entry e, checked to be that object: nil
// when the document at e's line is not (the file changed).
func (ts *tenancySet) object(e objEntry) (*yamlFile, *yamlDoc, error) {
	f := ts.files[e.file]
	d, err := f.docAt(e.line)
	if err != nil || d == nil {
		return f, nil, err
	}
	if d.apiVersion != snapshot.KRMAPIVersion || d.kind != e.kind || d.name != e.name {
		return f, nil, nil
	}
	return f, d, nil
}

// entriesOf lists the entries of kind in file path, in order.
func (ts *tenancySet) entriesOf(kind, path string) []objEntry {
	var out []objEntry
	for _, e := range ts.index {
		if e.kind == kind && e.file == path {
			out = append(out, e)
		}
	}
	return out
}

// prefetch parses at the same time, one worker per core, the chunks that
// hold the changed objects of p: a plan that changes hundreds of objects
// edits as many documents, which tenancyEdits then reads one by one. A
// chunk that does not parse alone is left to chunkDocs, whose error is the
// one a reading of the whole file finds.
func (ts *tenancySet) prefetch(p *planner.Plan) {
	type want struct {
		f *yamlFile
		i int
	}
	var wants []want
	seen := map[want]bool{}
	for k := range changedKeys(p) {
		e, ok := ts.byKey[k]
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
	onCores(len(wants), func(k int) {
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

// onCores calls fn(0), …, fn(n-1) on one goroutine per core and returns
// when all have returned. fn must only write to its own index's results.
func onCores(n int, fn func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < n; k = int(next.Add(1) - 1) {
				fn(k)
			}
		})
	}
	wg.Wait()
}
