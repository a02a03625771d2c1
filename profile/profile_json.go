package profile

import (
	"github.com/go-json-experiment/json/jsontext"
	"github.com/krmplan/krmplan/internal/jsonfile"
)

// The lists of a profile in state.json are read through jsonfile.Element:
// each element counted against the file's bytes, so that a list of
// millions of "{}" is refused rather than made.

// UnmarshalJSONFrom reads a block of expectations, counted.
func (e *Expectations) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields Expectations
	return jsonfile.Element(dec, (*fields)(e), nil)
}

// UnmarshalJSONFrom reads an expected variable, counted.
func (v *Variable) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields Variable
	return jsonfile.Element(dec, (*fields)(v), nil)
}

// UnmarshalJSONFrom reads a ResourceQuota mirror, counted.
func (m *Mirror) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields Mirror
	return jsonfile.Element(dec, (*fields)(m), nil)
}

// UnmarshalJSONFrom reads a reminder, counted.
func (r *Reminder) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields Reminder
	return jsonfile.Element(dec, (*fields)(r), nil)
}
