package tenancy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/quota"
)

// Action is what a change does to its field, in Terraform's grammar.
type Action uint8

// The actions.
const (
	// ActionCreate sets a field of a new object, or of a queue appended to
	// an existing object (Change.NewQueue): "+" in a plan.
	ActionCreate Action = iota + 1
	// ActionUpdate sets a field of an existing queue or object: "~".
	ActionUpdate
	// ActionDestroy removes an object or one queue entry of a department
	// or project: "-". Its field is the object's metadata.name, or the
	// queue's name; Before is that name and After is Null (see
	// DestroyObject and DestroyQueue).
	ActionDestroy
)

var actionNames = [...]string{ActionCreate: "create", ActionUpdate: "update", ActionDestroy: "destroy"}

// String is "create", "update" or "destroy", as plan.json writes it.
func (a Action) String() string {
	if a >= ActionCreate && int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", a)
}

// ParseAction reads String's form back.
func ParseAction(s string) (Action, error) {
	for a := ActionCreate; int(a) < len(actionNames); a++ {
		if actionNames[a] == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("%q is not an action (create, update or destroy)", s)
}

// Location is where a value, or the cause of a finding, is written: a line
// of a tenancy file (from the snapshot) or a range of desired.hcl.
type Location struct {
	File string `json:"file"`
	Line int    `json:"line"`
	// Column and the End fields are 1-based; StartByte/EndByte are offsets
	// into the file. For a desired.hcl range they let a view underline the
	// expression the way an HCL diagnostic does.
	Column    int  `json:"column,omitempty"`
	EndLine   int  `json:"end_line,omitempty"`
	EndColumn int  `json:"end_column,omitempty"`
	StartByte int  `json:"start_byte,omitempty"`
	EndByte   int  `json:"end_byte,omitempty"`
	Desired   bool `json:"desired,omitempty"` // true for a range of desired.hcl
	// Base marks, in a plan between two git refs (whose findings point at
	// the head's lines), a line of the base: a value the head removes.
	Base bool `json:"base,omitempty"`
}

// Change is one field that a plan sets to a new value: the plan's unit,
// from which the target state (Apply), the steps, the views and the splice
// all follow.
type Change struct {
	// Action is ActionCreate for a field of a new object or of a new
	// queue, ActionUpdate for a field of an existing queue or object.
	Action Action
	// Field is the value's address; its queue index is the queue's index
	// in spec.queues.
	Field FieldAddr
	// Before and After are the field's value; Before is Null when the
	// field is absent (omitted in the source, or a new object or queue).
	Before, After Value
	// Queue and Pool are the name and node pool of the queue the field
	// belongs to, as the plan leaves it ("" for a field of the object).
	Queue, Pool string
	// NewQueue marks a field of a queue that the plan appends to an
	// existing object (a queue of a new object is part of its creation).
	NewQueue bool
	// File is the tenancy file desired.hcl names (file = "...") for a new
	// object; set on every change of that object, "" otherwise.
	File string
	// Source is where desired.hcl sets the value, when it does.
	Source *Location
	// Force is a destroy's `force = true`: the removal of something in
	// use is then a warning, not an error.
	Force bool
	// MovedTo is, on the destroy of a project, the project a `moved`
	// block renames it to: the plan creates that project (with this one's
	// spec and namespace) before it removes this one.
	MovedTo string
}

// MovedFrom is the project that a `moved` block among changes renames to
// project to (the destroy whose MovedTo is to), "" when none does.
func MovedFrom(changes []Change, to string) string {
	for i := range changes {
		if c := &changes[i]; to != "" && c.MovedTo == to && c.Action == ActionDestroy {
			return c.Object().Name
		}
	}
	return ""
}

// Object is the address of the changed object.
func (c *Change) Object() ObjectAddr { return c.Field.Object }

// Creates reports whether c is part of a new object's creation (not of a
// queue appended to an existing one).
func (c *Change) Creates() bool { return c.Action == ActionCreate && !c.NewQueue }

// Destroys reports whether c removes its whole object (not one queue).
func (c *Change) Destroys() bool { return c.Action == ActionDestroy && c.Field.Queue == NoQueue }

// RemovesQueue reports whether c removes one queue entry of its object.
func (c *Change) RemovesQueue() bool { return c.Action == ActionDestroy && c.Field.Queue != NoQueue }

// DestroyObject is the change that removes object o, which is named name.
func DestroyObject(o ObjectAddr) Change {
	return Change{Action: ActionDestroy, Field: o.Field(FieldName), Before: String(o.Name), After: Null}
}

// DestroyQueue is the change that removes queue q, named name on node
// pool pool, from its object's spec.queues. Before is the entry's name as
// written ("" for a name KRM derives); Queue is the KAI Queue's name
// (QueueName: "nlp-a100" for nlp's unnamed entry on a100), as every other
// change names its queue. The queues after it move up by one, so a plan
// removes an object's queues from the highest index down, after every
// other change of that object.
func DestroyQueue(q QueueAddr, name, pool string) Change {
	return Change{Action: ActionDestroy, Field: q.Field(FieldQueueName), Before: String(name), After: Null,
		Queue: QueueName(q.Object.Name, name, pool), Pool: pool}
}

// Resource is the quota resource of a quota field, "" for another field.
func (c *Change) Resource() quota.Resource {
	r, _, _ := c.Field.Field.Quota()
	return r
}

// Shrinks reports whether c lowers a deserved or a limit (-1 is +∞, an
// absent bound is 0, as KRM reads it): such changes are applied before the
// growing ones.
func (c *Change) Shrinks() bool {
	_, q, ok := c.Field.Field.Quota()
	after, isNum := c.After.Number()
	if !ok || q == OverQuotaWeight || !isNum {
		return false
	}
	before, _ := c.Before.Number() // quota.Zero when absent
	return after.Cmp(before) < 0
}

// Describe names the change for messages: "gpu.deserved of queue
// research-h100", or "parent of project workspace".
func (c *Change) Describe() string {
	if c.Queue != "" {
		return c.Field.Field.String() + " of queue " + c.Queue
	}
	return c.Field.Field.String() + " of " + strings.ToLower(c.Object().Kind.String()) + " " + c.Object().Name
}

// changeJSON is a change as plan.json writes it.
type changeJSON struct {
	Action     string          `json:"action"`
	Kind       Kind            `json:"kind"`
	Object     string          `json:"object"`
	Queue      string          `json:"queue,omitempty"`
	Pool       string          `json:"pool,omitempty"`
	QueueIndex int             `json:"queue_index"`
	NewQueue   bool            `json:"new_queue,omitempty"`
	File       string          `json:"file,omitempty"`
	Field      string          `json:"field"`
	Path       string          `json:"path"`
	Before     json.RawMessage `json:"before"`
	After      json.RawMessage `json:"after"`
	Source     *Location       `json:"source,omitempty"`
	Resource   string          `json:"resource,omitempty"`
	Shrinks    bool            `json:"shrinks,omitempty"`
	Force      bool            `json:"force,omitempty"`
	MovedTo    string          `json:"moved_to,omitempty"`
}

// MarshalJSON writes the change as plan.json holds it: action, kind,
// object, queue, pool, queue_index (-1 for a field of the object),
// new_queue, file, field (the short name), path (the JSON pointer), before,
// after, source, resource, shrinks, force and moved_to.
func (c Change) MarshalJSON() ([]byte, error) {
	w := changeJSON{Action: c.Action.String(), Kind: c.Field.Object.Kind, Object: c.Field.Object.Name,
		Queue: c.Queue, Pool: c.Pool, QueueIndex: c.Field.Queue, NewQueue: c.NewQueue, File: c.File,
		Field: c.Field.Field.String(), Path: c.Field.Pointer(), Before: c.Before.AppendJSON(nil), After: c.After.AppendJSON(nil),
		Source: c.Source, Resource: string(c.Resource()), Shrinks: c.Shrinks(), Force: c.Force, MovedTo: c.MovedTo}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as the file: a value's strings are escaped as json.Marshal escapes them (AppendJSON)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads MarshalJSON's form, strictly: an unknown member, a
// field that does not match its path or its kind, a queue_index or a
// resource that does not match the path, a value of the wrong type, or a
// shrinks that the values do not give is an error naming the member.
func (c *Change) UnmarshalJSON(b []byte) error {
	var w changeJSON
	if err := jsonfile.UnmarshalStrict(b, &w); err != nil {
		return err
	}
	action, err := ParseAction(w.Action)
	if err != nil {
		return fmt.Errorf("action: %w", err)
	}
	at, err := decodeAddr(w)
	if err != nil {
		return err
	}
	k := at.Field.Value()
	before, err := DecodeValue(k, w.Before)
	if err != nil {
		return fmt.Errorf("%s: before: %w", at, err)
	}
	after, err := DecodeValue(k, w.After)
	if err != nil {
		return fmt.Errorf("%s: after: %w", at, err)
	}
	*c = Change{Action: action, Field: at, Before: before, After: after, Queue: w.Queue, Pool: w.Pool,
		NewQueue: w.NewQueue, File: w.File, Source: w.Source, Force: w.Force, MovedTo: w.MovedTo}
	if r := c.Resource(); string(r) != w.Resource {
		return fmt.Errorf("%s: resource %q, but the field's resource is %q", at, w.Resource, r)
	}
	if w.Force && action != ActionDestroy {
		return fmt.Errorf("%s: force belongs to a destroy only", at)
	}
	if w.MovedTo != "" && (action != ActionDestroy || at.Object.Kind != KindProject || at.Queue != NoQueue) {
		return fmt.Errorf("%s: moved_to belongs to the destroy of a project only", at)
	}
	if c.Shrinks() != w.Shrinks {
		return fmt.Errorf("%s: shrinks is %v, but %s -> %s does not say so", at, w.Shrinks, before, after)
	}
	return nil
}

// decodeAddr reads a change's address from its kind, object, path, field
// and queue_index, which must agree.
func decodeAddr(w changeJSON) (FieldAddr, error) {
	if !w.Kind.Valid() || w.Object == "" {
		return FieldAddr{}, fmt.Errorf("a change needs a kind and an object, got %q %q", w.Kind, w.Object)
	}
	o := w.Kind.Object(w.Object)
	queue, f, err := ParsePointer(w.Path)
	if err != nil {
		return FieldAddr{}, fmt.Errorf("%s: path: %w", o, err)
	}
	at := FieldAddr{Object: o, Queue: queue, Field: f}
	switch {
	case f.String() != w.Field:
		return at, fmt.Errorf("%s: field %q, but the path %s is %s", o, w.Field, w.Path, f)
	case w.QueueIndex != queue:
		return at, fmt.Errorf("%s: queue_index %d, but the path %s says %d", o, w.QueueIndex, w.Path, queue)
	case w.Action == ActionDestroy.String() && f != FieldName && f != FieldQueueName:
		return at, fmt.Errorf("%s: a destroy names an object's metadata.name or a queue's name, not %s", o, f)
	case !f.Of(o.Kind) || (f == FieldName && w.Action != ActionDestroy.String()):
		return at, fmt.Errorf("%s: a %s has no field %s that a plan sets", o, o.Kind.Info().Word, f)
	}
	return at, nil
}
