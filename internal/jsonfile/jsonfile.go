// Package jsonfile writes and reads krmplan's JSON files (state.json,
// plan.json, cluster data) with encoding/json, the same way everywhere.
package jsonfile

import (
	"bytes"
	"encoding/json"
)

// Marshal returns the file's bytes for v: what a json.Encoder with
// SetEscapeHTML(false) and SetIndent("", "  ") writes (two-space indents,
// HTML characters as they are, a final newline). It is that encoder's
// output made in two steps, so that the indented bytes go into a buffer of
// about their final size at once: a state of 50,000 projects is hundreds of
// megabytes, and growing a buffer to that size by doubling costs more than
// the encoding.
func Marshal(v any) ([]byte, error) {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(2*compact.Len() + 1024) // the indents about double krmplan's JSON
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// DecodeStrict decodes the JSON value at the start of b into v, as a
// json.Decoder with DisallowUnknownFields does: a misspelt key is an
// error, not a silently empty value. Errors are encoding/json's own (a
// *json.SyntaxError or *json.UnmarshalTypeError carries the offset).
func DecodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
