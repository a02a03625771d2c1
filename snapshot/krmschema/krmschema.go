// Package krmschema is what the tenancy reader checks of a KRM object: the
// type of every value and, for an object, its known fields. The schemas
// are derived from the project's CRDs (testdata/crds, which agree with
// upstream KRM's field for field; internal/testapiserver checks that) and,
// for metadata, from Kubernetes' ObjectMeta: krmschema_gen.go is written
// by TestKRMSchemaIsGenerated (go generate ./snapshot/krmschema/).
package krmschema

import (
	"slices"
	"sync"
)

//go:generate go test -run TestKRMSchemaIsGenerated -update .

// Type is the JSON type a schema gives a value.
type Type uint8

const (
	TypeAny         Type = iota // any value: a field whose unknown content is kept
	TypeObject                  // an object with known fields (fields), or a map (values)
	TypeArray                   // a list of items
	TypeString                  // a string
	TypeNumber                  // a JSON number
	TypeInteger                 // a whole number
	TypeBoolean                 // true or false
	TypeIntOrString             // a whole number or a string (a Kubernetes quantity)
)

// Field is what the tenancy reader checks of one value of a KRM
// object: its type and, for an object, its known fields. The schemas are
// derived from the project's CRDs (testdata/crds, which agree with
// upstream KRM's field for field; internal/testapiserver checks that) and,
// for metadata, from Kubernetes' ObjectMeta: krmschema_gen.go is written
// by TestKRMSchemaIsGenerated.
type Field struct {
	Type Type
	// Fields are an object's known fields; Values, when set, is the
	// schema of every value of a map (additionalProperties); Items a
	// list's.
	Fields map[string]*Field
	Values *Field
	Items  *Field
	// Open marks an object that keeps unknown fields
	// (x-kubernetes-preserve-unknown-fields): they are not errors.
	Open bool
	// Bits is an integer's size (32 for int32), 0 when unbounded.
	Bits int

	namesOnce sync.Once
	names     []string
}

// Names returns the known field names, sorted.
func (s *Field) Names() []string {
	s.namesOnce.Do(func() {
		for k := range s.Fields {
			s.names = append(s.names, k)
		}
		slices.Sort(s.names)
	})
	return s.names
}

// Any is the schema of a value that is not checked: a field kept as
// given, or a document krmplan does not read.
var Any = &Field{Type: TypeAny}

// field returns the schema of the object's field name, nil when the field
// is unknown. A map gives its value schema for every name; an open object
// gives Any for a name it does not declare.
func (s *Field) Field(name string) *Field {
	switch {
	case s.Type == TypeAny:
		return Any
	case s.Values != nil:
		return s.Values
	}
	if f, ok := s.Fields[name]; ok {
		return f
	}
	if s.Open {
		return Any
	}
	return nil
}

// Helpers of the generated schemas.

func object(open bool, fields map[string]*Field) *Field {
	return &Field{Type: TypeObject, Fields: fields, Open: open}
}

func mapOf(values *Field) *Field { return &Field{Type: TypeObject, Values: values} }

func listOf(items *Field) *Field { return &Field{Type: TypeArray, Items: items} }

func leaf(t Type) *Field { return &Field{Type: t} }

func integer(bits int) *Field { return &Field{Type: TypeInteger, Bits: bits} }
