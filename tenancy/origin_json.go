package tenancy

import (
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Origin is written on the encoder of go-json-experiment's v2 engine,
// which internal/jsonfile writes state.json and plan.json with: the same
// bytes as encoding/json writes through MarshalJSON, without the engine
// reflecting over the struct. It is read by the engine as a struct, its
// values by Positions' UnmarshalJSONFrom.

// MarshalJSONTo writes o as the struct's JSON: file, line and, when there
// are any, the values as Positions.MarshalJSONTo writes them.
func (o Origin) MarshalJSONTo(enc *jsontext.Encoder) error {
	if err := writeTokens(enc, jsontext.BeginObject, jsontext.String("file"), jsontext.String(o.File),
		jsontext.String("line"), jsontext.Int(int64(o.Line))); err != nil {
		return err
	}
	if o.Values.Len() > 0 {
		if err := enc.WriteToken(jsontext.String("values")); err != nil {
			return err
		}
		if err := o.Values.MarshalJSONTo(enc); err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndObject)
}

// MarshalJSON is MarshalJSONTo for encoding/json, compact (encoding/json
// lays it out and escapes it as it is told to).
func (o Origin) MarshalJSON() ([]byte, error) {
	return jsonv2.Marshal(o, jsonv1.DefaultOptionsV1(), jsontext.EscapeForHTML(false))
}

func writeTokens(enc *jsontext.Encoder, toks ...jsontext.Token) error {
	for _, t := range toks {
		if err := enc.WriteToken(t); err != nil {
			return err
		}
	}
	return nil
}
