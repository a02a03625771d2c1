package tenancy

import (
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/krmplan/krmplan/internal/jsonfile"
)

// The methods of this file write and read an Origin and a Pos on the
// encoder and decoder of go-json-experiment's v2 engine, which
// internal/jsonfile reads and writes state.json and plan.json with: the
// same bytes as MarshalJSON and UnmarshalJSON (which encoding/json still
// calls), without the engine calling a method per value, checking the
// bytes it returns and reflecting over the map of positions. A git
// snapshot of 10,000 projects holds about 190,000 positions; writing them
// was about a third of writing its state.json.

// MarshalJSONTo writes o as the struct's JSON: file, line and, when there
// are any, the values by their pointers in byte order (as encoding/json
// sorts a map's keys), each position as Pos.MarshalJSON writes it.
func (o Origin) MarshalJSONTo(enc *jsontext.Encoder) error {
	if err := writeTokens(enc, jsontext.BeginObject, jsontext.String("file"), jsontext.String(o.File),
		jsontext.String("line"), jsontext.Int(int64(o.Line))); err != nil {
		return err
	}
	if len(o.Values) > 0 {
		if err := writeTokens(enc, jsontext.String("values"), jsontext.BeginObject); err != nil {
			return err
		}
		ptrs := make([]string, 0, len(o.Values))
		for ptr := range o.Values {
			ptrs = append(ptrs, ptr)
		}
		slices.Sort(ptrs)
		var buf []byte
		for _, ptr := range ptrs {
			if err := enc.WriteToken(jsontext.String(ptr)); err != nil {
				return err
			}
			var err error
			if buf, err = o.Values[ptr].write(enc, buf[:0]); err != nil {
				return err
			}
		}
		if err := enc.WriteToken(jsontext.EndObject); err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndObject)
}

func writeTokens(enc *jsontext.Encoder, toks ...jsontext.Token) error {
	for _, t := range toks {
		if err := enc.WriteToken(t); err != nil {
			return err
		}
	}
	return nil
}

// MarshalJSONTo writes p as MarshalJSON does.
func (p Pos) MarshalJSONTo(enc *jsontext.Encoder) error {
	_, err := p.write(enc, nil)
	return err
}

// write writes p as MarshalJSON does, building the string form in buf,
// which it returns for the next position.
func (p Pos) write(enc *jsontext.Encoder, buf []byte) ([]byte, error) {
	if !p.textForm() {
		// Rare (an alias, an anchor): the bytes of MarshalJSON, which
		// encoding/json escapes as it always has (HTML characters too).
		v, err := p.MarshalJSON()
		if err != nil {
			return buf, err
		}
		return buf, enc.WriteValue(v)
	}
	b := append(buf, '"')
	b = p.appendText(b)
	if jsonfile.Plain(b[1:]) {
		return b, enc.WriteValue(append(b, '"'))
	}
	return b, enc.WriteValue(jsonfile.AppendString(nil, string(b[1:])))
}

// UnmarshalJSONFrom reads either form MarshalJSON writes, and the string
// of format 2, as UnmarshalJSON does.
func (p *Pos) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '"' {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		return p.UnmarshalJSON(v)
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	q, err := parsePos(tok.String())
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// textForm reports whether p is written as the string "LINE:COLUMN START
// TEXT": it is not an alias, lies inside no anchor and ends where its text
// does.
func (p Pos) textForm() bool {
	return !p.Alias && p.Anchor == "" && p.AnchorLine == 0 && p.End == p.Start+len(p.Text)
}

// appendText appends "LINE:COLUMN START TEXT", unquoted, to b.
func (p Pos) appendText(b []byte) []byte {
	b = strconv.AppendInt(b, int64(p.Line), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(p.Column), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(p.Start), 10)
	b = append(b, ' ')
	return append(b, p.Text...)
}
