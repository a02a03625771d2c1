package jsonfile

import (
	"bytes"
	"reflect"
	"runtime"

	"github.com/go-json-experiment/json/jsontext"
)

// DecodeLines is DecodeStrict of b into v, a pointer to a zero struct (any
// other v is decoded by DecodeStrict), for a file laid out as MarshalLines
// or Marshal writes it: the elements of its
// big top-level lists are decoded in pieces on every core, and the rest
// of the file (the skeleton) meanwhile. Whatever fails, b is decoded again
// by DecodeStrict into a zero v, so that the error (or the value, for a
// file laid out otherwise) is exactly DecodeStrict's: a reading from the
// start, whose first error is the first in the file.
func DecodeLines(b []byte, v any) error { return decodeLines(b, v, margin) }

// decodeLines is DecodeLines of a file laid out at l.
func decodeLines(b []byte, v any, l layout) error {
	rv, ptr, ok := structOf(v)
	if !ok || !ptr || !rv.IsZero() { // decoding merges into what v holds
		return DecodeStrict(b, v)
	}
	cuts := l.listCuts(b, rv.Type())
	if len(cuts) == 0 {
		return DecodeStrict(b, v)
	}
	if decodeCuts(b, rv, v, cuts) {
		return nil
	}
	rv.SetZero()
	return DecodeStrict(b, v)
}

// listCut is a big top-level list of a file: its elements are
// b[starts[i]:starts[i+1]] (the last up to end), each with the comma
// after it and the whitespace around it.
type listCut struct {
	topList
	bracket int   // the offset of the list's '['
	starts  []int // where each element's line starts
	end     int   // the offset of the newline before the closing "  ]"
}

// listCuts finds the big top-level lists of struct type t in b by the
// layout of MarshalLines and Marshal: the member's line `  "name": [`
// (two spaces: top level), an element on each line that starts with four
// spaces and a value (more spaces, or a '}' or ']', are inside an element
// of Marshal's indented layout), and the closing line `  ]`. The layout is
// a guess that decodeCuts checks: a file written otherwise is cut
// nowhere, or where its pieces do not read.
func (l layout) listCuts(b []byte, t reflect.Type) []listCut {
	lists := topLists(t)
	memberLine, closing := []byte("\n"+l.indent+"  \""), []byte("\n"+l.indent+"  ]")
	var out []listCut
	for at := 0; ; {
		i := bytes.Index(b[at:], memberLine)
		if i < 0 {
			return out
		}
		at += i + 1
		line := b[at:]
		if nl := bytes.IndexByte(line, '\n'); nl >= 0 {
			line = line[:nl]
		}
		for _, list := range lists {
			key := append(AppendString([]byte(l.indent+"  "), list.name), ": ["...)
			if !bytes.Equal(line, key) {
				continue
			}
			start := at + len(key) + 1
			end := bytes.Index(b[start-1:], closing)
			if end < 0 || end < parallelMin {
				break
			}
			c := listCut{topList: list, bracket: at + len(key) - 1, end: start - 1 + end}
			elem := t.FieldByIndex(list.index).Type.Elem().Size()
			if c.starts = l.elementStarts(b, start, c.end); len(c.starts) >= 2 && bounded(len(c.starts), elem, end) {
				out = append(out, c)
				at = c.end
			}
			break
		}
	}
}

// bounded reports whether n elements of size bytes each (and the offset
// of each), read from a list of text bytes, take at most four times its
// bytes, as the elements of a state do (a project's line is ten times its
// struct, a namespace's twice): the elements are made before they are
// read, and a hostile file of a million "{}," lines must not make a
// million structs at once. Such a list is read in one pass, which stops
// at its first error.
func bounded(n int, size uintptr, text int) bool {
	return uint64(n)*uint64(size+8) <= 4*uint64(text)
}

// elementStarts are the offsets of the lines in b[start:end] that start
// with four spaces and a value; nil when the first line does not.
func (l layout) elementStarts(b []byte, start, end int) []int {
	var starts []int
	lead := l.indent + "    "
	for p := start; p < end; {
		if k := len(lead); end-p > k && string(b[p:p+k]) == lead && b[p+k] != ' ' && b[p+k] != '}' && b[p+k] != ']' {
			starts = append(starts, p)
		} else if p == start {
			return nil
		}
		nl := bytes.IndexByte(b[p:end], '\n')
		if nl < 0 {
			break
		}
		p += nl + 1
	}
	return starts
}

// element is the i-th element of c in b, without the whitespace around it
// and the comma after it (which every element but the last must have); ok
// is false when the comma is missing.
func (c *listCut) element(b []byte, i int) (elem []byte, ok bool) {
	last := i == len(c.starts)-1
	to := c.end
	if !last {
		to = c.starts[i+1]
	}
	elem = bytes.TrimRight(b[c.starts[i]:to], " \t\r\n")
	if !last {
		elem, ok = bytes.CutSuffix(elem, []byte(","))
		return elem, ok
	}
	return elem, true
}

// decodeCuts decodes b into rv (v points to it) with the elements of cuts
// decoded in pieces on every core and the skeleton (b without them)
// meanwhile, and reports whether all of it read. It first checks, on
// the skeleton, that each cut is the value of the top-level member it is
// named for, and nothing deeper that looks like one.
func decodeCuts(b []byte, rv reflect.Value, v any, cuts []listCut) bool {
	sk, brackets := skeleton(b, cuts)
	if !topLevelLists(sk, cuts, brackets) {
		return false
	}
	total := 0
	for _, c := range cuts {
		total += len(c.starts)
	}
	per := max(1, total/(runtime.GOMAXPROCS(0)*piecesPerCore))
	type job struct{ cut, from, to int }
	jobs := []job{{cut: -1}} // the skeleton
	lists := make([]reflect.Value, len(cuts))
	for i, c := range cuts {
		n := len(c.starts)
		lists[i] = reflect.MakeSlice(rv.FieldByIndex(c.index).Type(), n, n)
		k := (n + per - 1) / per
		for p := range k {
			jobs = append(jobs, job{i, p * n / k, (p + 1) * n / k})
		}
	}
	var whole pieces // one budget for the file, as DecodeStrict's
	skel := part{whole: &whole}
	parts := make([][]part, len(cuts))
	for i, c := range cuts {
		parts[i] = make([]part, len(c.starts))
		for e := range parts[i] {
			parts[i][e].whole = &whole
		}
	}
	ok := eachPiece(len(jobs), func(k int) bool {
		j := jobs[k]
		if j.cut < 0 {
			return decodeBounded(sk, v, &skel, strictOptions) == nil
		}
		c := &cuts[j.cut]
		for e := j.from; e < j.to; e++ {
			elem, ok := c.element(b, e)
			if !ok || decodeBounded(elem, lists[j.cut].Index(e).Addr().Interface(), &parts[j.cut][e], strictOptions) != nil {
				return false
			}
		}
		return true
	})
	if !ok || !inBudget(skel, parts) {
		return false
	}
	for i, c := range cuts {
		rv.FieldByIndex(c.index).Set(lists[i])
	}
	return true
}

// skeleton is b without the elements of cuts (each list left empty), and
// the offset in it of each cut's '['.
func skeleton(b []byte, cuts []listCut) ([]byte, []int) {
	size := len(b)
	for _, c := range cuts {
		size -= c.end - c.starts[0]
	}
	sk := make([]byte, 0, size)
	brackets := make([]int, len(cuts))
	at := 0
	for i, c := range cuts {
		brackets[i] = c.bracket - at + len(sk)
		sk = append(sk, b[at:c.starts[0]]...)
		at = c.end
	}
	return append(sk, b[at:]...), brackets
}

// topLevelLists reports whether each cut's '[' (at brackets in sk) is the
// value of a top-level member of sk named as the cut is: the name's token
// ends two bytes (": ") before it.
func topLevelLists(sk []byte, cuts []listCut, brackets []int) bool {
	want := map[int64]string{}
	for i, c := range cuts {
		want[int64(brackets[i]-2)] = c.name
	}
	dec := jsontext.NewDecoder(bytes.NewReader(sk))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	found := 0
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if name, ok := want[dec.InputOffset()]; ok && name == tok.String() {
			found++
		}
		if dec.SkipValue() != nil {
			return false
		}
	}
	return found == len(cuts)
}
