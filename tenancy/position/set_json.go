package position

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/krmplan/krmplan/internal/jsonfile"
)

// MarshalJSONTo writes p as an object of the pointers, in byte order (as
// encoding/json sorts a map's keys), each position as Pos.MarshalJSON
// writes it. A Set read from a file is written as the file holds it,
// which scanPositions accepts only when that is these bytes.
func (p Set) MarshalJSONTo(enc *jsontext.Encoder) error {
	if p.raw != nil {
		return enc.WriteValue(p.raw)
	}
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	ptrs := make([]string, 0, len(p.m))
	for ptr := range p.m {
		ptrs = append(ptrs, ptr)
	}
	slices.Sort(ptrs)
	var buf []byte
	for _, ptr := range ptrs {
		if err := enc.WriteToken(jsontext.String(ptr)); err != nil {
			return err
		}
		var err error
		if buf, err = p.m[ptr].write(enc, buf[:0]); err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndObject)
}

// UnmarshalJSONFrom reads a values object. One that scanPositions accepts
// (every one krmplan writes) is kept as the decoder's bytes of it, which
// are the input's own; any other is decoded into a map of positions as
// the engine decodes a map[string]Pos, with its errors word for word: a
// position that is not "LINE:COLUMN START TEXT", a pointer given twice, a
// value that is not an object.
func (p *Set) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() == '{' {
		b := dec.UnreadBuffer() // from the end of the member's name
		i := skipSpace(b, 0)
		if i < len(b) && b[i] == ':' {
			i = skipSpace(b, i+1)
		}
		if end, n, ok := scanPositions(b[i:]); ok {
			raw, err := dec.ReadValue()
			if err != nil {
				return err
			}
			if len(raw) != end {
				// Not a decoder over the file's bytes in memory (Set).
				return fmt.Errorf("the values object read is %d bytes long, but scanned as %d", len(raw), end)
			}
			*p = Set{raw: raw, n: n}
			return nil
		}
	}
	var m map[string]Pos
	if err := jsonfile.Map(dec, &m); err != nil { // each position counted
		return err
	}
	*p = Set{m: m}
	return nil
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json, on a copy of b
// (which encoding/json lets a method keep only during the call).
func (p *Set) UnmarshalJSON(b []byte) error {
	return jsonfile.UnmarshalStrict(bytes.Clone(b), p)
}
