package planner

// The verification of the step order: every intermediate state a plan's
// steps pass through must hold no error that the snapshot does not.

import (
	"fmt"

	"github.com/krmplan/krmplan/planner/removal"
	"github.com/krmplan/krmplan/planner/scope"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// added is the errors one step adds, in the order Check sorts them.
type added struct {
	n      int
	st     Step
	errors []Finding
}

// stepErrors applies the steps one by one to the snapshot (a tenancy.Draft)
// and returns, for each step that adds errors to the state, those errors.
// before is the snapshot (sh is made from it), bx and tx index its
// tenancy and the target's.
// It needs no findings of before, so that Build runs it while the checks
// of before run on another core.
//
// It gives the answer of running Check on every intermediate state, in time
// linear in the tenancy: a step changes one object, so it can only add
// errors about that object and what the checks compare it with. An error
// of the catalogue is about one object (its values, its defaultNodePools),
// a department and its projects (their guarantees), a node pool, the
// queues at its top and its nodes (the pool's cards), or objects that share
// a queue name, a namespace or a label pair. So each step is checked on the
// scope of its object: the object, its department and that department's
// projects, the tops and nodes of the pools whose capacity it counts in
// when it raises a gpu guarantee there, and for a change of names,
// namespaces or structure everything that shares one with it.
// The scope's errors after the step that it did not have before the step
// are exactly the errors the step adds to the whole state, with the same
// messages (the scope holds everything they are computed from). The rest of
// the state does not change, so it keeps the errors of the state before,
// which passed. A step that adds a node pool, or touches the default pool
// (its nodes are all those of no other pool), is checked on the whole state.
func (sh *shared) stepErrors(before *snapshot.State, bx, tx *tenancy.Index, changes []tenancy.Change, steps []Step) []added {
	var out []added
	rel := scope.NewRelations(before, bx, tx)
	work := tenancy.NewDraft(&before.Tenancy)
	renamed := removal.Renamed(changes)
	for n, st := range steps[:max(len(steps)-1, 0)] { // the last state is the target, checked on its own
		sc := rel.Scope(changes, st.Object, st.Changes, st.Action == StepCreate)
		pools := sc.Pools
		if sc.All {
			pools = nil
		}
		// The errors the scope has before the step are needed only when it
		// has some after it (in a clean plan most scopes have none). A part
		// of the state is its own copy of the objects, and gets its own
		// copy of the queues of the step's object, which the step may change
		// in place: kept, it is checked after the step only if need be. The
		// whole state shares the draft's lists, so it is checked now.
		var had map[findingKey]bool
		var prior *snapshot.State
		if sc.All {
			had = keys(sh.errorsIn(sc.Extract(before, work.Index()), pools))
		} else {
			prior = sc.Extract(before, work.Index())
			ownQueues(prior, st.Object)
		}
		if err := work.Apply(stepChanges(changes, st)); err != nil {
			// The steps are made of the changes: this is a bug, said as
			// the step's error rather than passed.
			out = append(out, added{n, st, []Finding{{Code: CodeUnsafeOrder, Level: LevelError, Object: st.Object, Message: "the step does not apply: " + err.Error()}}})
			return out
		}
		var errs []Finding
		after := sh.errorsIn(sc.Extract(before, work.Index()), pools)
		if len(after) > 0 && had == nil {
			had = keys(sh.errorsIn(prior, pools))
		}
		for _, f := range after {
			if !had[f.key()] && (f.Code != CodeSharedNamespace || !renamed[f.Object]) {
				errs = append(errs, f)
			}
		}
		errs = append(errs, findings(removal.Orphans(work.Index(), changes, st.Changes))...)
		if len(errs) > 0 {
			out = append(out, added{n, st, errs})
		}
	}
	return out
}

// keys is the set of the findings' keys.
func keys(fs []Finding) map[findingKey]bool {
	out := make(map[findingKey]bool, len(fs))
	for _, f := range fs {
		out[f.key()] = true
	}
	return out
}

// ownQueues gives the department or project o of the part of a state s
// its own copy of its queues.
func ownQueues(s *snapshot.State, o tenancy.ObjectAddr) {
	for i := range s.Departments {
		if d := &s.Departments[i]; o == tenancy.KindDepartment.Object(d.Metadata.Name) {
			d.Spec.Queues = tenancy.CloneQueues(d.Spec.Queues)
		}
	}
	for i := range s.Projects {
		if p := &s.Projects[i]; o == tenancy.KindProject.Object(p.Metadata.Name) {
			p.Spec.Queues = tenancy.CloneQueues(p.Spec.Queues)
		}
	}
}

// stepChanges is the changes a step applies, in its order.
func stepChanges(changes []tenancy.Change, st Step) []tenancy.Change {
	out := make([]tenancy.Change, len(st.Changes))
	for i, ci := range st.Changes {
		out[i] = changes[ci]
	}
	return out
}

// firstUnsafe returns the finding for the first step that adds an error
// the snapshot does not have (nil when there is none). The steps before it
// only added errors the snapshot has, so the states they reach hold no
// other: the first such error of the step is the first of its state.
func firstUnsafe(steps []added, beforeFindings []Finding) *Finding {
	allowed := map[findingKey]bool{}
	for _, f := range beforeFindings {
		if f.Level == LevelError {
			allowed[f.key()] = true
		}
	}
	for _, a := range steps {
		for _, f := range a.errors {
			if !allowed[f.key()] {
				return unsafeOrder(a.n, a.st, f)
			}
		}
	}
	return nil
}

// unsafeOrder is the finding of an order whose step n (0-based) makes the
// error f.
func unsafeOrder(n int, st Step, f Finding) *Finding {
	return &Finding{Code: CodeUnsafeOrder, Level: LevelError, Object: st.Object,
		Message: fmt.Sprintf("no safe order: after step %d (%s %s %s, %s) the state would have an error this plan does not end with: %s",
			n+1, st.Action, st.Object.Kind, st.Object.Name, st.Phase, f.Message)}
}
