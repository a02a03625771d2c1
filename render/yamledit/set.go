// Package yamledit is krmplan's YAML editing engine: bytes in, bytes out.
// It changes values at their exact positions (adjusting the padding after
// them so aligned columns and comments stay put), and inserts missing
// keys, new queues and new objects as text in the style of their
// neighbours (flow or block, indentation, aligned columns, key order,
// quoting). It knows the shape of KRM tenancy documents (spec.queues, a
// queue's resources) but nothing of plans or git: callers translate what
// they want into Changes, and a Set answers with Edits by file.
package yamledit

import (
	"encoding/json"
	"sort"
)

// Schema is what a Set is told about the objects it edits.
type Schema struct {
	// APIVersion is the apiVersion of the edited objects' documents
	// ("kai.resources/v1alpha1").
	APIVersion string
	// Kinds are the kinds of the objects a Set indexes and edits.
	Kinds []string
	// Rank orders kinds in a file (pools before departments, say): a new
	// object goes after the last document of an earlier kind. Kinds not
	// in it come last.
	Rank map[string]int
	// Parent names, for a kind whose objects name a parent in
	// spec.parent, the parent's kind (Project: Department).
	Parent map[string]string
}

func (sc *Schema) edits(kind string) bool {
	for _, k := range sc.Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

func (sc *Schema) rank(kind string) int {
	if r, ok := sc.Rank[kind]; ok {
		return r
	}
	return len(sc.Rank)
}

// ID names an object: its kind and metadata.name.
type ID struct{ Kind, Name string }

// Object is an object of an edited kind in a tenancy file: where its
// document starts (the line of its first key), and its spec.parent.
type Object struct {
	ID
	Parent string
	File   string
	Line   int
}

// Origin is where a reader found an object: its file and the line of its
// document's first key.
type Origin struct {
	File string
	Line int
}

// Pos is where a reader found a value: its line and byte range, the bytes
// themselves, and whether it is reached through an alias (Text is then the
// alias, "*name") or lies inside an anchored node (Anchor, AnchorLine).
type Pos struct {
	Line       int
	Start, End int
	Text       string
	Alias      bool
	Anchor     string
	AnchorLine int
}

// Change sets the value at a JSON pointer of one object's document; the
// keys and items the document lacks on the way are inserted.
type Change struct {
	ID
	// Pointer is the value's JSON pointer ("/spec/queues/0/resources/gpu/deserved").
	Pointer string
	// Value is the new value as JSON.
	Value json.RawMessage
	// What names the value in messages ("gpu.deserved of queue ml-rtx").
	What string
	// Queue is the name of the queue the value belongs to ("" for an
	// object's own field).
	Queue string
	// Origin is where the reader found the object; nil for a new object.
	Origin *Origin
	// Pos is where the reader found the value; nil when it was omitted.
	Pos *Pos
	// File is, for a new object, the file it goes to when the caller
	// names one ("" lets the Set choose, see Placement).
	File string
}

// NoFileError is the refusal to choose a file for a new object: no
// tenancy file holds an object of its kind, and nothing names one.
type NoFileError struct {
	ID
	Files int // the number of tenancy files
}

func (e *NoFileError) Error() string {
	return "cannot choose a file for new " + e.Kind + " " + e.Name + ": no tenancy file holds a " + e.Kind
}

// Set is the tenancy files of a snapshot as read at its commit, parsed for
// editing as far as needed, and the objects of the edited kinds found in
// them.
type Set struct {
	schema Schema
	// placement is the file for new objects of a kind, when the
	// repository names one.
	placement map[string]string
	order     []string         // paths in the snapshot's order
	files     map[string]*File // by repository path
	// created marks files that the splice creates (a placement file that
	// does not exist yet).
	created map[string]bool
	// index lists the objects of an edited kind in file order; byKey
	// holds those with a name (the last of an ID wins).
	index []objEntry
	byKey map[ID]objEntry
	// placed lists the new objects the splice writes, by file.
	placed map[string][]ID
	// removed marks the objects whose documents a removal takes out, and
	// deleted the files it leaves without a document (Remove).
	removed map[ID]bool
	deleted map[string]bool
}

// NewSet reads the tenancy files paths (in the snapshot's order; src holds
// their bytes). When trusted, the files are the very bytes a reader
// indexed, and known lists the objects it found in them: a file is then
// only cut into chunks, and its documents are parsed when an edit needs
// them. Otherwise (a file changed since the snapshot) every file is parsed
// whole, as is a file with a directive (%YAML, %TAG), and indexed from its
// documents. placement names the file for new objects of a kind, where the
// repository names one. Errors name the file and line of invalid YAML.
func NewSet(schema Schema, paths []string, src map[string][]byte, known []Object, trusted bool, placement map[string]string) (*Set, error) {
	s := &Set{schema: schema, placement: placement, files: map[string]*File{}, created: map[string]bool{},
		byKey: map[ID]objEntry{}, placed: map[string][]ID{}, removed: map[ID]bool{}, deleted: map[string]bool{}}
	lazy := map[string]bool{}
	for _, p := range paths {
		var f *File
		if trusted && !HasDirective(src[p]) {
			f, lazy[p] = lazyFile(p, src[p]), true
			f.trusted = true
		} else {
			var err error
			if f, err = Parse(p, src[p]); err != nil {
				return nil, err
			}
			s.index = append(s.index, s.docEntries(p, f.chunks[0].docs)...)
		}
		s.order = append(s.order, p)
		s.files[p] = f
	}
	if trusted {
		for _, o := range known {
			if lazy[o.File] {
				s.index = append(s.index, objEntry{kind: o.Kind, name: o.Name, parent: o.Parent, file: o.File, line: o.Line})
			}
		}
	}
	sortEntries(s.index, s.order)
	for _, e := range s.index {
		if e.name != "" {
			s.byKey[e.key()] = e
		}
	}
	return s, nil
}

// Created lists, sorted, the files that the edits create (a placement file
// that does not exist yet).
func (s *Set) Created() []string {
	out := make([]string, 0, len(s.created))
	for p := range s.created {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// IsCreated reports whether the edits create the file path.
func (s *Set) IsCreated(path string) bool { return s.created[path] }

// Locate returns the document of object id where a reader found it (o),
// checked to be that object: a nil Doc when the file holds no such object
// there any more (it changed since).
func (ts *Set) Locate(id ID, o Origin) (*File, *Doc, error) {
	e, ok := ts.byKey[id]
	if !ok || e.file != o.File || e.line != o.Line {
		return ts.files[o.File], nil, nil
	}
	f, d, err := ts.object(e)
	if err != nil || d == nil {
		return f, nil, err
	}
	return f, d.export(), nil
}

// AddFile records that the splice creates the file path (a renamed
// object's file under its new name), which the Set does not hold: Created
// and IsCreated then list it. A file it holds is left alone.
func (ts *Set) AddFile(path string) {
	if ts.files[path] == nil {
		ts.addCreated(path)
	}
}

// Remove records that the splice takes the documents of ids out and
// deletes the files deleted: Touched expects neither.
func (ts *Set) Remove(ids []ID, deleted []string) {
	for _, id := range ids {
		ts.removed[id] = true
	}
	for _, p := range deleted {
		ts.deleted[p] = true
	}
}
