package planner

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
)

// The phases of a rendered change, in the order they run. Shrinking before
// growing keeps every intermediate state within the checks: a project
// gives cards back before its department shrinks, and a department grows
// before its projects claim the cards.
const (
	PhaseNewPools          = "new node pools"
	PhaseShrinkProjects    = "shrinking projects"
	PhaseShrinkDepartments = "shrinking departments"
	PhaseGrowDepartments   = "growing or new departments"
	PhaseGrowProjects      = "growing or new projects"
)

// Step actions.
const (
	StepPatch  = "patch"
	StepCreate = "create"
)

// JSON-patch operation names (RFC 6902).
const (
	opTest    = "test"
	opReplace = "replace"
	opAdd     = "add"
)

var phaseRank = map[string]int{PhaseNewPools: 0, PhaseShrinkProjects: 1, PhaseShrinkDepartments: 2, PhaseGrowDepartments: 3, PhaseGrowProjects: 4}

// Op is one JSON-patch (RFC 6902) operation. Value is always written, as
// the "test" and "replace" operations require.
type Op struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

// Step is one command of the rendered change: a JSON patch of one object
// in one phase, or the creation of a new object.
type Step struct {
	Phase  string `json:"phase"`
	Action string `json:"action"` // "patch" or "create"
	Kind   string `json:"kind"`
	Object string `json:"object"`
	// Changes are the indices into Plan.Changes that this step applies.
	Changes []int `json:"changes"`
	// Ops is the JSON patch of a "patch" step: every replace is preceded
	// by a test of the queue's name at its index and of the value as read.
	Ops []Op `json:"ops,omitempty"`
	// Manifest is the whole new object of a "create" step.
	Manifest json.RawMessage `json:"manifest,omitempty"`
}

// buildSteps groups the changes into steps and orders them in phases.
func buildSteps(before, target *snapshot.State, changes []Change) []Step {
	type group struct {
		kind, name string
		create     bool
		shrink     []int
		grow       []int
	}
	var groups []*group
	byObj := map[string]*group{}
	for i, c := range changes {
		k := c.Kind + "/" + c.Object
		g := byObj[k]
		if g == nil {
			g = &group{kind: c.Kind, name: c.Object}
			byObj[k] = g
			groups = append(groups, g)
		}
		switch {
		case c.Action == ActionCreate && !c.NewQueue:
			g.create = true
			g.grow = append(g.grow, i)
		case c.Shrinks && !c.NewQueue:
			g.shrink = append(g.shrink, i)
		default:
			g.grow = append(g.grow, i)
		}
	}
	ix := newIndex(before)
	tx := newIndex(target)
	var steps []Step
	for _, g := range groups {
		if g.create {
			steps = append(steps, Step{Phase: phaseFor(g.kind, false, true), Action: StepCreate, Kind: g.kind, Object: g.name,
				Changes: g.grow, Manifest: manifest(tx, g.kind, g.name)})
			continue
		}
		for _, part := range []struct {
			idx    []int
			shrink bool
		}{{g.shrink, true}, {g.grow, false}} {
			if len(part.idx) == 0 {
				continue
			}
			steps = append(steps, Step{Phase: phaseFor(g.kind, part.shrink, false), Action: StepPatch, Kind: g.kind, Object: g.name,
				Changes: part.idx, Ops: patchOps(ix, tx, g.kind, g.name, changes, part.idx)})
		}
	}
	sort.SliceStable(steps, func(i, j int) bool { return phaseRank[steps[i].Phase] < phaseRank[steps[j].Phase] })
	return steps
}

func phaseFor(kind string, shrink, create bool) string {
	switch {
	case kind == KindNodePool:
		return PhaseNewPools
	case kind == KindDepartment && shrink:
		return PhaseShrinkDepartments
	case kind == KindDepartment:
		return PhaseGrowDepartments
	case shrink:
		return PhaseShrinkProjects
	}
	return PhaseGrowProjects
}

// index finds objects of a state by kind and name.
type index struct {
	s     *snapshot.State
	pools map[string]*snapshot.NodePool
	depts map[string]*snapshot.Department
	projs map[string]*snapshot.Project
}

func newIndex(s *snapshot.State) *index {
	x := &index{s: s, pools: map[string]*snapshot.NodePool{}, depts: map[string]*snapshot.Department{}, projs: map[string]*snapshot.Project{}}
	for i := range s.NodePools {
		x.pools[s.NodePools[i].Metadata.Name] = &s.NodePools[i]
	}
	for i := range s.Departments {
		x.depts[s.Departments[i].Metadata.Name] = &s.Departments[i]
	}
	for i := range s.Projects {
		x.projs[s.Projects[i].Metadata.Name] = &s.Projects[i]
	}
	return x
}

// queues returns a pointer to the queue list of a department or project.
func (x *index) queues(kind, name string) *[]snapshot.Queue {
	switch kind {
	case KindDepartment:
		if d := x.depts[name]; d != nil {
			return &d.Spec.Queues
		}
	case KindProject:
		if p := x.projs[name]; p != nil {
			return &p.Spec.Queues
		}
	}
	return nil
}

// manifest is the whole object kind/name of the state, as kubectl creates it.
func manifest(x *index, kind, name string) json.RawMessage {
	var spec any
	switch kind {
	case KindNodePool:
		spec = x.pools[name].Spec
	case KindDepartment:
		spec = x.depts[name].Spec
	case KindProject:
		spec = x.projs[name].Spec
	}
	return jsonValue(map[string]any{
		"apiVersion": snapshot.KRMAPIVersion,
		"kind":       kind,
		"metadata":   map[string]string{"name": name},
		"spec":       spec,
	})
}

// patchOps writes the JSON patch for the changes idx of one object: for an
// existing queue, a test of its name at its index, then per field a test of
// the value as read and a replace (or an add where the field was omitted);
// for a new queue, a test of the last queue's name and an add at the end.
// resourceVersion is never tested: KRM writes status all the time.
func patchOps(before, target *index, kind, name string, changes []Change, idx []int) []Op {
	var ops []Op
	testedQueue := map[int]bool{}
	addedQueue := map[int]bool{}
	addedBlock := map[string]bool{}
	bq := before.queues(kind, name)
	tq := target.queues(kind, name)
	for _, i := range idx {
		c := changes[i]
		if c.NewQueue {
			if addedQueue[c.QueueIndex] {
				continue
			}
			addedQueue[c.QueueIndex] = true
			if bq != nil && len(*bq) > 0 && len(addedQueue) == 1 {
				last := len(*bq) - 1
				ops = append(ops, Op{opTest, fmt.Sprintf("/spec/queues/%d/name", last), jsonValue((*bq)[last].Name)})
			}
			ops = append(ops, Op{opAdd, "/spec/queues/-", jsonValue((*tq)[c.QueueIndex])})
			continue
		}
		if c.QueueIndex >= 0 && !testedQueue[c.QueueIndex] {
			testedQueue[c.QueueIndex] = true
			ops = append(ops, Op{opTest, queuePath(c.QueueIndex) + "/name", jsonValue((*bq)[c.QueueIndex].Name)})
		}
		if string(c.Before) != "null" {
			ops = append(ops, Op{opTest, c.Path, c.Before}, Op{opReplace, c.Path, c.After})
			continue
		}
		// The field is absent. If its whole resource block is absent too,
		// add the block once with every field the target gives it.
		if c.Resource != "" {
			r := quota.Resource(c.Resource)
			blockPath := fmt.Sprintf("/spec/queues/%d/resources/%s", c.QueueIndex, r)
			if (*bq)[c.QueueIndex].Resources.Get(r) == nil {
				if !addedBlock[blockPath] {
					addedBlock[blockPath] = true
					ops = append(ops, Op{opAdd, blockPath, jsonValue((*tq)[c.QueueIndex].Resources.Get(r))})
				}
				continue
			}
		}
		ops = append(ops, Op{opAdd, c.Path, c.After})
	}
	return ops
}

// applyStep changes the working state w as the step would: it copies the
// step's values from the target into w (or adds the new object).
func applyStep(w, target *index, changes []Change, st Step) {
	if st.Action == StepCreate {
		switch st.Kind {
		case KindNodePool:
			w.s.NodePools = append(w.s.NodePools, *target.pools[st.Object])
		case KindDepartment:
			d := *target.depts[st.Object]
			d.Spec.Queues = cloneQueues(d.Spec.Queues)
			w.s.Departments = append(w.s.Departments, d)
		case KindProject:
			p := *target.projs[st.Object]
			p.Spec.Queues = cloneQueues(p.Spec.Queues)
			w.s.Projects = append(w.s.Projects, p)
		}
		*w = *newIndex(w.s)
		return
	}
	for _, i := range st.Changes {
		c := changes[i]
		if c.QueueIndex < 0 {
			dst, src := w.projs[c.Object], target.projs[c.Object]
			switch c.Field {
			case "parent":
				dst.Spec.Parent = src.Spec.Parent
			case "namespace":
				dst.Spec.Namespace = src.Spec.Namespace
			case "defaultNodePools":
				dst.Spec.DefaultNodePools = append([]string(nil), src.Spec.DefaultNodePools...)
			}
			continue
		}
		wq, tq := w.queues(c.Kind, c.Object), target.queues(c.Kind, c.Object)
		src := (*tq)[c.QueueIndex]
		if c.NewQueue {
			if len(*wq) == c.QueueIndex {
				*wq = append(*wq, cloneQueues([]snapshot.Queue{src})[0])
			}
			continue
		}
		dst := &(*wq)[c.QueueIndex]
		switch c.Field {
		case "name":
			dst.Name = src.Name
		case "nodepool":
			dst.NodePool = src.NodePool
		case "priority":
			p := *src.Priority
			dst.Priority = &p
		default:
			r := quota.Resource(c.Resource)
			f := c.Field[len(c.Resource)+1:]
			*dst.Resources.Ensure(r).Field(f) = *src.Resources.Get(r).Field(f)
		}
	}
}

// verifySteps simulates the steps one by one from before and checks every
// intermediate state: it must hold no error that the snapshot does not
// already have. It returns an error finding for the first step that breaks
// this (nil when the order is safe).
func verifySteps(before, target *snapshot.State, changes []Change, steps []Step) *Finding {
	allowed := map[string]bool{}
	for _, f := range Check(before, nil) {
		if f.Level == LevelError {
			allowed[f.key()] = true
		}
	}
	work := newIndex(cloneTenancy(before))
	tx := newIndex(target)
	for n, st := range steps[:max(len(steps)-1, 0)] { // the last state is the target, checked on its own
		applyStep(work, tx, changes, st)
		for _, f := range Check(work.s, nil) {
			if f.Level == LevelError && !allowed[f.key()] {
				return &Finding{Code: "unsafe-order", Level: LevelError, Object: st.Kind + "/" + st.Object,
					Message: fmt.Sprintf("no safe order: after step %d (%s %s %s, %s) the state would have an error this plan does not end with: %s",
						n+1, st.Action, st.Kind, st.Object, st.Phase, f.Message)}
			}
		}
	}
	return nil
}
