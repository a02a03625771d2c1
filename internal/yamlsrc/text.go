package yamlsrc

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Text is a YAML file's bytes with its lines indexed, and what an editor
// asks of them: a line's text and indentation, a node's offset and
// column, and where the text of a node, a mapping entry or a list item
// ends. Lines are 1-based; offsets are byte offsets into the bytes.
type Text struct {
	name string // the file, for messages
	src  []byte
	li   *LineIndex
}

// NewText indexes the lines of src, the bytes of the file name.
func NewText(name string, src []byte) *Text {
	return &Text{name: name, src: src, li: NewLineIndex(src)}
}

// Lines is the number of lines (a final end of line ends the last one).
func (x *Text) Lines() int {
	if len(x.src) > 0 && x.src[len(x.src)-1] == '\n' {
		return x.li.Starts() - 1
	}
	return x.li.Starts()
}

// LineStart is the offset of line l's first byte (after a byte order mark
// on line 1).
func (x *Text) LineStart(l int) int {
	if l < 1 {
		return 0
	}
	if l > x.li.Starts() {
		return len(x.src)
	}
	return x.li.Offset(l, 1) // after a byte order mark on line 1
}

// LineNext is the offset of the line after l (the end of the file for the
// last line).
func (x *Text) LineNext(l int) int { return x.li.StartOf(l + 1) }

// LineText is line l without its end of line.
func (x *Text) LineText(l int) string {
	if l < 1 || l > x.li.Starts() {
		return ""
	}
	s := string(x.src[x.LineStart(l):x.LineNext(l)])
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}

// Indent is the number of spaces that start line l.
func (x *Text) Indent(l int) int {
	t := x.LineText(l)
	return len(t) - len(strings.TrimLeft(t, " "))
}

// IsBlankOrComment reports a line of spaces, or of a comment.
func (x *Text) IsBlankOrComment(l int) bool {
	t := strings.TrimLeft(x.LineText(l), " \t")
	return t == "" || strings.HasPrefix(t, "#")
}

// IsMarker reports a document marker line: "---" or "..." at column 1.
func (x *Text) IsMarker(l int) bool {
	t := x.LineText(l)
	for _, m := range []string{"---", "..."} {
		if t == m || strings.HasPrefix(t, m+" ") || strings.HasPrefix(t, m+"\t") {
			return true
		}
	}
	return false
}

// Offset is the byte offset of node n's first byte.
func (x *Text) Offset(n *yaml.Node) int { return x.li.Offset(n.Line, n.Column) }

// Col is the 0-based byte column of node n on its line.
func (x *Text) Col(n *yaml.Node) int { return x.Offset(n) - x.LineStart(n.Line) }

// LineOf is the line that holds byte offset off.
func (x *Text) LineOf(off int) int { return x.li.LineOf(off) }

// IsFlow reports a flow mapping or list ({...}, [...]).
func IsFlow(n *yaml.Node) bool {
	return (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && n.Style&yaml.FlowStyle != 0
}

// TokenEnd is the offset just past scalar n's token as written: a quoted
// scalar to its closing quote, a plain one to the end of its text on the
// line (flow context stops at , ] }).
func (x *Text) TokenEnd(n *yaml.Node) (int, error) {
	o := x.Offset(n)
	src := x.src
	if o < 0 || o >= len(src) {
		return 0, fmt.Errorf("%s:%d: cannot find the value", x.name, n.Line)
	}
	switch {
	case n.Kind == yaml.AliasNode:
		return o + 1 + len(n.Value), nil
	case src[o] == '"' || src[o] == '\'':
		if end := QuotedEnd(src, o); end >= 0 {
			return end, nil
		}
	case src[o] == '|' || src[o] == '>':
		return 0, fmt.Errorf("%s:%d: a block scalar", x.name, n.Line)
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
	return 0, fmt.Errorf("%s:%d: unterminated quoted value", x.name, n.Line)
}

// QuotedEnd is the offset just past the quoted scalar that starts at
// src[o] (a " with its backslash escapes, or a ' with each quote inside
// written twice), or -1 when src[o] is no quote or the scalar does not end.
func QuotedEnd(src []byte, o int) int {
	if o < 0 || o >= len(src) || (src[o] != '"' && src[o] != '\'') {
		return -1
	}
	q := src[o]
	for i := o + 1; i < len(src); i++ {
		switch {
		case q == '"' && src[i] == '\\':
			i++
		case src[i] == q && q == '\'' && i+1 < len(src) && src[i+1] == '\'':
			i++
		case src[i] == q:
			return i + 1
		}
	}
	return -1
}

// FlowEnd is the offset just past the closing bracket of flow collection n.
func (x *Text) FlowEnd(n *yaml.Node) (int, error) {
	src := x.src
	o := x.Offset(n)
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
	return 0, fmt.Errorf("%s:%d: unterminated flow collection", x.name, n.Line)
}

// NodeEnd is the offset just past the last byte of node n's text: its
// token, its closing bracket, or the end of its last entry.
func (x *Text) NodeEnd(n *yaml.Node) (int, error) {
	switch {
	case n.Kind == yaml.ScalarNode || n.Kind == yaml.AliasNode:
		return x.TokenEnd(n)
	case IsFlow(n):
		return x.FlowEnd(n)
	case n.Kind == yaml.MappingNode && len(n.Content) >= 2:
		l, err := x.EntryLastLine(n, len(n.Content)/2-1)
		if err != nil {
			return 0, err
		}
		return x.LineStart(l) + len(x.LineText(l)) - ContentTrail(x.LineText(l)), nil
	case n.Kind == yaml.SequenceNode && len(n.Content) > 0:
		l, err := x.ItemLastLine(n, len(n.Content)-1)
		if err != nil {
			return 0, err
		}
		return x.LineStart(l) + len(x.LineText(l)) - ContentTrail(x.LineText(l)), nil
	}
	return x.Offset(n), nil
}

// ContentTrail is the length of a line's trailing comment and spaces.
func ContentTrail(t string) int {
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

// EntryLastLine is the last line with content of the i-th entry of block
// mapping m: the line of its value, of the value's closing bracket, or of
// the last line indented under its key (comments and blank lines at the end
// excluded).
func (x *Text) EntryLastLine(m *yaml.Node, i int) (int, error) {
	k, v := m.Content[2*i], m.Content[2*i+1]
	keyIndent := x.Col(k)
	last := k.Line
	if v.Kind == yaml.AliasNode || v.Kind == yaml.ScalarNode {
		if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
			end, err := x.TokenEnd(v)
			if err != nil {
				return 0, err
			}
			last = max(last, x.LineOf(max(end-1, 0)))
		}
	} else if IsFlow(v) {
		end, err := x.FlowEnd(v)
		if err != nil {
			return 0, err
		}
		last = max(last, x.LineOf(end-1))
	}
	limit := x.Lines()
	if 2*i+2 < len(m.Content) {
		limit = m.Content[2*i+2].Line - 1
	}
	indentless := v.Kind == yaml.SequenceNode && !IsFlow(v) && x.Col(v) == keyIndent
	for l := last + 1; l <= limit; l++ {
		if x.IsMarker(l) {
			break
		}
		if x.IsBlankOrComment(l) {
			continue
		}
		ind := x.Indent(l)
		if ind > keyIndent || (indentless && ind == keyIndent && strings.HasPrefix(strings.TrimLeft(x.LineText(l), " "), "-")) {
			last = l
			continue
		}
		break
	}
	return last, nil
}

// ItemLastLine is the last line with content of the i-th item of block
// sequence s.
func (x *Text) ItemLastLine(s *yaml.Node, i int) (int, error) {
	it := s.Content[i]
	switch {
	case it.Kind == yaml.MappingNode && !IsFlow(it) && len(it.Content) >= 2:
		return x.EntryLastLine(it, len(it.Content)/2-1)
	case IsFlow(it):
		end, err := x.FlowEnd(it)
		if err != nil {
			return 0, err
		}
		return x.LineOf(end - 1), nil
	case it.Kind == yaml.SequenceNode && len(it.Content) > 0:
		return x.ItemLastLine(it, len(it.Content)-1)
	}
	end, err := x.TokenEnd(it)
	if err != nil {
		return it.Line, nil
	}
	return x.LineOf(max(end-1, 0)), nil
}
