// Package position is where a tenancy's values are written in its files:
// the position of one value (Pos), an object's positions (Set), and how
// state.json writes and reads them.
package position

import (
	"bytes"
	"iter"
	"maps"
	"slices"
)

// Set is where an object's values are written: the position of each
// value by its JSON pointer into the object ("/spec/queues/0/name",
// "/spec/queues/0/resources/gpu/deserved").
//
// Built by snapshot's parser (SetOf), a Set is a map. Read from
// state.json (UnmarshalJSONFrom), it is the bytes of the values object
// as the file holds them, checked when read: a git snapshot holds about
// 19 positions per project (190,000 at 10,000 projects), and plan and
// render look up a few hundred of them, so building a map of every one was
// most of the time spent reading state.json's positions. A lookup then
// scans that object's own bytes (about 20 members), with no map, no cache
// and nothing shared that it writes, so that both cores may read one
// Set at once.
//
// The bytes are a slice of the decoder's input, not a copy: state.json
// and plan.json are decoded from the file's bytes in memory
// (jsonfile.DecodeStrict, DecodeLines), which nothing writes to after.
// The zero Set holds none.
type Set struct {
	m   map[string]Pos
	raw []byte // a checked values object (scanPositions): its members in strictly increasing byte order of pointers
	n   int    // members of raw
}

// SetOf is the positions of m, which it keeps (not a copy).
func SetOf(m map[string]Pos) Set { return Set{m: m} }

// Len is how many values have a position.
func (p Set) Len() int {
	if p.raw != nil {
		return p.n
	}
	return len(p.m)
}

// Value returns the position of the value at the JSON pointer ptr; ok is
// false when it has none.
func (p Set) Value(ptr string) (pos Pos, ok bool) {
	if p.raw == nil {
		pos, ok = p.m[ptr]
		return pos, ok
	}
	for r := (rawMembers{b: p.raw}); ; {
		key, val, more := r.next()
		if !more || string(key) > ptr { // sorted: ptr is not further on
			return Pos{}, false
		}
		if string(key) == ptr {
			pos, _ = scanPos(val)
			return pos, true
		}
	}
}

// All yields every pointer and its position, in byte order of the
// pointers (as state.json writes them).
func (p Set) All() iter.Seq2[string, Pos] {
	return func(yield func(string, Pos) bool) {
		if p.raw == nil {
			for _, ptr := range slices.Sorted(maps.Keys(p.m)) {
				if !yield(ptr, p.m[ptr]) {
					return
				}
			}
			return
		}
		for r := (rawMembers{b: p.raw}); ; {
			key, val, more := r.next()
			if !more {
				return
			}
			pos, _ := scanPos(val)
			if !yield(string(key), pos) {
				return
			}
		}
	}
}

// Put sets the position of the value at ptr. Positions read from a file
// become a map first (Put is for building and for tests, not for plan's
// or render's reading).
func (p *Set) Put(ptr string, pos Pos) {
	p.toMap()
	if p.m == nil {
		p.m = map[string]Pos{}
	}
	p.m[ptr] = pos
}

// Equal reports whether p and q hold the same positions, whichever form
// each is in.
func (p Set) Equal(q Set) bool {
	if p.Len() != q.Len() {
		return false
	}
	for ptr, pos := range p.All() {
		if qp, ok := q.Value(ptr); !ok || qp != pos {
			return false
		}
	}
	return true
}

// toMap turns positions read from a file into a map of them.
func (p *Set) toMap() {
	if p.raw == nil {
		return
	}
	m := make(map[string]Pos, p.n)
	for ptr, pos := range p.All() {
		m[ptr] = pos
	}
	*p = Set{m: m}
}

// Shift moves every position lines lines and off bytes on: positions
// read from a part of a file that starts so far into it (tenancy's
// Origin.Shift). Positions read from a file become a map first.
func (p *Set) Shift(lines, off int) {
	p.toMap()
	for k, v := range p.m {
		v.Line += lines
		v.Start += off
		v.End += off
		p.m[k] = v
	}
}

// scanPositions reports whether b starts with a values object that
// Set keeps as bytes, and its length and member count: an object
// whose pointers are in strictly increasing byte order (so none is given
// twice) and whose positions are all strings in the form state.json
// writes (scanPos), each string printable ASCII without an escape
// (jsonfile.Plain), JSON's whitespace anywhere between tokens. Such an
// object decodes to the same positions as the map of them does, and
// encodes back to the same bytes (MarshalJSONTo). Anything else — an
// alias's object form, a format 2 string, an escape, a byte beyond ASCII,
// keys out of order, or bytes that are not JSON at all — is not, and is
// decoded into a map as it always was, which gives its error.
func scanPositions(b []byte) (end, n int, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, 0, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, 0, true
	}
	var prev []byte
	for {
		key, j, ok := scanPlain(b, i)
		if !ok || (n > 0 && bytes.Compare(prev, key) >= 0) {
			return 0, 0, false
		}
		if j = skipSpace(b, j); j >= len(b) || b[j] != ':' {
			return 0, 0, false
		}
		val, j, ok := scanPlain(b, skipSpace(b, j+1))
		if !ok {
			return 0, 0, false
		}
		if _, _, ok := scanPosNumbers(val); !ok {
			return 0, 0, false
		}
		prev, n = key, n+1
		if j = skipSpace(b, j); j >= len(b) {
			return 0, 0, false
		}
		switch b[j] {
		case '}':
			return j + 1, n, true
		case ',':
			i = skipSpace(b, j+1)
		default:
			return 0, 0, false
		}
	}
}

// scanPlain reads the string at b[i:], which must be printable ASCII
// without an escape, and returns its content and the offset past it.
func scanPlain(b []byte, i int) (s []byte, end int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[i+1 : j], j + 1, true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// skipSpace is the offset of the first byte at or after i that is not
// JSON's whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// scanPos reads s as "LINE:COLUMN START TEXT", each number in decimal
// without a sign or a leading zero (as Pos.MarshalJSON writes it); ok is
// false for anything else, a format 2 "START-END" too. parsePos reads
// these strings to the same Pos, and what it reads besides.
func scanPos(s []byte) (p Pos, ok bool) {
	n, text, ok := scanPosNumbers(s)
	if !ok {
		return Pos{}, false
	}
	return Pos{Line: n[0], Column: n[1], Start: n[2], End: n[2] + len(s) - text, Text: string(s[text:])}, true
}

// scanPosNumbers reads the numbers of scanPos's s, and where its TEXT
// starts, without building the Pos (checking a file allocates nothing).
func scanPosNumbers(s []byte) (n [3]int, text int, ok bool) {
	for k, sep := range [3]byte{':', ' ', ' '} {
		v, j, ok := scanNat(s, text)
		if !ok || j >= len(s) || s[j] != sep {
			return n, 0, false
		}
		n[k], text = v, j+1
	}
	return n, text, true
}

// scanNat reads a decimal number of at most 15 digits without a leading
// zero at s[i:], and returns it and the offset past it.
func scanNat(s []byte, i int) (v, end int, ok bool) {
	j := i
	for j < len(s) && j-i <= 15 && s[j] >= '0' && s[j] <= '9' {
		v = v*10 + int(s[j]-'0')
		j++
	}
	if j == i || j-i > 15 || (s[i] == '0' && j-i > 1) {
		return 0, 0, false
	}
	return v, j, true
}

// rawMembers walks the members of a values object scanPositions checked.
type rawMembers struct {
	b []byte
	i int
}

// next is the next member's pointer and position string; more is false
// past the last.
func (r *rawMembers) next() (key, val []byte, more bool) {
	if r.i == 0 {
		r.i = skipSpace(r.b, 0) + 1 // past '{'
	}
	i := skipSpace(r.b, r.i)
	if i >= len(r.b) || r.b[i] != '"' {
		return nil, nil, false // '}'
	}
	key, i = quoted(r.b, i)
	i = skipSpace(r.b, skipSpace(r.b, i)+1) // past ':'
	val, i = quoted(r.b, i)
	if i = skipSpace(r.b, i); i < len(r.b) && r.b[i] == ',' {
		i++
	}
	r.i = i
	return key, val, true
}

// quoted is the content of the string at b[i:] in a checked object, where
// no string holds an escape, and the offset past it.
func quoted(b []byte, i int) (s []byte, end int) {
	n := bytes.IndexByte(b[i+1:], '"')
	return b[i+1 : i+1+n], i + n + 2
}
