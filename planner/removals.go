package planner

// The steps of removals: a queue entry removed by a JSON patch after tests
// of the entry as read, an object deleted after tests of the object as read.

import (
	"encoding/json"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
)

// removalPhase is the phase of the removal of an object of kind k or of
// one of its queues.
func removalPhase(k tenancy.Kind) Phase {
	switch k {
	case tenancy.KindProject:
		return PhaseRemoveProjects
	case tenancy.KindDepartment:
		return PhaseRemoveDepartments
	}
	return PhaseRemovePools
}

// queueTests are the tests of queue qi of object a as read: its name, its
// node pool, its priority when set, and every quota value it states. A
// patch that removes the entry fails (422) when any of them changed, so a
// queue someone edited since the snapshot is never removed unseen.
func queueTests(a tenancy.ObjectAddr, qi int, q *tenancy.Queue) []Op {
	qa := a.Queue(qi)
	ops := []Op{
		{OpTest, qa.Field(tenancy.FieldQueueName).Pointer(), jsonValue(q.Name)},
		{OpTest, qa.Field(tenancy.FieldQueueNodePool).Pointer(), jsonValue(q.NodePool)},
	}
	if q.Priority != nil {
		ops = append(ops, Op{OpTest, qa.Field(tenancy.FieldPriority).Pointer(), jsonValue(*q.Priority)})
	}
	for _, r := range quota.Resources {
		for _, f := range tenancy.QuotaFields {
			if v := q.Resources.Get(r).Get(f); v != nil {
				ops = append(ops, Op{OpTest, qa.Field(tenancy.QuotaFieldOf(r, f)).Pointer(), tenancy.Number(*v).AppendJSON(nil)})
			}
		}
	}
	return ops
}

// removeOps is the JSON patch that removes the queues of object a that the
// changes idx remove, highest index first (each removal moves the entries
// after it up): per queue its tests, then `remove /spec/queues/<i>`.
func removeOps(before *tenancy.Index, a tenancy.ObjectAddr, changes []tenancy.Change, idx []int) []Op {
	var ops []Op
	qs := before.Queues(a)
	for _, i := range idx {
		qi := changes[i].Field.Queue
		ops = append(ops, queueTests(a, qi, &qs[qi])...)
		ops = append(ops, Op{OpRemove, a.Queue(qi).Pointer(), nil})
	}
	return ops
}

// deleteTests are the tests of object a as read before it is deleted: its
// metadata.uid when the snapshot has it (a live snapshot), a node pool's
// label pair, a project's parent, and every queue (queueTests). The patch
// script runs them as a patch that changes nothing, then deletes with the
// uid as a precondition, so a namesake created since is never deleted.
func deleteTests(before *tenancy.Index, a tenancy.ObjectAddr) []Op {
	var ops []Op
	if m := before.Meta(a); m != nil && m.UID != "" {
		ops = append(ops, Op{OpTest, "/metadata/uid", jsonValue(m.UID)})
	}
	switch a.Kind {
	case tenancy.KindNodePool:
		if p := before.NodePool(a.Name); p != nil && p.Spec.LabelKey != "" {
			ops = append(ops, Op{OpTest, a.Field(tenancy.FieldLabelKey).Pointer(), jsonValue(p.Spec.LabelKey)},
				Op{OpTest, a.Field(tenancy.FieldLabelValue).Pointer(), jsonValue(p.Spec.LabelValue)})
		}
	case tenancy.KindProject:
		if p := before.Project(a.Name); p != nil && p.Spec.Parent != "" {
			ops = append(ops, Op{OpTest, a.Field(tenancy.FieldParent).Pointer(), jsonValue(p.Spec.Parent)})
		}
	}
	qs := before.Queues(a)
	for qi := range qs {
		ops = append(ops, queueTests(a, qi, &qs[qi])...)
	}
	return ops
}

// TestedUID returns the uid that a delete step's first op tests (the
// snapshot's uid of the object); ok is false when the snapshot had none
// (a git snapshot): the uid is then read when the step runs.
func (st *Step) TestedUID() (uid string, ok bool) {
	if len(st.Ops) == 0 || st.Ops[0].Op != OpTest || st.Ops[0].Path != "/metadata/uid" {
		return "", false
	}
	if err := json.Unmarshal(st.Ops[0].Value, &uid); err != nil || uid == "" {
		return "", false
	}
	return uid, true
}
