package jsonfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
)

// layout is where a file of MarshalLines has its lines: at the left
// margin, as state.json has them, or, for a file another one embeds as a
// member's value (plan.json's snapshot), each line after the first
// indented by indent more, the final newline left out.
type layout struct{ indent string }

// margin is the layout of a file of its own.
var margin = layout{}

// IndentError is a line of an embedded file that is not indented as its
// layout says (DecodeLinesSummedIndented).
type IndentError struct {
	Line int // from 1, in the embedded bytes
}

func (e *IndentError) Error() string {
	return fmt.Sprintf("line %d is not indented as the file embeds it", e.Line)
}

// DecodeLinesSummedIndented is DecodeLinesSummed of the file that b holds
// as another file embeds it: each line after the first indented by indent
// more, and no final newline. It decodes b where it is (JSON reads the
// same values through the indentation, and the lines are the file's, so
// an error names the same line) and sums the file as it reads at the
// left margin, with its final newline, without making that copy: a
// snapshot in plan.json is tens of megabytes. A line not so indented
// makes the fingerprint's Err an *IndentError, whatever the decoding did.
func DecodeLinesSummedIndented(b []byte, indent string, v any, names ...string) (Fingerprint, error) {
	l := layout{indent: indent}
	return decodeSummed(func() error { return decodeLines(b, v, l) }, func() (string, []string, error) { return l.sumEmpty(b, names) })
}

// sumEmpty is SumEmpty of the file b holds at l, as it reads at the left
// margin.
func (l layout) sumEmpty(b []byte, names []string) (sum string, values []string, err error) {
	h := sha256.New()
	u := &unindenter{w: h, indent: l.indent, line: 1}
	values, err = l.sumEmptyTo(u, b, names)
	if err == nil {
		u.Write([]byte{'\n'}) // the final newline of the file at the margin
	} else {
		// The head did not read: every line is still checked, as a
		// misplaced line is what to say first.
		u = &unindenter{w: io.Discard, indent: l.indent, line: 1}
		u.Write(b)
	}
	if u.bad > 0 {
		return "", nil, &IndentError{Line: u.bad}
	}
	if err != nil {
		return "", nil, err
	}
	return hex.EncodeToString(h.Sum(nil)), values, nil
}

// unindenter writes to w what it is given with indent taken off the start
// of each line after the first. bad is the first line (from 1) that does
// not start with it; from there on the bytes are passed on as they are.
type unindenter struct {
	w      io.Writer
	indent string
	skip   int // bytes of indent still to take off
	line   int // the line being written
	bad    int
}

func (u *unindenter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if u.skip > 0 {
			k := min(u.skip, len(p))
			from := len(u.indent) - u.skip
			if string(p[:k]) != u.indent[from:from+k] {
				u.bad, u.skip = u.line, 0
				u.indent = "" // nothing more is taken off
				continue
			}
			u.skip -= k
			p = p[k:]
			continue
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			u.w.Write(p)
			break
		}
		u.w.Write(p[:i+1])
		p = p[i+1:]
		u.line++
		u.skip = len(u.indent)
	}
	return n, nil
}
