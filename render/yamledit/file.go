package yamledit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/internal/yamlsrc"
	"go.yaml.in/yaml/v3"
)

// File is one YAML file as written, parsed for inserting text in the
// style of its neighbours: the bytes, the yaml.v3 node tree of its
// documents (with positions), and line helpers that work on bytes. The
// file is cut into chunks at its "---" lines, and a chunk's documents are
// parsed when first asked for (see insert_docs.go), so that a splice of a
// few objects in a large file parses only their documents.
type File struct {
	path   string
	src    []byte
	li     *yamlsrc.LineIndex
	eol    string
	chunks []chunk // in file order; they cover src
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
	f := &File{path: path, src: src, li: yamlsrc.NewLineIndex(src), eol: "\n"}
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		f.eol = "\r\n"
	}
	return f
}

// Doc is a document of a parsed File: its top node and the identity of
// the object it holds ("" for what it does not have).
type Doc struct {
	Root                              *yaml.Node
	APIVersion, Kind, Name, Namespace string
}

// Docs lists the documents of a File that Parse read, in order.
func (f *File) Docs() []Doc {
	var out []Doc
	for _, c := range f.chunks {
		for _, d := range c.docs {
			out = append(out, Doc{Root: d.root, APIVersion: d.apiVersion, Kind: d.kind, Name: d.name, Namespace: d.namespace})
		}
	}
	return out
}

// Token returns the byte range of scalar (or alias) node n's token as
// written in f: a quoted scalar with its quotes. It errors on a block
// scalar and a quote that does not close.
func (f *File) Token(n *yaml.Node) (start, end int, err error) {
	end, err = f.tokenEnd(n)
	return f.offset(n), end, err
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
	last := f.lines()
	if end < len(f.src) {
		last = f.lineOf(end - 1)
	}
	for i, d := range docs {
		limit := last
		if i+1 < len(docs) {
			limit = docs[i+1].firstLine - 1
		}
		for l := d.firstLine + 1; l <= limit; l++ {
			if f.isMarker(l) {
				limit = l - 1
				break
			}
		}
		d.lastLine = d.firstLine
		for l := limit; l > d.firstLine; l-- {
			if !f.isBlankOrComment(l) {
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

func (f *File) lines() int {
	if len(f.src) > 0 && f.src[len(f.src)-1] == '\n' {
		return f.li.Starts() - 1
	}
	return f.li.Starts()
}

// lineStart is the offset of line l's first byte (after a byte order mark
// on line 1).
func (f *File) lineStart(l int) int {
	if l < 1 {
		return 0
	}
	if l > f.li.Starts() {
		return len(f.src)
	}
	return f.li.Offset(l, 1) // after a byte order mark on line 1
}

// lineNext is the offset of the line after l (the end of the file for the
// last line).
func (f *File) lineNext(l int) int { return f.li.StartOf(l + 1) }

// lineText is line l without its end of line.
func (f *File) lineText(l int) string {
	if l < 1 || l > f.li.Starts() {
		return ""
	}
	s := string(f.src[f.lineStart(l):f.lineNext(l)])
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}

// indent is the number of spaces that start line l.
func (f *File) indent(l int) int {
	t := f.lineText(l)
	return len(t) - len(strings.TrimLeft(t, " "))
}

func (f *File) isBlankOrComment(l int) bool {
	t := strings.TrimLeft(f.lineText(l), " \t")
	return t == "" || strings.HasPrefix(t, "#")
}

// isMarker reports a document marker line: "---" or "..." at column 1.
func (f *File) isMarker(l int) bool {
	t := f.lineText(l)
	for _, m := range []string{"---", "..."} {
		if t == m || strings.HasPrefix(t, m+" ") || strings.HasPrefix(t, m+"\t") {
			return true
		}
	}
	return false
}

// offset is the byte offset of node n's first byte.
func (f *File) offset(n *yaml.Node) int { return f.li.Offset(n.Line, n.Column) }

// col is the 0-based byte column of node n on its line.
func (f *File) col(n *yaml.Node) int { return f.offset(n) - f.lineStart(n.Line) }

func (f *File) lineOf(off int) int { return f.li.LineOf(off) }

func isFlow(n *yaml.Node) bool {
	return (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && n.Style&yaml.FlowStyle != 0
}

// tokenEnd is the offset just past scalar n's token as written: a quoted
// scalar to its closing quote, a plain one to the end of its text on the
// line (flow context stops at , ] }).
func (f *File) tokenEnd(n *yaml.Node) (int, error) {
	o := f.offset(n)
	src := f.src
	if o < 0 || o >= len(src) {
		return 0, fmt.Errorf("%s:%d: cannot find the value", f.path, n.Line)
	}
	switch {
	case n.Kind == yaml.AliasNode:
		return o + 1 + len(n.Value), nil
	case src[o] == '"':
		for i := o + 1; i < len(src); i++ {
			switch src[i] {
			case '\\':
				i++
			case '"':
				return i + 1, nil
			}
		}
	case src[o] == '\'':
		for i := o + 1; i < len(src); i++ {
			if src[i] == '\'' {
				if i+1 < len(src) && src[i+1] == '\'' {
					i++
					continue
				}
				return i + 1, nil
			}
		}
	case src[o] == '|' || src[o] == '>':
		return 0, fmt.Errorf("%s:%d: a block scalar", f.path, n.Line)
	default:
		if bytes.HasPrefix(src[o:], []byte(n.Value)) && n.Value != "" {
			return o + len(n.Value), nil
		}
		end := o
		for i := o; i < len(src) && src[i] != '\n' && src[i] != '\r'; i++ {
			if src[i] == '#' && i > o && (src[i-1] == ' ' || src[i-1] == '\t') {
				break
			}
			if src[i] == ',' || src[i] == ']' || src[i] == '}' {
				break
			}
			if src[i] != ' ' && src[i] != '\t' {
				end = i + 1
			}
		}
		return end, nil
	}
	return 0, fmt.Errorf("%s:%d: unterminated quoted value", f.path, n.Line)
}

// flowEnd is the offset just past the closing bracket of flow collection n.
func (f *File) flowEnd(n *yaml.Node) (int, error) {
	src := f.src
	o := f.offset(n)
	depth := 0
	for i := o; i >= 0 && i < len(src); i++ {
		switch c := src[i]; c {
		case '"', '\'':
			j := i + 1
			for ; j < len(src); j++ {
				if c == '"' && src[j] == '\\' {
					j++
					continue
				}
				if src[j] == c {
					if c == '\'' && j+1 < len(src) && src[j+1] == '\'' {
						j++
						continue
					}
					break
				}
			}
			i = j
		case '#':
			if i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
				for i < len(src) && src[i] != '\n' {
					i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
	}
	return 0, fmt.Errorf("%s:%d: unterminated flow collection", f.path, n.Line)
}

// nodeEnd is the offset just past the last byte of node n's text: its
// token, its closing bracket, or the end of its last entry.
func (f *File) nodeEnd(n *yaml.Node) (int, error) {
	switch {
	case n.Kind == yaml.ScalarNode || n.Kind == yaml.AliasNode:
		return f.tokenEnd(n)
	case isFlow(n):
		return f.flowEnd(n)
	case n.Kind == yaml.MappingNode && len(n.Content) >= 2:
		l, err := f.entryLastLine(n, len(n.Content)/2-1)
		if err != nil {
			return 0, err
		}
		return f.lineStart(l) + len(f.lineText(l)) - contentTrail(f.lineText(l)), nil
	case n.Kind == yaml.SequenceNode && len(n.Content) > 0:
		l, err := f.itemLastLine(n, len(n.Content)-1)
		if err != nil {
			return 0, err
		}
		return f.lineStart(l) + len(f.lineText(l)) - contentTrail(f.lineText(l)), nil
	}
	return f.offset(n), nil
}

// contentTrail is the length of a line's trailing comment and spaces.
func contentTrail(t string) int {
	end := len(t)
	inQ := byte(0)
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case inQ != 0:
			if c == inQ {
				inQ = 0
			}
		case c == '"' || c == '\'':
			inQ = c
		case c == '#' && (i == 0 || t[i-1] == ' ' || t[i-1] == '\t'):
			end = i
			i = len(t)
		}
	}
	return len(t) - len(strings.TrimRight(t[:end], " \t"))
}

// entryLastLine is the last line with content of the i-th entry of block
// mapping m: the line of its value, of the value's closing bracket, or of
// the last line indented under its key (comments and blank lines at the end
// excluded).
func (f *File) entryLastLine(m *yaml.Node, i int) (int, error) {
	k, v := m.Content[2*i], m.Content[2*i+1]
	keyIndent := f.col(k)
	last := k.Line
	if v.Kind == yaml.AliasNode || v.Kind == yaml.ScalarNode {
		if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
			end, err := f.tokenEnd(v)
			if err != nil {
				return 0, err
			}
			last = max(last, f.lineOf(max(end-1, 0)))
		}
	} else if isFlow(v) {
		end, err := f.flowEnd(v)
		if err != nil {
			return 0, err
		}
		last = max(last, f.lineOf(end-1))
	}
	limit := f.lines()
	if 2*i+2 < len(m.Content) {
		limit = m.Content[2*i+2].Line - 1
	}
	indentless := v.Kind == yaml.SequenceNode && !isFlow(v) && f.col(v) == keyIndent
	for l := last + 1; l <= limit; l++ {
		if f.isMarker(l) {
			break
		}
		if f.isBlankOrComment(l) {
			continue
		}
		ind := f.indent(l)
		if ind > keyIndent || (indentless && ind == keyIndent && strings.HasPrefix(strings.TrimLeft(f.lineText(l), " "), "-")) {
			last = l
			continue
		}
		break
	}
	return last, nil
}

// itemLastLine is the last line with content of the i-th item of block
// sequence s.
func (f *File) itemLastLine(s *yaml.Node, i int) (int, error) {
	it := s.Content[i]
	switch {
	case it.Kind == yaml.MappingNode && !isFlow(it) && len(it.Content) >= 2:
		return f.entryLastLine(it, len(it.Content)/2-1)
	case isFlow(it):
		end, err := f.flowEnd(it)
		if err != nil {
			return 0, err
		}
		return f.lineOf(end - 1), nil
	case it.Kind == yaml.SequenceNode && len(it.Content) > 0:
		return f.itemLastLine(it, len(it.Content)-1)
	}
	end, err := f.tokenEnd(it)
	if err != nil {
		return it.Line, nil
	}
	return f.lineOf(max(end-1, 0)), nil
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
