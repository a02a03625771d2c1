package kustomize

import (
	"github.com/go-json-experiment/json/jsontext"
	"github.com/krmplan/krmplan/internal/jsonfile"
)

// UnmarshalJSONFrom reads a patch target of state.json, counted against
// the file's bytes (jsonfile.Element), so that a list of millions of "{}"
// is refused rather than made.
func (p *PatchTarget) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields PatchTarget
	return jsonfile.Element(dec, (*fields)(p), nil)
}
