package yamledit

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/internal/yamlsrc"
	"go.yaml.in/yaml/v3"
)

// File is one YAML file as written, parsed for inserting text in the
// style of its neighbours: the bytes, the yaml.v3 node tree of its
// documents (with positions), and its lines (yamlsrc.Text). The
// file is cut into chunks at its "---" lines, and a chunk's documents are
// parsed when first asked for (see docs.go), so that a splice of a
// few objects in a large file parses only their documents.
type File struct {
	path          string
	src           []byte
	*yamlsrc.Text // its lines and nodes' positions
	eol           string
	chunks        []chunk // in file order; they cover src
	// trusted marks the very bytes a reader indexed (NewSet): its
	// positions of objects and values hold in them.
	trusted bool
}

// yamlDoc is one document of a File.
type yamlDoc struct {
	root             *yaml.Node                // the document's top node (a mapping for a KRM object)
	shared           map[*yaml.Node]*yaml.Node // yamlsrc.SharedAnchors of root
	apiVersion, kind string
	name, namespace  string
	// firstLine and lastLine are the document's first and last lines with
	// content (comments and blank lines around it excluded).
	firstLine, lastLine int
}

// newYAMLFile indexes the lines of src, not parsed yet (no chunk).
func newYAMLFile(path string, src []byte) *File {
	f := &File{path: path, src: src, Text: yamlsrc.NewText(path, src), eol: "\n"}
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		f.eol = "\r\n"
	}
	return f
}

// Doc is a document of a File: its top node, the identity of the object
// it holds ("" for what it does not have), its first and last lines with
// content (comments and blank lines around it excluded), and the nodes
// that an alias of it shares (yamlsrc.SharedAnchors).
type Doc struct {
	Root                              *yaml.Node
	APIVersion, Kind, Name, Namespace string
	FirstLine, LastLine               int
	Shared                            map[*yaml.Node]*yaml.Node
}

func (d *yamlDoc) export() *Doc {
	return &Doc{Root: d.root, APIVersion: d.apiVersion, Kind: d.kind, Name: d.name, Namespace: d.namespace,
		FirstLine: d.firstLine, LastLine: d.lastLine, Shared: d.shared}
}

// Docs lists the documents of a File that Parse read, in order.
func (f *File) Docs() []Doc {
	var out []Doc
	for _, c := range f.chunks {
		for _, d := range c.docs {
			out = append(out, *d.export())
		}
	}
	return out
}

// AllDocs lists every document of f, in order, parsing what a Set has not
// parsed yet; errors (*Error) name the file and line of invalid YAML.
func (f *File) AllDocs() ([]Doc, error) {
	docs, err := f.allDocs()
	out := make([]Doc, len(docs))
	for i, d := range docs {
		out[i] = *d.export()
	}
	return out, err
}

// Path is the file's path, Src its bytes.
func (f *File) Path() string { return f.path }

func (f *File) Src() []byte { return f.src }

// Token returns the byte range of scalar (or alias) node n's token as
// written in f: a quoted scalar with its quotes. It errors on a block
// scalar and a quote that does not close.
func (f *File) Token(n *yaml.Node) (start, end int, err error) {
	end, err = f.TokenEnd(n)
	return f.Offset(n), end, err
}

// Parse parses every document of the file path (its bytes src), as one
// chunk, for reading its values' positions (Docs, Token) or editing.
// Errors (*Error) name the file and line.
func Parse(path string, src []byte) (*File, error) {
	f := newYAMLFile(path, src)
	docs, err := f.decode(0, len(src), 1)
	if err != nil {
		return nil, err
	}
	f.chunks = []chunk{{start: 0, end: len(src), line: 1, docs: docs, parsed: true}}
	return f, nil
}

// decode parses the documents of src[start:end], which begins on line
// line at a line's start, with their lines counted in the whole file.
func (f *File) decode(start, end, line int) ([]*yamlDoc, error) {
	var docs []*yamlDoc
	dec := yaml.NewDecoder(bytes.NewReader(f.src[start:end]))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &Error{File: f.path, Line: 1, Msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
		}
		if len(doc.Content) == 0 {
			continue
		}
		shiftLines(&doc, line-1)
		d := &yamlDoc{root: doc.Content[0], firstLine: doc.Content[0].Line, shared: yamlsrc.SharedAnchors(doc.Content[0])}
		if m := d.root; m.Kind == yaml.MappingNode {
			d.apiVersion = scalarOf(MapGet(m, "apiVersion"))
			d.kind = scalarOf(MapGet(m, "kind"))
			if md := MapGet(m, "metadata"); md != nil {
				d.name = scalarOf(MapGet(md, "name"))
				d.namespace = scalarOf(MapGet(md, "namespace"))
			}
		}
		docs = append(docs, d)
	}
	// A document ends before the next document's marker (or at the end of
	// the range), without the comments and blank lines in front of it. A
	// range ends before a marker line, so its end is where the marker
	// search below would stop in the whole file too.
	last := f.Lines()
	if end < len(f.src) {
		last = f.LineOf(end - 1)
	}
	for i, d := range docs {
		limit := last
		if i+1 < len(docs) {
			limit = docs[i+1].firstLine - 1
		}
		for l := d.firstLine + 1; l <= limit; l++ {
			if f.IsMarker(l) {
				limit = l - 1
				break
			}
		}
		d.lastLine = d.firstLine
		for l := limit; l > d.firstLine; l-- {
			if !f.IsBlankOrComment(l) {
				d.lastLine = l
				break
			}
		}
	}
	return docs, nil
}

// shiftLines adds by to the line of n and of every node below it (a
// document parsed from a chunk counts lines from the chunk's start).
func shiftLines(n *yaml.Node, by int) {
	if by == 0 {
		return
	}
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

// mapGet returns the value of key k in mapping m (aliases followed), nil
// when absent.
func MapGet(m *yaml.Node, k string) *yaml.Node {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k && m.Content[i].Tag != "!!merge" {
			return m.Content[i+1]
		}
	}
	return nil
}

func scalarOf(n *yaml.Node) string {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	return n
}

// pathStep is one node on the way down a JSON pointer.
type pathStep struct {
	node *yaml.Node // the node as written (an alias stays an alias)
	// alias is the alias node crossed to reach this node or one of its
	// ancestors (nil when none): a value below it is the anchor's.
	alias *yaml.Node
}

// lookup finds key k in mapping m, its own keys first, then its merge keys
// (<<: *anchor) in order. It returns the value and the alias it was reached
// through, if any.
func lookup(m *yaml.Node, k string) (*yaml.Node, *yaml.Node) {
	d := deref(m)
	if d == nil || d.Kind != yaml.MappingNode {
		return nil, nil
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(d.Content); i += 2 {
		if d.Content[i].Tag == "!!merge" {
			merges = append(merges, d.Content[i+1])
			continue
		}
		if d.Content[i].Value == k {
			return d.Content[i+1], nil
		}
	}
	for _, mv := range merges {
		srcs := []*yaml.Node{mv}
		if mv.Kind == yaml.SequenceNode {
			srcs = mv.Content
		}
		for _, s := range srcs {
			if v, a := lookup(s, k); v != nil {
				if a == nil && s.Kind == yaml.AliasNode {
					a = s
				}
				return v, a
			}
		}
	}
	return nil, nil
}

// walk follows the JSON pointer segments from n as far as the file has
// them. It returns the steps taken (steps[0] is n) and the index of the
// first segment that is missing (len(segs) when the whole path exists).
func walk(n *yaml.Node, segs []string) ([]pathStep, int) {
	steps := []pathStep{{node: n}}
	if n.Kind == yaml.AliasNode {
		steps[0].alias = n
	}
	cur := steps[0]
	for i, s := range segs {
		d := deref(cur.node)
		var next *yaml.Node
		var via *yaml.Node
		switch d.Kind {
		case yaml.MappingNode:
			next, via = lookup(d, s)
		case yaml.SequenceNode:
			if idx, err := strconv.Atoi(s); err == nil && idx >= 0 && idx < len(d.Content) {
				next = d.Content[idx]
			}
		}
		if next == nil {
			return steps, i
		}
		st := pathStep{node: next, alias: cur.alias}
		if st.alias == nil {
			st.alias = via
		}
		if st.alias == nil && next.Kind == yaml.AliasNode {
			st.alias = next
		}
		steps = append(steps, st)
		cur = st
	}
	return steps, len(segs)
}
