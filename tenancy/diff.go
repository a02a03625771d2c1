package tenancy

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/krmplan/krmplan/quota"
)

// Diff returns the changes that take the tenancy base to head, as a plan
// lists them (the order config's overlay gives the same edits written in
// desired.hcl): node pools, departments, projects, each by name; an
// object's own fields, then its queues by index; in a queue its name,
// nodepool, priority, then gpu, cpu and memory, each deserved, limit,
// overQuotaWeight; an object's queue removals last, from the highest index
// down. Apply(base, changes) holds head's values.
//
// A queue entry is matched by its node pool (an object has at most one
// queue per pool), so an entry that only moved to another index of
// spec.queues is no change: KRM reads the list as a set. A field's change
// is addressed at the queue's index in base; a queue head adds is appended
// after base's queues (Change.NewQueue), every field it states a change. A
// new object's changes carry the file head read it from (Change.File).
//
// The error lists, one per line, what the model cannot plan: a node
// pool's label pair changed (KRM makes it immutable), a value head removes
// rather than changes (spec.namespace, defaultNodePools, a priority or a
// quota number left out: write the value instead), and an object that
// loses a queue while its other queues change (their indices move: make
// the removal one change and the rest another), and a setting of the
// ManagedNodesConfig or the KRMConfig that head changes (a plan's changes
// address node pools, departments and projects only: singletons).
func Diff(base, head *Tenancy) ([]Change, error) {
	bx, hx := NewIndex(base), NewIndex(head)
	d := &tenancyDiff{bx: bx}
	for _, k := range []Kind{KindNodePool, KindDepartment, KindProject} {
		names := append(slices.Clone(bx.Names(k)), hx.Names(k)...)
		slices.Sort(names)
		for _, name := range slices.Compact(names) {
			d.object(k.Object(name), hx)
		}
	}
	d.singletons(base, head)
	return d.out, errors.Join(d.errs...)
}

// tenancyDiff collects Diff's changes and what it cannot plan.
type tenancyDiff struct {
	bx   *Index
	out  []Change
	errs []error
}

func (d *tenancyDiff) errorf(o ObjectAddr, format string, args ...any) {
	d.errs = append(d.errs, fmt.Errorf("%s: "+format, append([]any{o}, args...)...))
}

// object adds the changes of one object, present in base, head or both.
func (d *tenancyDiff) object(o ObjectAddr, hx *Index) {
	inBase, inHead := d.bx.Has(o), hx.Has(o)
	switch {
	case !inHead:
		d.out = append(d.out, DestroyObject(o))
		return
	case !inBase:
		d.create(o, hx)
		return
	}
	oc := objectDiff{o: o, exists: true}
	switch o.Kind {
	case KindNodePool:
		b, h := d.bx.NodePool(o.Name), hx.NodePool(o.Name)
		if b.Spec != h.Spec {
			d.errorf(o, "the label pair changes from %s=%s to %s=%s; KRM does not allow changing a node pool's label pair after creation (create a new pool instead)",
				b.Spec.LabelKey, b.Spec.LabelValue, h.Spec.LabelKey, h.Spec.LabelValue)
		}
	case KindProject:
		d.projectFields(&oc, &d.bx.Project(o.Name).Spec, &hx.Project(o.Name).Spec)
	}
	d.queues(&oc, d.bx.Queues(o), hx.Queues(o))
	d.out = append(d.out, oc.sorted()...)
}

// create adds the changes that create o as head has it.
func (d *tenancyDiff) create(o ObjectAddr, hx *Index) {
	oc := objectDiff{o: o}
	switch o.Kind {
	case KindNodePool:
		p := hx.NodePool(o.Name)
		oc.add(o.Field(FieldLabelKey), nil, Null, String(p.Spec.LabelKey))
		oc.add(o.Field(FieldLabelValue), nil, Null, String(p.Spec.LabelValue))
	case KindProject:
		s := &hx.Project(o.Name).Spec
		oc.add(o.Field(FieldParent), nil, Null, String(s.Parent))
		if s.Namespace != "" {
			oc.add(o.Field(FieldNamespace), nil, Null, String(s.Namespace))
		}
		if len(s.DefaultNodePools) > 0 {
			oc.add(o.Field(FieldDefaultNodePools), nil, Null, List(s.DefaultNodePools))
		}
	}
	d.queues(&oc, nil, hx.Queues(o))
	file := ""
	if origin, ok := hx.Origin(o); ok && origin != nil {
		file = origin.File
	}
	for i := range oc.changes {
		oc.changes[i].File = file
	}
	d.out = append(d.out, oc.sorted()...)
}

// projectFields adds the changes of an existing project's own fields.
func (d *tenancyDiff) projectFields(oc *objectDiff, b, h *ProjectSpec) {
	if b.Parent != h.Parent { // an omitted parent is "", as KRM reads it
		oc.add(oc.o.Field(FieldParent), nil, str(b.Parent, !b.ParentOmitted), String(h.Parent))
	}
	switch {
	case b.Namespace == h.Namespace:
	case h.Namespace == "":
		d.errorf(oc.o, "the head removes spec.namespace %q; krmplan plans a new value, not a field's removal", b.Namespace)
	default:
		oc.add(oc.o.Field(FieldNamespace), nil, str(b.Namespace, b.Namespace != ""), String(h.Namespace))
	}
	switch {
	case slices.Equal(b.DefaultNodePools, h.DefaultNodePools):
	case len(h.DefaultNodePools) == 0:
		d.errorf(oc.o, "the head removes spec.defaultNodePools %v; krmplan plans a new value, not a field's removal", b.DefaultNodePools)
	default:
		before := Null
		if b.DefaultNodePools != nil {
			before = List(b.DefaultNodePools)
		}
		oc.add(oc.o.Field(FieldDefaultNodePools), nil, before, List(h.DefaultNodePools))
	}
}

// queues adds the changes of an object's queues, matched by node pool.
func (d *tenancyDiff) queues(oc *objectDiff, base, head []Queue) {
	next := len(base)
	for _, h := range head {
		idx := slices.IndexFunc(base, func(q Queue) bool { return q.NodePool == h.NodePool })
		q := queueRef{pool: h.NodePool, name: QueueName(oc.o.Name, h.Name, h.NodePool), isNew: idx < 0}
		var was Queue
		if q.isNew {
			idx, next = next, next+1
		} else {
			was = base[idx]
		}
		q.addr = oc.o.Queue(idx)
		oc.add(q.addr.Field(FieldQueueName), &q, str(was.Name, !q.isNew), String(h.Name))
		if q.isNew {
			oc.add(q.addr.Field(FieldQueueNodePool), &q, Null, String(h.NodePool))
		}
		switch {
		case h.Priority != nil:
			oc.add(q.addr.Field(FieldPriority), &q, intOf(was.Priority), Int(*h.Priority))
		case was.Priority != nil:
			d.errorf(oc.o, "the head removes the priority %d of queue %s; krmplan plans a new value, not a field's removal", *was.Priority, q.name)
		}
		d.quotas(oc, &q, &was, &h)
	}
	var removed []Change
	for i, b := range base {
		if !slices.ContainsFunc(head, func(q Queue) bool { return q.NodePool == b.NodePool }) {
			removed = append(removed, DestroyQueue(oc.o.Queue(i), b.Name, b.NodePool))
		}
	}
	if len(removed) > 0 && slices.ContainsFunc(oc.changes, func(c Change) bool { return c.Field.Queue != NoQueue }) {
		d.errorf(oc.o, "the head removes its queue on node pool %q and changes its other queues; the queues after a removed one move up, so remove the queue in one change and change the others in the next",
			removed[0].Pool)
	}
	oc.changes = append(oc.changes, removed...)
}

// quotas adds the changes of one queue's gpu, cpu and memory numbers.
func (d *tenancyDiff) quotas(oc *objectDiff, q *queueRef, was, h *Queue) {
	for _, r := range quota.Resources {
		for _, f := range QuotaFields {
			before, after := NumberOf(was.Resources.Get(r).Get(f)), NumberOf(h.Resources.Get(r).Get(f))
			if after.IsNull() && !before.IsNull() {
				d.errorf(oc.o, "the head removes %s of queue %s (%s); krmplan plans a new value, not a field's removal: write the number (KRM reads an omitted one as 0)",
					QuotaFieldOf(r, f), q.name, before)
				continue
			}
			oc.add(q.addr.Field(QuotaFieldOf(r, f)), q, before, after)
		}
	}
}

// objectDiff is the changes of one object.
type objectDiff struct {
	o       ObjectAddr
	exists  bool
	changes []Change
}

// queueRef names the queue a change belongs to, as head has it.
type queueRef struct {
	addr       QueueAddr
	name, pool string
	isNew      bool
}

// add records a change of a from before to after, unless they are equal.
func (oc *objectDiff) add(a FieldAddr, q *queueRef, before, after Value) {
	if before.Equal(after) {
		return
	}
	c := Change{Action: ActionUpdate, Field: a, Before: before, After: after}
	if !oc.exists || (q != nil && q.isNew) {
		c.Action = ActionCreate
	}
	if q != nil {
		c.Queue, c.Pool, c.NewQueue = q.name, q.pool, q.isNew && oc.exists
	}
	oc.changes = append(oc.changes, c)
}

// sorted is the object's changes: its own fields, its queues by index,
// its queue removals from the highest index down.
func (oc *objectDiff) sorted() []Change {
	sort.SliceStable(oc.changes, func(i, j int) bool { return ChangeBefore(&oc.changes[i], &oc.changes[j]) })
	return oc.changes
}

// ChangeBefore orders the changes of one object: its own fields, then its
// queues by index, then the removals from the highest queue index down
// (the queues after a removed one move up, so nothing may follow a removal
// of a lower index). Sorted stably, it keeps the fields of one queue in
// the order they were added.
func ChangeBefore(a, b *Change) bool {
	da, db := a.Action == ActionDestroy, b.Action == ActionDestroy
	switch {
	case da != db:
		return db
	case da:
		return a.Field.Queue > b.Field.Queue
	}
	return a.Field.Queue < b.Field.Queue
}

// str is a string field's value: absent when the field is.
func str(s string, present bool) Value {
	if !present {
		return Null
	}
	return String(s)
}

// intOf is a priority's value, Null when it is absent.
func intOf(p *int32) Value {
	if p == nil {
		return Null
	}
	return Int(*p)
}
