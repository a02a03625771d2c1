package planner

import (
	"encoding/json"
	"sort"

	"github.com/krmplan/krmplan/planner/removal"
	"github.com/krmplan/krmplan/tenancy"
)

// Phase is a group of the steps of a rendered change; the phases run in
// order. Shrinking before
// growing keeps every intermediate state within the checks: a project
// gives cards back before its department shrinks, and a department grows
// before its projects claim the cards.
type Phase string

// The phases, in their usual order (phaseRank). Removals put children
// before parents: project queues and projects go first (they only give
// cards back), department queues and departments after every project has
// left them, node pools last, after every queue on them is gone.
const (
	PhaseNewPools          Phase = "new node pools"
	PhaseRemoveProjects    Phase = "removing projects and project queues"
	PhaseShrinkProjects    Phase = "shrinking projects"
	PhaseShrinkDepartments Phase = "shrinking departments"
	PhaseGrowDepartments   Phase = "growing or new departments"
	PhaseGrowProjects      Phase = "growing or new projects"
	// PhaseRemoveRenamed removes the old project of a `moved` block, after
	// the new one is created with its spec and namespace.
	PhaseRemoveRenamed     Phase = "removing renamed projects"
	PhaseRemoveDepartments Phase = "removing departments and department queues"
	PhaseRemovePools       Phase = "removing node pools"
)

// StepAction is what a step does to its object: patch it, or create it.
type StepAction string

// The step actions, as plan.json and the patch script write them.
const (
	StepPatch  StepAction = "patch"  // kubectl patch --type=json
	StepCreate StepAction = "create" // kubectl create -f -
	// StepDelete deletes the object: a step of a plan that removes it
	// (removed blocks), or of a rollback (planner/rollback) that deletes an
	// object the plan creates. Its Ops are tests only — of the object as
	// read (its uid when the snapshot has it, its values), or as the plan
	// left it — run as a server dry run before a DELETE with the object's
	// uid as the precondition.
	StepDelete StepAction = "delete"
)

// JSON-patch operation names (RFC 6902).
const (
	OpTest    = "test"
	OpReplace = "replace"
	OpAdd     = "add"
	OpRemove  = "remove"
)

var phaseRank = map[Phase]int{PhaseNewPools: 0, PhaseRemoveProjects: 1, PhaseShrinkProjects: 2, PhaseShrinkDepartments: 3,
	PhaseGrowDepartments: 4, PhaseGrowProjects: 5, PhaseRemoveRenamed: 6, PhaseRemoveDepartments: 7, PhaseRemovePools: 8}

// moveRank is the order tried when a project changes department and the
// usual order fails: the project must leave its old department before that
// department shrinks, and can join the new one only after it grows, so
// departments grow, then projects move or grow, then departments shrink.
// (When the pool is full this order fails too: the guarantees would have
// to pass through a state over the pool, and the plan says no safe order
// exists; moving such a project takes two plans.)
var moveRank = map[Phase]int{PhaseNewPools: 0, PhaseRemoveProjects: 1, PhaseShrinkProjects: 2, PhaseGrowDepartments: 3,
	PhaseGrowProjects: 4, PhaseRemoveRenamed: 5, PhaseShrinkDepartments: 6, PhaseRemoveDepartments: 7, PhaseRemovePools: 8}

// Op is one JSON-patch (RFC 6902) operation. Value is written whenever it
// is set, as "test", "replace" and "add" require (a JSON null is the four
// bytes null); a "remove" has none.
type Op struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
}

// Step is one command of the rendered change: a JSON patch of one object
// in one phase, or the creation of a new object.
type Step struct {
	Phase  Phase
	Action StepAction
	Object tenancy.ObjectAddr
	// Changes are the indices into Plan.Changes that this step applies.
	Changes []int
	// Ops is the JSON patch of a patch step: every replace is preceded by
	// a test of the queue's name at its index and of the value as read.
	Ops []Op
	// Manifest is the whole new object of a create step, as kubectl
	// creates it.
	Manifest json.RawMessage
}

// BuildSteps groups the changes into steps and orders them in phases.
// before and target index the snapshot's tenancy and the plan's target.
func BuildSteps(before, target *tenancy.Index, changes []tenancy.Change) []Step {
	return buildStepsIn(before, target, changes, phaseRank)
}

// buildStepsIn is BuildSteps with the phases ranked by rank.
func buildStepsIn(before, target *tenancy.Index, changes []tenancy.Change, rank map[Phase]int) []Step {
	type group struct {
		addr    tenancy.ObjectAddr
		create  bool
		destroy []int // the object's removal
		remove  []int // removals of its queues, highest index first
		shrink  []int
		grow    []int
	}
	var groups []*group
	byObj := map[tenancy.ObjectAddr]*group{}
	for i := range changes {
		c := &changes[i]
		g := byObj[c.Object()]
		if g == nil {
			g = &group{addr: c.Object()}
			byObj[c.Object()] = g
			groups = append(groups, g)
		}
		switch {
		case c.Destroys():
			g.destroy = append(g.destroy, i)
		case c.RemovesQueue():
			g.remove = append(g.remove, i)
		case c.Creates():
			g.create = true
			g.grow = append(g.grow, i)
		case c.Shrinks() && !c.NewQueue:
			g.shrink = append(g.shrink, i)
		default:
			g.grow = append(g.grow, i)
		}
	}
	var steps []Step
	for _, g := range groups {
		if len(g.destroy) > 0 {
			phase := removalPhases[g.addr.Kind]
			if changes[g.destroy[0]].MovedTo != "" {
				phase = PhaseRemoveRenamed
			}
			steps = append(steps, Step{Phase: phase, Action: StepDelete, Object: g.addr,
				Changes: g.destroy, Ops: ops(removal.DeleteTests(before, g.addr))})
			continue
		}
		if len(g.remove) > 0 {
			// The object's other changes (of its own fields: config
			// refuses queue changes beside a queue removal) go in the
			// same patch, before the removals: a defaultNodePools that
			// drops the removed queue's pool must not come after it.
			other := append(append([]int{}, g.shrink...), g.grow...)
			sort.Ints(other)
			patch := patchOps(before, target, g.addr, changes, other)
			steps = append(steps, Step{Phase: removalPhases[g.addr.Kind], Action: StepPatch, Object: g.addr,
				Changes: append(other, g.remove...), Ops: append(patch, ops(removal.RemoveOps(before, g.addr, changes, g.remove))...)})
			continue
		}
		if g.create {
			steps = append(steps, Step{Phase: phaseFor(g.addr.Kind, false), Action: StepCreate, Object: g.addr,
				Changes: g.grow, Manifest: manifest(target, g.addr)})
			continue
		}
		for _, part := range []struct {
			idx    []int
			shrink bool
		}{{g.shrink, true}, {g.grow, false}} {
			if len(part.idx) == 0 {
				continue
			}
			steps = append(steps, Step{Phase: phaseFor(g.addr.Kind, part.shrink), Action: StepPatch, Object: g.addr,
				Changes: part.idx, Ops: patchOps(before, target, g.addr, changes, part.idx)})
		}
	}
	sort.SliceStable(steps, func(i, j int) bool { return rank[steps[i].Phase] < rank[steps[j].Phase] })
	if steps == nil {
		steps = []Step{}
	}
	return steps
}

// movesProject reports whether a change gives an existing project another
// department.
func movesProject(changes []tenancy.Change) bool {
	for i := range changes {
		if c := &changes[i]; c.Field.Field == tenancy.FieldParent && c.Action == tenancy.ActionUpdate {
			return true
		}
	}
	return false
}

func phaseFor(kind tenancy.Kind, shrink bool) Phase {
	switch {
	case kind == tenancy.KindNodePool:
		return PhaseNewPools
	case kind == tenancy.KindDepartment && shrink:
		return PhaseShrinkDepartments
	case kind == tenancy.KindDepartment:
		return PhaseGrowDepartments
	case shrink:
		return PhaseShrinkProjects
	}
	return PhaseGrowProjects
}

// manifest is the whole object a of the target, as kubectl creates it.
func manifest(target *tenancy.Index, a tenancy.ObjectAddr) json.RawMessage {
	b, _ := target.Manifest(a) // a change creates it, so the target has it
	return b
}

func jsonValue(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // strings, lists, numbers and the tenancy's specs only
	}
	return b
}

// patchOps writes the JSON patch for the changes idx of object a: for an
// existing queue, a test of its name at its index, then per field a test of
// the value as read and a replace (or an add where the field was omitted);
// for a new queue, a test of the last queue's name and an add at the end.
// An add of an absent field or block follows a test of null, which the API server passes
// only while the key is absent (internal/integration TestAbsentGuard).
func patchOps(before, target *tenancy.Index, a tenancy.ObjectAddr, changes []tenancy.Change, idx []int) []Op {
	var ops []Op
	testedQueue := map[int]bool{}
	addedQueue := map[int]bool{}
	addedBlock := map[string]bool{}
	bq, tq := before.Queues(a), target.Queues(a)
	for _, i := range idx {
		c := &changes[i]
		qi, path := c.Field.Queue, c.Field.Pointer()
		if c.NewQueue {
			if addedQueue[qi] {
				continue
			}
			addedQueue[qi] = true
			if len(bq) > 0 && len(addedQueue) == 1 {
				last := a.Queue(len(bq) - 1)
				ops = append(ops, Op{OpTest, last.Field(tenancy.FieldQueueName).Pointer(), jsonValue(bq[last.Index].Name)})
			}
			ops = append(ops, Op{OpAdd, "/spec/queues/-", jsonValue(tq[qi])})
			continue
		}
		if qi >= 0 && !testedQueue[qi] {
			testedQueue[qi] = true
			ops = append(ops, Op{OpTest, a.Queue(qi).Field(tenancy.FieldQueueName).Pointer(), jsonValue(bq[qi].Name)})
		}
		if !c.Before.IsNull() {
			ops = append(ops, Op{OpTest, path, c.Before.AppendJSON(nil)}, Op{OpReplace, path, c.After.AppendJSON(nil)})
			continue
		}
		// The field is absent. If its whole resource block is absent too,
		// add the block once with every field the target gives it.
		if r := c.Resource(); r != "" && bq[qi].Resources.Get(r) == nil {
			blockPath := a.Queue(qi).Pointer() + "/resources/" + string(r)
			if !addedBlock[blockPath] {
				addedBlock[blockPath] = true
				ops = append(ops, Op{OpTest, blockPath, json.RawMessage("null")}, Op{OpAdd, blockPath, jsonValue(tq[qi].Resources.Get(r))})
			}
			continue
		}
		ops = append(ops, Op{OpTest, path, json.RawMessage("null")}, Op{OpAdd, path, c.After.AppendJSON(nil)})
	}
	return ops
}
