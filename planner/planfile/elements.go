package planfile

import (
	"github.com/go-json-experiment/json/jsontext"
	"github.com/krmplan/krmplan/internal/jsonfile"
)

// UnmarshalJSONFrom reads a step of the file counted against the file's
// bytes (jsonfile.Element), so that a list of millions of "{}" is refused
// rather than made; a step without a kind is refused by Decode, once the
// plan's id is checked.
func (s *step) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields step
	return jsonfile.Element(dec, (*fields)(s), nil)
}

// UnmarshalJSONFrom reads a finding of the file counted against the
// file's bytes (jsonfile.Element).
func (x *finding) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields finding
	return jsonfile.Element(dec, (*fields)(x), nil)
}
