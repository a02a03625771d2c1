package snapshot

import (
	"slices"
	"sync"
)

//go:generate go test -run TestKRMSchemaIsGenerated -update .

// fieldType is the JSON type a schema gives a value.
type fieldType uint8

const (
	typeAny         fieldType = iota // any value: a field whose unknown content is kept
	typeObject                       // an object with known fields (fields), or a map (values)
	typeArray                        // a list of items
	typeString                       // a string
	typeNumber                       // a JSON number
	typeInteger                      // a whole number
	typeBoolean                      // true or false
	typeIntOrString                  // a whole number or a string (a Kubernetes quantity)
)

// fieldSchema is what the tenancy reader checks of one value of a KRM
// object: its type and, for an object, its known fields. The schemas are
// derived from the project's CRDs (testdata/crds, which agree with
// upstream KRM's field for field; internal/testapiserver checks that) and,
// for metadata, from Kubernetes' ObjectMeta: krmschema_gen.go is written
// by TestKRMSchemaIsGenerated.
type fieldSchema struct {
	typ fieldType
	// fields are an object's known fields; values, when set, is the
	// schema of every value of a map (additionalProperties).
	fields map[string]*fieldSchema
	values *fieldSchema
	items  *fieldSchema
	// open marks an object that keeps unknown fields
	// (x-kubernetes-preserve-unknown-fields): they are not errors.
	open bool
	// bits is an integer's size (32 for int32), 0 when unbounded.
	bits int

	namesOnce sync.Once
	names     []string
}

// fieldNames returns the known field names, sorted.
func (s *fieldSchema) fieldNames() []string {
	s.namesOnce.Do(func() {
		for k := range s.fields {
			s.names = append(s.names, k)
		}
		slices.Sort(s.names)
	})
	return s.names
}

// anySchema is the schema of a value that is not checked: a field kept as
// given, or a document krmplan does not read.
var anySchema = &fieldSchema{typ: typeAny}

// field returns the schema of the object's field name, nil when the field
// is unknown. A map gives its value schema for every name; an open object
// gives anySchema for a name it does not declare.
func (s *fieldSchema) field(name string) *fieldSchema {
	switch {
	case s.typ == typeAny:
		return anySchema
	case s.values != nil:
		return s.values
	}
	if f, ok := s.fields[name]; ok {
		return f
	}
	if s.open {
		return anySchema
	}
	return nil
}

// Helpers of the generated schemas.

func object(open bool, fields map[string]*fieldSchema) *fieldSchema {
	return &fieldSchema{typ: typeObject, fields: fields, open: open}
}

func mapOf(values *fieldSchema) *fieldSchema { return &fieldSchema{typ: typeObject, values: values} }

func listOf(items *fieldSchema) *fieldSchema { return &fieldSchema{typ: typeArray, items: items} }

func leaf(t fieldType) *fieldSchema { return &fieldSchema{typ: t} }

func integer(bits int) *fieldSchema { return &fieldSchema{typ: typeInteger, bits: bits} }
