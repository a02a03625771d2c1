package planner

import (
	"github.com/go-json-experiment/json/jsontext"
	"github.com/krmplan/krmplan/internal/jsonfile"
)

// UnmarshalJSONFrom reads an op of a step of plan.json, counted against
// the file's bytes (jsonfile.Element), so that a list of millions of "{}"
// is refused rather than made.
func (o *Op) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields Op
	return jsonfile.Element(dec, (*fields)(o), nil)
}
