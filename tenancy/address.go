package tenancy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/quota"
)

// ObjectAddr names one object of a tenancy: its kind and metadata.name.
// It is comparable, for use as a map key.
type ObjectAddr struct {
	Kind Kind
	Name string
}

// Object returns the address of the object of kind k named name.
func (k Kind) Object(name string) ObjectAddr { return ObjectAddr{k, name} }

// String is "Kind/name" ("Project/workspace"), as findings name objects;
// "" for the zero address (no object).
func (o ObjectAddr) String() string {
	if o == (ObjectAddr{}) {
		return ""
	}
	return o.Kind.String() + "/" + o.Name
}

// Compare orders addresses as their text: by kind name, then by name; the
// zero address first.
func (o ObjectAddr) Compare(p ObjectAddr) int {
	if c := strings.Compare(o.Kind.String(), p.Kind.String()); c != 0 {
		return c
	}
	return strings.Compare(o.Name, p.Name)
}

// ParseObjectAddr reads String's form back; an error names the text.
func ParseObjectAddr(s string) (ObjectAddr, error) {
	kind, name, ok := strings.Cut(s, "/")
	k, err := ParseKind(kind)
	if !ok || err != nil || name == "" {
		return ObjectAddr{}, fmt.Errorf("%q is not an object address (Kind/name, such as Project/workspace)", s)
	}
	return ObjectAddr{k, name}, nil
}

// Queue returns the address of the i-th entry of the object's spec.queues.
func (o ObjectAddr) Queue(i int) QueueAddr { return QueueAddr{o, i} }

// Field returns the address of an object-level field of o (a node pool's
// labelKey, a project's parent); for a queue's field, see QueueAddr.Field.
func (o ObjectAddr) Field(f Field) FieldAddr { return FieldAddr{Object: o, Queue: NoQueue, Field: f} }

// QueueAddr names one entry of an object's spec.queues by its index.
type QueueAddr struct {
	Object ObjectAddr
	Index  int
}

// String is "Kind/name queue N" ("Project/workspace queue 0").
func (q QueueAddr) String() string { return q.Object.String() + " queue " + strconv.Itoa(q.Index) }

// Pointer is the queue's JSON pointer inside its object ("/spec/queues/0").
func (q QueueAddr) Pointer() string { return "/spec/queues/" + strconv.Itoa(q.Index) }

// Field returns the address of a field of the queue (its name, a quota).
func (q QueueAddr) Field(f Field) FieldAddr {
	return FieldAddr{Object: q.Object, Queue: q.Index, Field: f}
}

// NoQueue is FieldAddr.Queue for a field of the object itself.
const NoQueue = -1

// FieldAddr names one value of a tenancy: an object, the index of a queue
// in its spec.queues (NoQueue for a field of the object itself), and the
// field. Make it with ObjectAddr.Field or QueueAddr.Field, so that equal
// addresses are equal keys.
type FieldAddr struct {
	Object ObjectAddr
	Queue  int
	Field  Field
}

// QueueAddr returns the queue the field belongs to; ok is false for a field
// of the object itself.
func (a FieldAddr) QueueAddr() (q QueueAddr, ok bool) {
	return QueueAddr{a.Object, a.Queue}, a.Queue != NoQueue
}

// Pointer is the value's JSON pointer inside its object
// ("/spec/queues/0/resources/gpu/deserved", "/spec/parent"), as plan.json's
// change paths and state.json's positions (Origin.Values) name it.
func (a FieldAddr) Pointer() string { return a.Field.Pointer(a.Queue) }

// String is the object, the queue and the field, for messages:
// "Project/workspace queue 0 gpu.deserved", "Project/workspace parent".
func (a FieldAddr) String() string {
	if q, ok := a.QueueAddr(); ok {
		return q.String() + " " + a.Field.String()
	}
	return a.Object.String() + " " + a.Field.String()
}

// Field is one field a change can set, or a finding can point at: of an
// object (metadata.name, a node pool's label pair, a project's parent,
// namespace and defaultNodePools) or of a queue (name, nodepool, priority,
// and each resource's deserved, limit and overQuotaWeight). The zero Field
// is no field. It is comparable and small.
type Field uint8

// The fields. The quota fields follow FieldPriority, one per resource and
// QuotaField: make them with QuotaFieldOf.
const (
	FieldName             Field = iota + 1 // metadata.name
	FieldLabelKey                          // a node pool's spec.labelKey
	FieldLabelValue                        // a node pool's spec.labelValue
	FieldParent                            // a project's spec.parent
	FieldNamespace                         // a project's spec.namespace
	FieldDefaultNodePools                  // a project's spec.defaultNodePools
	FieldQueueName                         // a queue's name
	FieldQueueNodePool                     // a queue's nodepool
	FieldPriority                          // a queue's priority
	firstQuotaField
)

// fieldInfo is what a non-quota field is called: its short name (plan.json's
// change field), the pointer below its object or queue, the kind it
// belongs to (0: a queue's), and the kind of value it holds.
var fieldInfo = [...]struct {
	name, pointer string
	kind          Kind
	value         ValueKind
}{
	FieldName:             {"metadata.name", "/metadata/name", 0, ValueString},
	FieldLabelKey:         {"labelKey", "/spec/labelKey", KindNodePool, ValueString},
	FieldLabelValue:       {"labelValue", "/spec/labelValue", KindNodePool, ValueString},
	FieldParent:           {"parent", "/spec/parent", KindProject, ValueString},
	FieldNamespace:        {"namespace", "/spec/namespace", KindProject, ValueString},
	FieldDefaultNodePools: {"defaultNodePools", "/spec/defaultNodePools", KindProject, ValueList},
	FieldQueueName:        {"name", "/name", 0, ValueString},
	FieldQueueNodePool:    {"nodepool", "/nodepool", 0, ValueString},
	FieldPriority:         {"priority", "/priority", 0, ValueInt},
}

// QuotaFieldOf is the field of resource r's number f ("gpu.deserved").
func QuotaFieldOf(r quota.Resource, f QuotaField) Field {
	for i, res := range quota.Resources {
		if res == r {
			return firstQuotaField + Field(i*len(QuotaFields)) + Field(f)
		}
	}
	return 0
}

// Quota returns the resource and number of a quota field; ok is false for
// another field.
func (f Field) Quota() (r quota.Resource, q QuotaField, ok bool) {
	if f < firstQuotaField || int(f-firstQuotaField) >= len(quota.Resources)*len(QuotaFields) {
		return "", 0, false
	}
	i := int(f - firstQuotaField)
	return quota.Resources[i/len(QuotaFields)], QuotaField(i % len(QuotaFields)), true
}

// Valid reports whether f is one of the fields.
func (f Field) Valid() bool {
	_, _, quotaField := f.Quota()
	return quotaField || (f >= FieldName && f < firstQuotaField)
}

// InQueue reports whether f is a field of a queue (its address has a
// queue index).
func (f Field) InQueue() bool {
	_, _, q := f.Quota()
	return q || (f.Valid() && fieldInfo[f].kind == 0 && f != FieldName)
}

// Of reports whether an object of kind k has the field: a node pool its
// name and label pair, a department its name and queues, a project its
// name, parent, namespace, defaultNodePools and queues.
func (f Field) Of(k Kind) bool {
	switch {
	case !f.Valid():
		return false
	case f == FieldName:
		return true
	case f.InQueue():
		return k.Info().Queues
	}
	return fieldInfo[f].kind == k
}

// Value is the kind of value the field holds: a number for a quota field,
// a whole number for priority, a list of strings for defaultNodePools, a
// string for the others.
func (f Field) Value() ValueKind {
	if _, _, ok := f.Quota(); ok {
		return ValueNumber
	}
	if f.Valid() {
		return fieldInfo[f].value
	}
	return ValueNull
}

// String is the field's short name, as plan.json's changes write it:
// "gpu.deserved", "memory.overQuotaWeight", "priority", "name" (a
// queue's), "nodepool", "parent", "namespace", "defaultNodePools",
// "labelKey", "labelValue", and "metadata.name" (an object's).
func (f Field) String() string {
	if r, q, ok := f.Quota(); ok {
		return string(r) + "." + q.String()
	}
	if f.Valid() {
		return fieldInfo[f].name
	}
	return fmt.Sprintf("Field(%d)", f)
}

// Pointer is the field's JSON pointer inside its object, for the queue of
// index queue when f is a queue's field.
func (f Field) Pointer(queue int) string {
	if r, q, ok := f.Quota(); ok {
		return "/spec/queues/" + strconv.Itoa(queue) + "/resources/" + string(r) + "/" + q.String()
	}
	if !f.Valid() {
		return ""
	}
	if f.InQueue() {
		return "/spec/queues/" + strconv.Itoa(queue) + fieldInfo[f].pointer
	}
	return fieldInfo[f].pointer
}

// ParsePointer reads a value's JSON pointer inside an object back into its
// queue index (NoQueue for a field of the object) and field; an error
// names the pointer.
func ParsePointer(p string) (queue int, f Field, err error) {
	bad := func() (int, Field, error) {
		return 0, 0, fmt.Errorf("%q is not the JSON pointer of a field of a KRM object", p)
	}
	rest, inQueue := strings.CutPrefix(p, "/spec/queues/")
	if !inQueue {
		for g := FieldName; g < firstQuotaField; g++ {
			if !g.InQueue() && fieldInfo[g].pointer == p {
				return NoQueue, g, nil
			}
		}
		return bad()
	}
	num, tail, _ := strings.Cut(rest, "/")
	i, err := strconv.Atoi(num)
	if err != nil || i < 0 || strconv.Itoa(i) != num {
		return bad()
	}
	if res, ok := strings.CutPrefix(tail, "resources/"); ok {
		r, q, _ := strings.Cut(res, "/")
		qf, ok := ParseQuotaField(q)
		if g := QuotaFieldOf(quota.Resource(r), qf); ok && g != 0 {
			return i, g, nil
		}
		return bad()
	}
	for g := FieldQueueName; g <= FieldPriority; g++ {
		if fieldInfo[g].pointer == "/"+tail {
			return i, g, nil
		}
	}
	return bad()
}

// ParseField reads a field's short name (String) back; an error names the
// text.
func ParseField(name string) (Field, error) {
	if r, q, ok := strings.Cut(name, "."); ok && r != "metadata" {
		qf, ok := ParseQuotaField(q)
		if f := QuotaFieldOf(quota.Resource(r), qf); ok && f != 0 {
			return f, nil
		}
	}
	for f := FieldName; f < firstQuotaField; f++ {
		if fieldInfo[f].name == name {
			return f, nil
		}
	}
	return 0, fmt.Errorf("%q is not a field krmplan changes", name)
}
