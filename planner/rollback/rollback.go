// Package rollback builds the steps that undo a plan's steps, the last
// first, in an order the plan's own verification covers: what
// render --format patch writes as the rollback script.
package rollback

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/tenancy"
)

// Steps returns the steps that undo p's steps, last first: step i of the
// rollback undoes plan step len(p.Steps)-i (1-based), and has that step's
// Phase, Object and Changes. A patch step becomes a patch that tests every
// value as the plan leaves it (each queue's name, each changed value) and
// puts back the value the snapshot read: a replace, or a remove where the
// snapshot had no such field (a resource block it lacked as a whole is
// removed as a whole), and a queue the step appended is removed, the last
// first, and a queue the step removed is added back at its index, as read,
// the lowest first, after tests of the queues left. A delete step (a
// removed object) becomes the create of the object as the snapshot read
// it. A create step becomes a delete (planner.StepDelete) whose Ops are
// tests only: the annotation the patch script gives the objects it creates
// (planner.CreatedByAnnotation, with p's id), each queue's name and every
// value the plan gives the object.
//
// The order is verified: undoing the plan's last k steps leaves the
// snapshot with the changes of its first len-k steps applied — the state
// the plan's own steps pass through after step len-k, which planner.Build
// made with tenancy.Apply and checked, one step at a time. So every state
// the rollback passes through holds no error the snapshot does not, and
// its last k steps alone undo the plan's first k (what a patch script that
// stopped after step k applied). An error is a plan whose order is not
// verified, or one without an id (the created objects' annotation).
func Steps(p *planner.Plan) ([]planner.Step, error) {
	switch {
	case !p.OrderVerified:
		return nil, errors.New("the plan's order is not verified, so neither is the order of its rollback")
	case p.PlanID == "":
		return nil, errors.New("the plan has no id yet (it was not written or read as plan.json)")
	}
	before, target := p.Indexes()
	out := make([]planner.Step, 0, len(p.Steps))
	for i := len(p.Steps) - 1; i >= 0; i-- {
		st := p.Steps[i]
		r := planner.Step{Phase: st.Phase, Object: st.Object, Changes: slices.Clone(st.Changes)}
		switch st.Action {
		case planner.StepCreate:
			r.Action, r.Ops = planner.StepDelete, deleteTests(target, st.Object, p.Changes, st.Changes, p.PlanID)
		case planner.StepPatch:
			r.Action, r.Ops = planner.StepPatch, undoOps(before, target, st.Object, p.Changes, st.Changes)
		case planner.StepDelete:
			// A removed object is created again as read (a new uid: KRM
			// makes its queues again).
			m, ok := before.Manifest(st.Object)
			if !ok {
				return nil, fmt.Errorf("step %d/%d: the snapshot has no %s to create again", i+1, len(p.Steps), st.Object)
			}
			r.Action, r.Manifest = planner.StepCreate, m
		default:
			return nil, fmt.Errorf("step %d/%d: action %q is not %s, %s or %s", i+1, len(p.Steps), st.Action, planner.StepPatch, planner.StepCreate, planner.StepDelete)
		}
		out = append(out, r)
	}
	return out, nil
}

// deleteTests are the tests before the deletion of object a, which the
// changes idx create: the annotation of the plan planID, each queue's
// name, then every value the changes set.
func deleteTests(target *tenancy.Index, a tenancy.ObjectAddr, changes []tenancy.Change, idx []int, planID string) []planner.Op {
	ops := []planner.Op{test(planner.CreatedByPointer, jsonString(planID))}
	for qi, q := range target.Queues(a) {
		ops = append(ops, test(a.Queue(qi).Field(tenancy.FieldQueueName).Pointer(), jsonString(q.Name)))
	}
	for _, i := range idx {
		if c := &changes[i]; c.Field.Field != tenancy.FieldQueueName {
			ops = append(ops, test(c.Field.Pointer(), c.After.AppendJSON(nil)))
		}
	}
	return ops
}

// undoOps is the JSON patch that undoes the changes idx of object a, as
// the plan's patch step made them: first every test (each touched queue's
// name as the target holds it, then each value as the plan leaves it),
// then the values put back, then the appended queues removed, the last
// first (a removal shifts the queues after it).
func undoOps(before, target *tenancy.Index, a tenancy.ObjectAddr, changes []tenancy.Change, idx []int) []planner.Op {
	var tests, puts []planner.Op
	var appended []int
	tested := map[int]bool{}
	removed := map[string]bool{}
	bq, tq := before.Queues(a), target.Queues(a)
	var readd []int // queues the step removed, put back lowest index first
	for _, i := range idx {
		c := &changes[i]
		qi, path := c.Field.Queue, c.Field.Pointer()
		if c.RemovesQueue() {
			readd = append(readd, qi)
			continue
		}
		if qi >= 0 && !tested[qi] {
			tested[qi] = true
			tests = append(tests, test(a.Queue(qi).Field(tenancy.FieldQueueName).Pointer(), jsonString(tq[qi].Name)))
			if c.NewQueue {
				appended = append(appended, qi)
			}
		}
		if c.Field.Field != tenancy.FieldQueueName {
			tests = append(tests, test(path, c.After.AppendJSON(nil)))
		}
		switch {
		case c.NewQueue:
			// The queue goes as a whole, below.
		case !c.Before.IsNull():
			puts = append(puts, replace(path, c.Before.AppendJSON(nil)))
		case c.Resource() != "" && bq[qi].Resources.Get(c.Resource()) == nil:
			// The plan's patch added the whole block: remove it once.
			block := a.Queue(qi).Pointer() + "/resources/" + string(c.Resource())
			if !removed[block] {
				removed[block] = true
				puts = append(puts, planner.Op{Op: planner.OpRemove, Path: block})
			}
		default:
			puts = append(puts, planner.Op{Op: planner.OpRemove, Path: path})
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(appended)))
	for _, qi := range appended {
		puts = append(puts, planner.Op{Op: planner.OpRemove, Path: a.Queue(qi).Pointer()})
	}
	// A removal step removes queues and changes nothing else of them, so
	// the entries left are the snapshot's without the removed ones: each
	// goes back at its index, lowest first, after a test of the entry now
	// at that index (or of the entry before it, at the end).
	sort.Ints(readd)
	for _, qi := range readd {
		q, _ := json.Marshal(bq[qi]) // plain data
		puts = append(puts, planner.Op{Op: planner.OpAdd, Path: a.Queue(qi).Pointer(), Value: q})
	}
	if len(readd) > 0 {
		tests = append(tests, queueNow(a, bq, readd)...)
	}
	return append(tests, puts...)
}

// queueNow are the tests of the queues of a as a removal step leaves
// them: the snapshot's queues bq without those at the indices removed.
func queueNow(a tenancy.ObjectAddr, bq []tenancy.Queue, removed []int) []planner.Op {
	var ops []planner.Op
	at := 0
	for qi, q := range bq {
		if slices.Contains(removed, qi) {
			continue
		}
		ops = append(ops, test(a.Queue(at).Field(tenancy.FieldQueueName).Pointer(), jsonString(q.Name)))
		at++
	}
	return ops
}

// jsonString is s as a JSON string.
func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// test is the JSON-patch test that the value at path is v.
func test(path string, v json.RawMessage) planner.Op {
	return planner.Op{Op: planner.OpTest, Path: path, Value: v}
}

// replace is the JSON-patch replace of the value at path with v.
func replace(path string, v json.RawMessage) planner.Op {
	return planner.Op{Op: planner.OpReplace, Path: path, Value: v}
}
