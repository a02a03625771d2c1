package removal

import (
	"encoding/json"
	"fmt"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
)

// Op is one JSON-patch (RFC 6902) operation of a removal step, as
// planner.Op holds it: a "test" of a value as read, or a "remove" (no
// Value) of a queue entry.
type Op struct {
	Op, Path string
	Value    json.RawMessage
}

func test(path string, v any) Op {
	b, _ := json.Marshal(v) // strings and whole numbers
	return Op{"test", path, b}
}

// QueueTests are the tests of queue qi of object a as read: its name, its
// node pool, its priority when set, and every quota value it states. A
// patch that removes the entry fails (422) when any of them changed, so a
// queue someone edited since the snapshot is never removed unseen.
func QueueTests(a tenancy.ObjectAddr, qi int, q *tenancy.Queue) []Op {
	qa := a.Queue(qi)
	ops := []Op{
		test(qa.Field(tenancy.FieldQueueName).Pointer(), q.Name),
		test(qa.Field(tenancy.FieldQueueNodePool).Pointer(), q.NodePool),
	}
	if q.Priority != nil {
		ops = append(ops, test(qa.Field(tenancy.FieldPriority).Pointer(), *q.Priority))
	}
	for _, r := range quota.Resources {
		for _, f := range tenancy.QuotaFields {
			if v := q.Resources.Get(r).Get(f); v != nil {
				ops = append(ops, Op{"test", qa.Field(tenancy.QuotaFieldOf(r, f)).Pointer(), tenancy.Number(*v).AppendJSON(nil)})
			}
		}
	}
	return ops
}

// RemoveOps is the JSON patch that removes the queues of object a that the
// changes idx remove, highest index first (each removal moves the entries
// after it up): per queue its tests, then `remove /spec/queues/<i>`.
func RemoveOps(before *tenancy.Index, a tenancy.ObjectAddr, changes []tenancy.Change, idx []int) []Op {
	var ops []Op
	qs := before.Queues(a)
	for _, i := range idx {
		qi := changes[i].Field.Queue
		ops = append(ops, QueueTests(a, qi, &qs[qi])...)
		ops = append(ops, Op{"remove", a.Queue(qi).Pointer(), nil})
	}
	return ops
}

// DeleteTests are the tests of object a as read before it is deleted: its
// metadata.uid when the snapshot has it (a live snapshot), a node pool's
// label pair, a project's parent, and every queue (queueTests). The patch
// script runs them as a patch that changes nothing, then deletes with the
// uid as a precondition, so a namesake created since is never deleted.
func DeleteTests(before *tenancy.Index, a tenancy.ObjectAddr) []Op {
	var ops []Op
	if m := before.Meta(a); m != nil && m.UID != "" {
		ops = append(ops, test("/metadata/uid", m.UID))
	}
	switch a.Kind {
	case tenancy.KindNodePool:
		if p := before.NodePool(a.Name); p != nil && p.Spec.LabelKey != "" {
			ops = append(ops, test(a.Field(tenancy.FieldLabelKey).Pointer(), p.Spec.LabelKey),
				test(a.Field(tenancy.FieldLabelValue).Pointer(), p.Spec.LabelValue))
		}
	case tenancy.KindProject:
		if p := before.Project(a.Name); p != nil && p.Spec.Parent != "" {
			ops = append(ops, test(a.Field(tenancy.FieldParent).Pointer(), p.Spec.Parent))
		}
	}
	qs := before.Queues(a)
	for qi := range qs {
		ops = append(ops, QueueTests(a, qi, &qs[qi])...)
	}
	return ops
}

// Orphans are the errors of the changes idx (one step's) that remove a
// department's queue while projects of the department still have queues on
// its pool in x, the state after them: the checks of a state alone see a
// root queue there, a warning, but in the cluster that queue is an orphan
// until KRM reconciles its project. A removal with force = true allows it.
func Orphans(x *tenancy.Index, changes []tenancy.Change, idx []int) []Finding {
	var out []Finding
	for _, i := range idx {
		c := &changes[i]
		if !c.RemovesQueue() || c.Object().Kind != tenancy.KindDepartment || c.Force {
			continue
		}
		if kids := ProjectsOnPool(x, c.Object().Name, c.Pool); len(kids) > 0 {
			out = append(out, Finding{Code: CodeOrphansQueues, Level: Error, Object: c.Object(), Queue: c.Queue, Pool: c.Pool,
				Message: fmt.Sprintf("%s: department %s's queue on node pool %s is removed while %s still %s queues there", c.Queue, c.Object().Name, c.Pool, listOf("project", kids), verb(kids, "has", "have"))})
		}
	}
	return out
}
