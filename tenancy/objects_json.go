package tenancy

import (
	"errors"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/krmplan/krmplan/internal/jsonfile"
)

// The objects of state.json and plan.json are read member by member as
// the engine reads a struct, through jsonfile.Element: counted against
// the file's bytes, so that a list of millions of "{}" cannot take many
// times the file's size in memory, and refused when they lack their
// name, which every object krmplan writes has (kubectl refuses an
// object without one, and the YAML reader with it).

// UnmarshalJSONFrom reads a node pool; one without metadata.name is an
// error.
func (p *NodePool) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields NodePool
	return jsonfile.Element(dec, (*fields)(p), func() error { return named("node pool", p.Metadata.Name) })
}

// UnmarshalJSONFrom reads a department; one without metadata.name is an
// error.
func (d *Department) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields Department
	return jsonfile.Element(dec, (*fields)(d), func() error { return named("department", d.Metadata.Name) })
}

// UnmarshalJSONFrom reads a project; one without metadata.name is an
// error.
func (p *Project) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields Project
	return jsonfile.Element(dec, (*fields)(p), func() error { return named("project", p.Metadata.Name) })
}

// UnmarshalJSONFrom reads a queue entry. Its name may be empty (KRM names
// the Queue after its owner), and its nodepool is checked by the planner,
// as after the YAML reader: only its count is bounded.
func (q *Queue) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields Queue
	return jsonfile.Element(dec, (*fields)(q), nil)
}

func named(kind, name string) error {
	if name == "" {
		return errors.New("the " + kind + " has no metadata.name; kubectl refuses an object without one")
	}
	return nil
}

// UnmarshalJSONFrom reads a term of the managed nodes' selector, counted.
func (t *NodeSelectorTerm) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields NodeSelectorTerm
	return jsonfile.Element(dec, (*fields)(t), nil)
}

// UnmarshalJSONFrom reads an expression of a selector's term, counted.
func (r *NodeSelectorRequirement) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields NodeSelectorRequirement
	return jsonfile.Element(dec, (*fields)(r), nil)
}

// UnmarshalJSONFrom reads a location of a finding of plan.json, counted.
func (l *Location) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields Location
	return jsonfile.Element(dec, (*fields)(l), nil)
}

// UnmarshalJSONFrom reads a change of plan.json (UnmarshalJSON), counted.
func (c *Change) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonfile.ElementJSON(dec, c, c.UnmarshalJSON)
}

// UnmarshalJSONFrom reads a removal of plan.json (UnmarshalJSON), counted.
func (r *RemovalAddr) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonfile.ElementJSON(dec, r, r.UnmarshalJSON)
}
