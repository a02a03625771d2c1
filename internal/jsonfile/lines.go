package jsonfile

import (
	"bytes"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// MarshalLines returns the file's bytes for v, an object, laid out one
// line per item: each top-level member on a line of its own (two spaces,
// the name, ": ", the value), and each element of a top-level list on a
// line of its own (four spaces); everything deeper is compact, as
// encoding/json's Marshal writes it (HTML characters as they are). A
// final newline ends the file.
//
//	{
//	  "format_version": 3,
//	  "projects": [
//	    {"metadata":{"name":"a"},"spec":{...}},
//	    {"metadata":{"name":"b"},"spec":{...}}
//	  ],
//	  "not_read": []
//	}
//
// state.json is written so: indenting every level made two thirds of a
// state's bytes spaces (a project's values sit six levels deep), while one
// object to a line keeps the file greppable and its diffs one line per
// changed object. The head is as Marshal writes it, so SumEmpty and
// Overwrite work on both layouts; any reader of JSON reads both.
//
// The elements of a big top-level list are encoded in pieces on every
// core (marshalLinesParallel); the bytes, and any error, are the same.
func MarshalLines(v any) ([]byte, error) {
	l, err := MarshalLinesParts(v)
	if err != nil {
		return nil, err
	}
	return l.Bytes(), nil
}

// MarshalLinesOneCore is MarshalLines on one core, in one pass: what
// MarshalLines in pieces is tested against.
func MarshalLinesOneCore(v any) ([]byte, error) { return marshalLinesSeq(v) }

// marshalLinesSeq is MarshalLines on one core.
func marshalLinesSeq(v any) ([]byte, error) {
	w := lines{out: &chunks{}}
	if err := jsonv2.MarshalWrite(&w, v, jsonv1.DefaultOptionsV1(), jsontext.EscapeForHTML(false)); err != nil {
		return nil, err
	}
	w.out.Write([]byte{'\n'})
	return bytes.Join(*w.out, nil), nil
}

// lines lays out compact JSON as MarshalLines describes, as it is written:
// it follows the nesting depth and the strings (where a bracket or a comma
// is text) across writes, and breaks the line before a top-level member,
// before an element of a top-level list, and before the brackets that
// close them.
type lines struct {
	out      *chunks
	depth    int  // brackets open
	list     bool // the container at depth 2 is a list (its elements get lines)
	inString bool
	escaped  bool // the previous byte in a string was a backslash
	opened   byte // '{' or '[' just written at depth 1 or 2: the next byte decides the line break
	empty    bool // the bracket about to close was opened by the byte before it
	buf      []byte
}

func (w *lines) Write(p []byte) (int, error) {
	buf := w.buf[:0]
	for i := 0; i < len(p); i++ {
		c := p[i]
		if w.opened != 0 {
			buf = w.afterOpen(buf, c)
		}
		switch {
		case w.inString:
			if w.escaped {
				w.escaped = false
				buf = append(buf, c)
				continue
			}
			// Copy up to the next quote or backslash in one go.
			j := quoteOrBackslash(p[i:])
			if j < 0 {
				buf = append(buf, p[i:]...)
				i = len(p)
				continue
			}
			buf = append(buf, p[i:i+j+1]...)
			i += j
			if p[i] == '\\' {
				w.escaped = true
			} else {
				w.inString = false
			}
			continue
		case w.depth > 2:
			// Deep inside an object: copy up to the next quote or bracket.
			j := bytes.IndexAny(p[i:], `"{}[]`)
			if j < 0 {
				buf = append(buf, p[i:]...)
				i = len(p)
				continue
			}
			buf = append(buf, p[i:i+j]...)
			i += j
			c = p[i]
		}
		buf = w.structural(buf, c)
	}
	w.buf = buf
	_, err := w.out.Write(buf)
	return len(p), err
}

// afterOpen writes the line break that an opening bracket at depth 1, or
// of a top-level list, calls for, now that c, the byte after it, shows
// whether the container is empty.
func (w *lines) afterOpen(buf []byte, c byte) []byte {
	opened := w.opened
	w.opened = 0
	if c == '}' || c == ']' {
		w.empty = true // {} and [] stay as they are
		return buf
	}
	if opened == '{' {
		return append(buf, "\n  "...)
	}
	return append(buf, "\n    "...)
}

// structural writes c, a byte outside a string, with the line breaks and
// the space after a top-level member's colon.
func (w *lines) structural(buf []byte, c byte) []byte {
	switch c {
	case '"':
		w.inString = true
	case '{', '[':
		w.depth++
		switch {
		case w.depth == 1 && c == '{':
			w.opened = c
		case w.depth == 2:
			w.list = c == '['
			if w.list {
				w.opened = c
			}
		}
	case '}', ']':
		switch {
		case w.empty:
			w.empty = false
		case w.depth == 1:
			buf = append(buf, '\n')
		case w.depth == 2 && w.list:
			buf = append(buf, "\n  "...)
		}
		w.depth--
	case ',':
		switch {
		case w.depth == 1:
			return append(buf, ",\n  "...)
		case w.depth == 2 && w.list:
			return append(buf, ",\n    "...)
		}
	case ':':
		if w.depth == 1 {
			return append(buf, ": "...)
		}
	}
	return append(buf, c)
}

// quoteOrBackslash is the index of the first '"' or '\\' in p, or -1: what
// bytes.IndexAny(p, `"\`) returns, without building its set of bytes at
// each of the hundreds of thousands of strings of a state (they are short).
func quoteOrBackslash(p []byte) int {
	for i, c := range p {
		if c == '"' || c == '\\' {
			return i
		}
	}
	return -1
}
