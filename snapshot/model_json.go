package snapshot

import (
	"errors"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/krmplan/krmplan/internal/jsonfile"
)

// The elements of the lists of state.json and cluster data are read
// through jsonfile.Element, and a node's resource lists through
// jsonfile.Map, as the tenancy's objects are: counted against the file's
// bytes, and the cluster's objects refused without their name, which the
// API server never gives.

// UnmarshalJSONFrom reads a node; one without a name is an error.
func (n *Node) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields Node
	return jsonfile.Element(dec, (*fields)(n), func() error { return hasName("node", n.Name) })
}

// UnmarshalJSONFrom reads a KAI Queue; one without a name is an error.
func (q *LiveQueue) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields LiveQueue
	return jsonfile.Element(dec, (*fields)(q), func() error { return hasName("Queue", q.Name) })
}

// UnmarshalJSONFrom reads a namespace; one without a name is an error.
func (n *Namespace) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields Namespace
	return jsonfile.Element(dec, (*fields)(n), func() error { return hasName("namespace", n.Name) })
}

// UnmarshalJSONFrom reads a source that was not read, counted.
func (n *NotRead) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields NotRead
	return jsonfile.Element(dec, (*fields)(n), nil)
}

// UnmarshalJSONFrom reads a document of another kind, counted.
func (o *OtherDocument) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields OtherDocument
	return jsonfile.Element(dec, (*fields)(o), nil)
}

// UnmarshalJSONFrom reads a tenancy file of a git snapshot, counted.
func (f *SourceFile) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	type fields SourceFile
	return jsonfile.Element(dec, (*fields)(f), nil)
}

// UnmarshalJSONFrom reads a resource list, each entry counted.
func (l *ResourceList) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return jsonfile.Map(dec, (*map[string]Quantity)(l))
}

func hasName(kind, name string) error {
	if name == "" {
		return errors.New("the " + kind + " has no name")
	}
	return nil
}
