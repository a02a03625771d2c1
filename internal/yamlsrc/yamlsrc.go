// Package yamlsrc holds what both the tenancy reader (snapshot) and the
// YAML editing engine (render/yamledit) know of YAML source text: where
// yaml.v3's lines and columns are in the bytes, where a file may be cut
// between documents, and which nodes an alias shares.
package yamlsrc

import (
	"bytes"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// LineIndex turns yaml.v3's line and column (counted in characters, the
// byte order mark not counted) into byte offsets of the source.
type LineIndex struct {
	src    []byte
	starts []int
}

// NewLineIndex indexes the line starts of src. The newlines are counted
// first, so that the index of a tenancy of 10,000 projects (450,000
// lines) is made once at its size rather than grown to it.
func NewLineIndex(src []byte) *LineIndex {
	starts := make([]int, 1, 1+bytes.Count(src, []byte{'\n'}))
	for at := 0; ; {
		i := bytes.IndexByte(src[at:], '\n')
		if i < 0 {
			break
		}
		at += i + 1
		starts = append(starts, at)
	}
	return &LineIndex{src: src, starts: starts}
}

// Src is the source the index was made of.
func (li *LineIndex) Src() []byte { return li.src }

// LineOf returns the 1-based line of byte offset off.
func (li *LineIndex) LineOf(off int) int {
	lo, hi := 0, len(li.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if li.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1
}

// Starts is the number of lines that start in the source: its lines, and
// one more after a final newline.
func (li *LineIndex) Starts() int { return len(li.starts) }

// StartOf returns the byte offset where the 1-based line l starts (the
// byte order mark counted), the source's length past the last line.
func (li *LineIndex) StartOf(l int) int {
	if l > len(li.starts) {
		return len(li.src)
	}
	return li.starts[max(l, 1)-1]
}

// Offset returns the byte offset of the 1-based line and character column
// as yaml.v3 reports them, -1 for a line outside the source.
func (li *LineIndex) Offset(line, col int) int {
	if line < 1 || line > len(li.starts) {
		return -1
	}
	off := li.starts[line-1]
	if line == 1 && bytes.HasPrefix(li.src, []byte("\ufeff")) {
		off += 3 // the scanner does not count the byte order mark as a column
	}
	for c := 1; c < col && off < len(li.src); c++ {
		if li.src[off] < utf8.RuneSelf {
			off++ // ASCII, nearly every column of a tenancy file
			continue
		}
		_, w := utf8.DecodeRune(li.src[off:])
		off += w
	}
	return off
}

// MarkerAfter returns the offset of the first line at or after from that
// begins with "---" followed by a space, a tab or the line's end, or -1.
// yaml.v3 reads such a line as the start of a document wherever it stands:
// it ends a block or plain scalar (whose lines are indented under their
// key, so a "---" inside their text never starts a line), and inside a
// quoted scalar or a flow collection it is an error, which sends a reader
// of the piece back to the whole file. So no cut falls inside a document
// (snapshot's TestParseFileInPartsBlockScalarMarker).
func MarkerAfter(src []byte, from int) int {
	for i := from; i < len(src); {
		j := bytes.Index(src[i:], []byte("\n---"))
		if j < 0 {
			return -1
		}
		at := i + j + 1
		if after := at + 3; after == len(src) || bytes.IndexByte([]byte(" \t\r\n"), src[after]) >= 0 {
			return at
		}
		i = at
	}
	return -1
}

// DocumentMarkers returns the offsets of the lines of src after the first
// that begin with the document marker "---" (as MarkerAfter finds them):
// cutting a file that yaml.v3 reads at these offsets never cuts a document,
// so each piece parses alone to the documents the whole file has there.
func DocumentMarkers(src []byte) []int {
	var out []int
	for at := MarkerAfter(src, 0); at >= 0; at = MarkerAfter(src, at+1) {
		out = append(out, at)
	}
	return out
}

// SharedAnchors maps every node inside an anchored node (&name) that an
// alias of the document refers to, to that anchored node (the innermost
// one); nil when the document has no alias. Editing such a node's bytes
// changes every alias of it.
func SharedAnchors(root *yaml.Node) map[*yaml.Node]*yaml.Node {
	used := map[*yaml.Node]bool{}
	var find func(n *yaml.Node, depth int)
	find = func(n *yaml.Node, depth int) {
		if n == nil || depth > 512 {
			return
		}
		if n.Kind == yaml.AliasNode {
			used[n.Alias] = true
			return
		}
		for _, c := range n.Content {
			find(c, depth+1)
		}
	}
	find(root, 0)
	if len(used) == 0 {
		return nil
	}
	out := map[*yaml.Node]*yaml.Node{}
	var mark func(n, anchor *yaml.Node, depth int)
	mark = func(n, anchor *yaml.Node, depth int) {
		if n == nil || n.Kind == yaml.AliasNode || depth > 512 {
			return
		}
		if used[n] {
			anchor = n
		}
		if anchor != nil {
			out[n] = anchor
		}
		for _, c := range n.Content {
			mark(c, anchor, depth+1)
		}
	}
	mark(root, nil, 0)
	return out
}
