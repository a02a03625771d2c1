package yamledit

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// syncAnnotations are the annotations a new object copies from its
// neighbour of the same kind (never argocd.argoproj.io/tracking-id, which
// names the neighbour's own Application).
var syncAnnotations = []string{"argocd.argoproj.io/sync-wave", "argocd.argoproj.io/sync-options"}

// newDocument writes a new object as a document after the last object of
// its kind, in the file that holds its kind (or the placement file),
// styled like its neighbour. It returns the file and the insertion.
func (ts *Set) newDocument(id ID, cs []Change) (string, Edit, error) {
	what := strings.ToLower(id.Kind) + " " + id.Name
	spec, parent, err := newSpec(cs)
	if err != nil {
		return "", Edit{}, err
	}
	file := ""
	if len(cs) > 0 && cs[0].File != "" {
		file = cs[0].File // named by the caller
		if ts.files[file] == nil {
			ts.addCreated(file)
		}
	} else if file, err = ts.fileFor(id.Kind, id.Name, parent); err != nil {
		return "", Edit{}, err
	}
	f := ts.files[file]
	nb, nbDoc, style, err := ts.neighbour(id.Kind, file)
	if err != nil {
		return "", Edit{}, err
	}
	lines := blockMap(ts.documentTree(id, spec, nb, nbDoc), style, 0)
	if f == nil {
		return "", Edit{}, fmt.Errorf("no file for %s", what)
	}
	e, err := ts.placeDocument(f, id.Kind, lines, what)
	return file, e, err
}

// newSpec is the spec of a new object, from its changes below /spec, and
// the parent it names (spec.parent).
func newSpec(cs []Change) (spec *tnode, parent string, err error) {
	spec = newMap()
	for _, c := range cs {
		segs := SplitPointer(c.Pointer)
		if len(segs) == 0 || segs[0] != "spec" {
			continue
		}
		if err := spec.set(segs[1:], c.Value); err != nil {
			return nil, "", fmt.Errorf("%s: %w", c.What, err)
		}
		if c.Pointer == "/spec/parent" {
			_ = json.Unmarshal(c.Value, &parent)
		}
	}
	return spec, parent, nil
}

// neighbour finds the document a new object of kind in file copies: the
// last object of the kind, in file first (nb, with its document nbDoc);
// style is nb, or without one any object's document, which lends its
// layout.
func (ts *Set) neighbour(kind, file string) (nb like, nbDoc *yamlDoc, style like, err error) {
	var nbE, anyE *objEntry
	for _, p := range append([]string{file}, ts.order...) {
		for i := range ts.index {
			if e := &ts.index[i]; e.file == p {
				if e.kind == kind {
					nbE = e
				}
				if anyE == nil {
					anyE = e
				}
			}
		}
		if nbE != nil {
			break
		}
	}
	var anyDoc like
	for _, e := range []*objEntry{nbE, anyE} {
		if e == nil || (e == anyE && nbDoc != nil) {
			continue
		}
		g, d, err := ts.object(*e)
		if err != nil {
			return like{}, nil, like{}, err
		}
		if d == nil || d.root.Kind != yaml.MappingNode {
			return like{}, nil, like{}, &Error{File: e.file, Line: e.line, Msg: fmt.Sprintf("%s %s is not in this file at the snapshot's commit any more: the file changed since the snapshot; take a new snapshot and plan again", e.kind, e.name)}
		}
		if e == nbE {
			nb, nbDoc = like{f: g, n: d.root}, d
		} else {
			anyDoc = like{f: g, n: d.root}
		}
	}
	style = nb
	if !style.ok() {
		style = anyDoc
	}
	return nb, nbDoc, style, nil
}

// documentTree is the whole new document: apiVersion, kind, metadata (the
// name, and the neighbour's sync annotations as written), spec.
func (ts *Set) documentTree(id ID, spec *tnode, nb like, nbDoc *yamlDoc) *tnode {
	doc := newMap()
	apiV, _ := fromJSON([]byte(strconvQuote(ts.schema.APIVersion)))
	doc.put("apiVersion", apiV)
	kt, _ := fromJSON([]byte(strconvQuote(id.Kind)))
	doc.put("kind", kt)
	meta := newMap()
	nt, _ := fromJSON([]byte(strconvQuote(id.Name)))
	meta.put("name", nt)
	if nbDoc != nil {
		if am := syncAnnotationsOf(nb); len(am.keys) > 0 {
			meta.put("annotations", am)
		}
	}
	doc.put("metadata", meta)
	doc.put("spec", spec)
	return doc
}

// syncAnnotationsOf copies the neighbour's sync annotations, their values
// as written.
func syncAnnotationsOf(nb like) *tnode {
	am := newMap()
	ann := MapGet(MapGet(nb.n, "metadata"), "annotations")
	if ann == nil || ann.Kind != yaml.MappingNode {
		return am
	}
	for i := 0; i+1 < len(ann.Content); i += 2 {
		k, v := ann.Content[i], ann.Content[i+1]
		for _, want := range syncAnnotations {
			if k.Value == want && v.Kind == yaml.ScalarNode {
				if end, err := nb.f.TokenEnd(v); err == nil {
					am.put(k.Value, &tnode{kind: yaml.ScalarNode, raw: string(nb.f.src[nb.f.Offset(v):end])})
				}
			}
		}
	}
	return am
}

// placeDocument inserts the lines of a new document of kind into f: after
// the last document of this kind, else after the last one of an earlier
// kind, else in front of the first document (at the end of a file without
// one).
func (ts *Set) placeDocument(f *File, kind string, lines []string, what string) (Edit, error) {
	var after *yamlDoc
	if es := ts.entriesOf(kind, f.path); len(es) > 0 {
		_, d, err := ts.object(es[len(es)-1])
		if err != nil {
			return Edit{}, err
		}
		after = d
	}
	if after != nil {
		return insertAfterLine(f, after.lastLine, append([]string{"---"}, lines...), what), nil
	}
	docs, err := f.allDocs()
	if err != nil {
		return Edit{}, err
	}
	if len(docs) == 0 {
		text := strings.Join(lines, f.eol) + f.eol
		if len(f.src) > 0 && f.src[len(f.src)-1] != '\n' {
			text = f.eol + "---" + f.eol + text
		} else if len(f.src) > 0 {
			text = "---" + f.eol + text
		}
		return Edit{File: f.path, Line: f.Lines() + 1, Start: len(f.src), End: len(f.src), New: text, What: what}, nil
	}
	for _, d := range docs {
		if d.kind == kind && d.apiVersion == ts.schema.APIVersion {
			after = d
		}
	}
	if after == nil {
		for _, d := range docs {
			if ts.schema.rank(d.kind) <= ts.schema.rank(kind) {
				after = d
			}
		}
	}
	if after == nil {
		first := docs[0]
		at := f.LineStart(first.firstLine)
		return Edit{File: f.path, Line: first.firstLine, Start: at, End: at, New: strings.Join(append(lines, "---"), f.eol) + f.eol, What: what}, nil
	}
	return insertAfterLine(f, after.lastLine, append([]string{"---"}, lines...), what), nil
}
