package tenancy

import (
	"fmt"
	"slices"
	"sort"
)

// Apply returns the tenancy t with changes applied, in order. t is never
// modified: the result shares with t every object the changes do not
// touch, and the objects they touch get queues of their own. It is the one
// way the program makes an after-state (the plan's target, each step's
// intermediate state, the views' pool bars, the splice's verification).
//
// A change that does not fit t is an *ApplyError naming it: an update of
// an object or queue that does not exist, a creation of one that does, a
// before value that is not what t holds, a value of the wrong type, a
// removal of an object or queue that is not there (or not of the name the
// change says), a change of an object's queues after one of them was
// removed (their indices moved).
func Apply(t *Tenancy, changes []Change) (*Tenancy, error) {
	d := NewDraft(t)
	if err := d.Apply(changes); err != nil {
		return nil, err
	}
	return d.Tenancy(), nil
}

// ApplyError is a change that does not fit the tenancy it is applied to.
type ApplyError struct {
	// Index is the change's position in the changes given to Apply.
	Index  int
	Change Change
	Msg    string
}

func (e *ApplyError) Error() string {
	return fmt.Sprintf("change %d (%s %s): %s", e.Index+1, e.Change.Action, e.Change.Field, e.Msg)
}

// Draft is a tenancy being changed: a copy of another's lists of objects
// that shares the objects until a change needs its own (copy on write).
// Apply is NewDraft and one Draft.Apply; the step order applies one step
// after another to one Draft, checking the state between them.
type Draft struct {
	t Tenancy
	x *Index
	// owned lists the objects whose queues are the draft's own; created
	// and appended the objects and queues it added (their fields start
	// absent); resort the kinds that got a new object.
	owned    map[ObjectAddr]bool
	created  map[ObjectAddr]bool
	appended map[QueueAddr]bool
	resort   map[Kind]bool
	// removed is, per object that lost a queue, the index of the last
	// queue removed: a later removal must be of a lower index, and no
	// other change of its queues may follow.
	removed map[ObjectAddr]int
}

// NewDraft starts a draft of t; t is never modified through it.
func NewDraft(t *Tenancy) *Draft {
	d := &Draft{t: *t, owned: map[ObjectAddr]bool{}, created: map[ObjectAddr]bool{}, appended: map[QueueAddr]bool{}, resort: map[Kind]bool{},
		removed: map[ObjectAddr]int{}}
	d.t.NodePools = slices.Clone(t.NodePools)
	d.t.Departments = slices.Clone(t.Departments)
	d.t.Projects = slices.Clone(t.Projects)
	d.x = NewIndex(&d.t)
	return d
}

// Tenancy is the draft's tenancy as the changes so far leave it. A later
// Apply changes it.
func (d *Draft) Tenancy() *Tenancy { return &d.t }

// Index is the draft's index, kept current by Apply.
func (d *Draft) Index() *Index { return d.x }

// Apply applies changes, in order, to the draft. A new object is placed in
// its list by name (the lists of state.json are sorted by name). On an
// error the draft holds the changes before the one that failed.
func (d *Draft) Apply(changes []Change) error {
	defer d.sortNew()
	for i := range changes {
		if msg := d.apply(&changes[i]); msg != "" {
			return &ApplyError{Index: i, Change: changes[i], Msg: msg}
		}
	}
	return nil
}

// sortNew puts the objects Apply added in their place by name, stably (as
// snapshot's Normalize orders a state), and indexes them again.
func (d *Draft) sortNew() {
	for k := range d.resort {
		switch k {
		case KindNodePool:
			sort.SliceStable(d.t.NodePools, func(i, j int) bool { return d.t.NodePools[i].Metadata.Name < d.t.NodePools[j].Metadata.Name })
		case KindDepartment:
			sort.SliceStable(d.t.Departments, func(i, j int) bool { return d.t.Departments[i].Metadata.Name < d.t.Departments[j].Metadata.Name })
		case KindProject:
			sort.SliceStable(d.t.Projects, func(i, j int) bool { return d.t.Projects[i].Metadata.Name < d.t.Projects[j].Metadata.Name })
		}
		d.x.reindex(k)
		delete(d.resort, k)
	}
}

// apply applies one change; it returns why it does not fit, or "".
func (d *Draft) apply(c *Change) string {
	o, f := c.Object(), c.Field.Field
	if c.Action == ActionDestroy {
		return d.destroy(c)
	}
	switch {
	case c.Action != ActionCreate && c.Action != ActionUpdate:
		return "unknown action"
	case !f.Of(o.Kind) || f == FieldName:
		return fmt.Sprintf("a %s has no field %s", o.Kind.Info().Word, f)
	case c.After.Kind() != f.Value():
		return fmt.Sprintf("the value %s is not what %s holds", c.After, f)
	case c.NewQueue && (c.Action != ActionCreate || !f.InQueue()):
		return "only the creation of a queue's field is part of a new queue"
	}
	if msg := d.object(c); msg != "" {
		return msg
	}
	fresh := d.created[o]
	if q, ok := c.Field.QueueAddr(); ok {
		if _, shifted := d.removed[o]; shifted {
			return fmt.Sprintf("it changes queue %d of %s after a queue of it was removed, which moved the queues' indices", q.Index, o)
		}
		msg := d.queue(c, q)
		if msg != "" {
			return msg
		}
		fresh = fresh || d.appended[q]
	}
	if msg := d.checkBefore(c, fresh); msg != "" {
		return msg
	}
	d.set(c)
	return ""
}

// object finds or creates the change's object: a creation needs an object
// the tenancy does not have (or one an earlier change created), an update
// or a new queue one it has.
func (d *Draft) object(c *Change) string {
	o := c.Object()
	exists := d.x.Has(o)
	switch {
	case c.Creates() && exists && !d.created[o]:
		return fmt.Sprintf("it creates %s, which exists", o)
	case c.Creates() && !exists:
		d.add(o)
	case !exists:
		return fmt.Sprintf("%s does not exist", o)
	case d.created[o] && !c.Creates():
		return fmt.Sprintf("it changes %s, which this plan creates, as if it existed", o)
	}
	return ""
}

// add appends an empty object o to its list, to be created field by field.
func (d *Draft) add(o ObjectAddr) {
	meta := Meta{Name: o.Name}
	var i int
	switch o.Kind {
	case KindNodePool:
		d.t.NodePools = append(d.t.NodePools, NodePool{Metadata: meta})
		i = len(d.t.NodePools) - 1
	case KindDepartment:
		d.t.Departments = append(d.t.Departments, Department{Metadata: meta})
		i = len(d.t.Departments) - 1
	case KindProject:
		d.t.Projects = append(d.t.Projects, Project{Metadata: meta})
		i = len(d.t.Projects) - 1
	}
	d.x.pos[o] = i
	d.created[o], d.owned[o], d.resort[o.Kind] = true, true, true
}

// queue finds or appends the change's queue: a creation may append the
// next queue, an update needs a queue the tenancy has.
func (d *Draft) queue(c *Change, q QueueAddr) string {
	_, _, qs, _ := d.x.object(q.Object)
	n := len(*qs)
	switch {
	case q.Index < 0 || q.Index > n || (q.Index == n && c.Action != ActionCreate):
		return fmt.Sprintf("%s has %d queues, so it has no queue %d", q.Object, n, q.Index)
	case c.Action == ActionUpdate && d.appended[q]:
		return fmt.Sprintf("it updates queue %d of %s, which this plan adds", q.Index, q.Object)
	case c.Action == ActionCreate && q.Index < n && !d.appended[q] && !d.created[q.Object]:
		return fmt.Sprintf("it creates queue %d of %s, which exists", q.Index, q.Object)
	case c.Action == ActionCreate && !c.NewQueue && !d.created[q.Object]:
		return fmt.Sprintf("it creates queue %d of %s without marking it a new queue", q.Index, q.Object)
	}
	d.own(q.Object)
	if q.Index == n {
		*qs = append(*qs, Queue{})
		d.appended[q] = true
	}
	return ""
}

// own gives object o queues of its own, before they change.
func (d *Draft) own(o ObjectAddr) {
	if d.owned[o] {
		return
	}
	d.owned[o] = true
	if _, _, qs, _ := d.x.object(o); qs != nil {
		*qs = CloneQueues(*qs)
	}
}

// checkBefore compares the change's before value with what the draft
// holds: absent for a field of an object or queue this plan adds.
func (d *Draft) checkBefore(c *Change, fresh bool) string {
	holds := Null
	if !fresh {
		holds, _ = d.x.Value(c.Field)
	}
	if !holds.Equal(c.Before) {
		return fmt.Sprintf("it says the value was %s, the tenancy holds %s", c.Before, holds)
	}
	return ""
}

// set writes the change's value into the draft's object, which is the
// draft's own (its queues are, after queue).
func (d *Draft) set(c *Change) {
	s, _ := c.After.Str()
	o := c.Object()
	switch c.Field.Field {
	case FieldLabelKey:
		d.x.NodePool(o.Name).Spec.LabelKey = s
	case FieldLabelValue:
		d.x.NodePool(o.Name).Spec.LabelValue = s
	case FieldParent:
		p := d.x.Project(o.Name)
		p.Spec.Parent, p.Spec.ParentOmitted = s, false
	case FieldNamespace:
		d.x.Project(o.Name).Spec.Namespace = s
	case FieldDefaultNodePools:
		l, _ := c.After.List()
		d.x.Project(o.Name).Spec.DefaultNodePools = slices.Clone(l)
	default:
		_, _, qs, _ := d.x.object(o)
		setQueue(&(*qs)[c.Field.Queue], c.Field.Field, c.After)
	}
}

// setQueue sets field f of queue q to v, whose kind is f's.
func setQueue(q *Queue, f Field, v Value) {
	switch f {
	case FieldQueueName:
		q.Name, _ = v.Str()
	case FieldQueueNodePool:
		q.NodePool, _ = v.Str()
	case FieldPriority:
		n, _ := v.Int()
		q.Priority = &n
	default:
		r, qf, _ := f.Quota()
		n, _ := v.Number()
		*q.Resources.Ensure(r).Slot(qf) = &n
	}
}

// destroy removes the object or the queue a destroy change names: it
// must be there, by the name the change says, and not be one this plan
// creates.
func (d *Draft) destroy(c *Change) string {
	o, f := c.Object(), c.Field.Field
	name, isName := c.Before.Str()
	switch {
	case !c.After.IsNull() || !isName:
		return "a destroy goes from the name to nothing"
	case !d.x.Has(o):
		return fmt.Sprintf("it removes %s, which does not exist", o)
	case d.created[o]:
		return fmt.Sprintf("it removes %s, which this plan creates", o)
	case f == FieldName && c.Field.Queue == NoQueue:
		if name != o.Name {
			return fmt.Sprintf("it removes %s by the name %q", o, name)
		}
		d.remove(o)
		return ""
	case f != FieldQueueName || c.Field.Queue == NoQueue:
		return fmt.Sprintf("a destroy names an object or a queue, not %s", f)
	}
	i := c.Field.Queue
	_, _, qs, _ := d.x.object(o)
	if last, ok := d.removed[o]; ok && i >= last {
		return fmt.Sprintf("it removes queue %d of %s after queue %d: an object's queues are removed from the highest index down", i, o, last)
	}
	switch {
	case qs == nil || i < 0 || i >= len(*qs):
		return fmt.Sprintf("%s has no queue %d", o, i)
	case d.appended[c.Field.Object.Queue(i)]:
		return fmt.Sprintf("it removes queue %d of %s, which this plan adds", i, o)
	case (*qs)[i].Name != name:
		return fmt.Sprintf("it removes queue %d of %s as %q, the tenancy holds %q", i, o, name, (*qs)[i].Name)
	}
	d.own(o)
	_, _, qs, _ = d.x.object(o)
	*qs = slices.Delete(*qs, i, i+1)
	if len(*qs) == 0 {
		*qs = nil // as the reader holds `queues: []`, which a splice writes
	}
	d.removed[o] = i
	return ""
}

// remove takes object o out of its list; the objects after it move up, so
// the kind is indexed again.
func (d *Draft) remove(o ObjectAddr) {
	i := d.x.pos[o]
	switch o.Kind {
	case KindNodePool:
		d.t.NodePools = slices.Delete(d.t.NodePools, i, i+1)
	case KindDepartment:
		d.t.Departments = slices.Delete(d.t.Departments, i, i+1)
	case KindProject:
		d.t.Projects = slices.Delete(d.t.Projects, i, i+1)
	}
	delete(d.x.pos, o)
	delete(d.owned, o)
	d.x.reindex(o.Kind)
}
