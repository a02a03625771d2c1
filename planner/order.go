package planner

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

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

// moveRank is the order tried when a project changes department and the
// usual order fails: the project must leave its old department before that
// department shrinks, and can join the new one only after it grows, so
// departments grow, then projects move or grow, then departments shrink.
// (When the pool is full this order fails too: the guarantees would have
// to pass through a state over the pool, and the plan says no safe order
// exists; moving such a project takes two plans.)
var moveRank = map[string]int{PhaseNewPools: 0, PhaseShrinkProjects: 1, PhaseGrowDepartments: 2, PhaseGrowProjects: 3, PhaseShrinkDepartments: 4}

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
	return buildStepsIn(before, target, changes, phaseRank)
}

// buildStepsIn is buildSteps with the phases ranked by rank.
func buildStepsIn(before, target *snapshot.State, changes []Change, rank map[string]int) []Step {
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
	sort.SliceStable(steps, func(i, j int) bool { return rank[steps[i].Phase] < rank[steps[j].Phase] })
	return steps
}

// movesProject reports whether a change gives an existing project another
// department.
func movesProject(changes []Change) bool {
	for _, c := range changes {
		if c.Kind == KindProject && c.Field == "parent" && c.Action == ActionUpdate {
			return true
		}
	}
	return false
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

// index finds objects of a state by kind and name. It holds positions,
// not pointers, so that appending a new object keeps it valid.
type index struct {
	s     *snapshot.State
	pools map[string]int
	depts map[string]int
	projs map[string]int
	// owned is nil when s's queues are s's own; otherwise s shares the
	// queues of another state, and owned lists the objects ("Kind/name")
	// whose queues s has copied, to change them (see own).
	owned map[string]bool
}

// shared returns an index of a copy of s's objects that shares their
// queues with s until a change needs its own (copy on write): the
// verification changes a few objects of a large state.
func shared(s *snapshot.State) *index {
	c := *s
	c.NodePools = append([]snapshot.NodePool(nil), s.NodePools...)
	c.Departments = append([]snapshot.Department(nil), s.Departments...)
	c.Projects = append([]snapshot.Project(nil), s.Projects...)
	x := newIndex(&c)
	x.owned = map[string]bool{}
	return x
}

// own gives the object kind/name its own copy of its queues, before they
// change.
func (x *index) own(kind, name string) {
	if x.owned == nil || x.owned[kind+"/"+name] {
		return
	}
	x.owned[kind+"/"+name] = true
	if qs := x.queues(kind, name); qs != nil {
		*qs = snapshot.CloneQueues(*qs)
	}
}

func newIndex(s *snapshot.State) *index {
	x := &index{s: s, pools: make(map[string]int, len(s.NodePools)), depts: make(map[string]int, len(s.Departments)), projs: make(map[string]int, len(s.Projects))}
	for i := range s.NodePools {
		x.pools[s.NodePools[i].Metadata.Name] = i
	}
	for i := range s.Departments {
		x.depts[s.Departments[i].Metadata.Name] = i
	}
	for i := range s.Projects {
		x.projs[s.Projects[i].Metadata.Name] = i
	}
	return x
}

// pool, dept and proj return the named object, nil when the state has none.
func (x *index) pool(name string) *snapshot.NodePool {
	if i, ok := x.pools[name]; ok {
		return &x.s.NodePools[i]
	}
	return nil
}

func (x *index) dept(name string) *snapshot.Department {
	if i, ok := x.depts[name]; ok {
		return &x.s.Departments[i]
	}
	return nil
}

func (x *index) proj(name string) *snapshot.Project {
	if i, ok := x.projs[name]; ok {
		return &x.s.Projects[i]
	}
	return nil
}

// queues returns a pointer to the queue list of a department or project.
func (x *index) queues(kind, name string) *[]snapshot.Queue {
	switch kind {
	case KindDepartment:
		if d := x.dept(name); d != nil {
			return &d.Spec.Queues
		}
	case KindProject:
		if p := x.proj(name); p != nil {
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
		spec = x.pool(name).Spec
	case KindDepartment:
		spec = x.dept(name).Spec
	case KindProject:
		spec = x.proj(name).Spec
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
			w.s.NodePools = append(w.s.NodePools, *target.pool(st.Object))
			w.pools[st.Object] = len(w.s.NodePools) - 1
		case KindDepartment:
			d := *target.dept(st.Object)
			d.Spec.Queues = snapshot.CloneQueues(d.Spec.Queues)
			w.s.Departments = append(w.s.Departments, d)
			w.depts[st.Object] = len(w.s.Departments) - 1
		case KindProject:
			p := *target.proj(st.Object)
			p.Spec.Queues = snapshot.CloneQueues(p.Spec.Queues)
			p.Spec.DefaultNodePools = append([]string(nil), p.Spec.DefaultNodePools...)
			w.s.Projects = append(w.s.Projects, p)
			w.projs[st.Object] = len(w.s.Projects) - 1
		}
		if w.owned != nil {
			w.owned[st.Kind+"/"+st.Object] = true
		}
		return
	}
	for _, i := range st.Changes {
		c := changes[i]
		if c.QueueIndex < 0 {
			dst, src := w.proj(c.Object), target.proj(c.Object)
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
		w.own(c.Kind, c.Object)
		wq, tq := w.queues(c.Kind, c.Object), target.queues(c.Kind, c.Object)
		src := (*tq)[c.QueueIndex]
		if c.NewQueue {
			if len(*wq) == c.QueueIndex {
				*wq = append(*wq, snapshot.CloneQueues([]snapshot.Queue{src})[0])
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
	return verifyOrder(before, target, changes, steps, Check(before, nil))
}

// verifyOrder is verifySteps with the findings of before already made.
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
func verifyOrder(before, target *snapshot.State, changes []Change, steps []Step, beforeFindings []Finding) *Finding {
	return firstUnsafe(stepErrors(before, target, changes, steps), beforeFindings)
}

// added is the errors one step adds, in the order Check sorts them.
type added struct {
	n      int
	st     Step
	errors []Finding
}

// stepErrors applies the steps one by one from before and returns, for
// each step that adds errors to the state, those errors. It needs no
// findings of before, so that Build runs it while the checks of before
// run on another core.
func stepErrors(before, target *snapshot.State, changes []Change, steps []Step) []added {
	var out []added
	rel := newRelations(before, target)
	work, tx := shared(before), rel.target
	for n, st := range steps[:max(len(steps)-1, 0)] { // the last state is the target, checked on its own
		sc := rel.scope(changes, st)
		had := map[string]bool{}
		for _, f := range checkErrors(sc.extract(work)) {
			had[f.key()] = true
		}
		applyStep(work, tx, changes, st)
		var errs []Finding
		for _, f := range checkErrors(sc.extract(work)) {
			if !had[f.key()] {
				errs = append(errs, f)
			}
		}
		if len(errs) > 0 {
			out = append(out, added{n, st, errs})
		}
	}
	return out
}

// firstUnsafe returns the finding for the first step that adds an error
// the snapshot does not have (nil when there is none). The steps before it
// only added errors the snapshot has, so the states they reach hold no
// other: the first such error of the step is the first of its state.
func firstUnsafe(steps []added, beforeFindings []Finding) *Finding {
	allowed := map[string]bool{}
	for _, f := range beforeFindings {
		if f.Level == LevelError {
			allowed[f.key()] = true
		}
	}
	for _, a := range steps {
		for _, f := range a.errors {
			if !allowed[f.key()] {
				st := a.st
				return &Finding{Code: "unsafe-order", Level: LevelError, Object: st.Kind + "/" + st.Object,
					Message: fmt.Sprintf("no safe order: after step %d (%s %s %s, %s) the state would have an error this plan does not end with: %s",
						a.n+1, st.Action, st.Kind, st.Object, st.Phase, f.Message)}
			}
		}
	}
	return nil
}

// relations are what the checks compare across objects, over the snapshot
// and the target together. Every intermediate state takes each field from
// one of the two, so these lists hold, for every such state, at least the
// objects related (and maybe a few more, which only costs time).
type relations struct {
	before, target *index
	// kids lists the projects of each department; onPool the departments
	// with a queue on each pool; orphans the projects that may have a queue
	// on a pool where their department has none (a queue at the pool's top).
	kids, onPool, orphans map[string][]string
	// byQueue lists the owners ("Kind/name") of each queue name and byNS
	// the projects of each namespace, made at the first step that may
	// change names (see names); byPair lists the pools of each label pair.
	byQueue, byNS, byPair map[string][]string
	// nodes lists the nodes (indices into before.Nodes) carrying each label
	// pair ("key=value") that a pool selects.
	nodes map[string][]int
}

func newRelations(before, target *snapshot.State) *relations {
	r := &relations{before: newIndex(before), target: newIndex(target),
		kids: map[string][]string{}, onPool: map[string][]string{}, orphans: map[string][]string{},
		byPair: map[string][]string{}, nodes: map[string][]int{}}
	keys := map[string]bool{}
	for _, s := range []*snapshot.State{before, target} {
		for _, p := range s.NodePools {
			if k := p.Spec.LabelKey; k != "" {
				keys[k] = true
				r.byPair[k+"="+p.Spec.LabelValue] = append(r.byPair[k+"="+p.Spec.LabelValue], p.Metadata.Name)
			}
		}
		for i := range s.Departments {
			d := &s.Departments[i]
			for _, q := range d.Spec.Queues {
				r.onPool[q.NodePool] = append(r.onPool[q.NodePool], d.Metadata.Name)
			}
		}
		for i := range s.Projects {
			p := &s.Projects[i]
			r.kids[p.Spec.Parent] = append(r.kids[p.Spec.Parent], p.Metadata.Name)
			for _, q := range p.Spec.Queues {
				if !r.settledOn(p.Spec.Parent, q.NodePool) {
					r.orphans[q.NodePool] = append(r.orphans[q.NodePool], p.Metadata.Name)
				}
			}
		}
	}
	for i := range before.Nodes {
		n := &before.Nodes[i]
		for k := range keys {
			if v, ok := n.Labels[k]; ok {
				r.nodes[k+"="+v] = append(r.nodes[k+"="+v], i)
			}
		}
	}
	return r
}

// names fills byQueue and byNS, once.
func (r *relations) names() {
	if r.byQueue != nil {
		return
	}
	r.byQueue, r.byNS = map[string][]string{}, map[string][]string{}
	for _, x := range []*index{r.before, r.target} {
		for i := range x.s.Departments {
			d := &x.s.Departments[i]
			for _, q := range d.Spec.Queues {
				r.byQueue[q.Name] = append(r.byQueue[q.Name], KindDepartment+"/"+d.Metadata.Name)
			}
		}
		for i := range x.s.Projects {
			p := &x.s.Projects[i]
			r.byNS[p.NamespaceName()] = append(r.byNS[p.NamespaceName()], p.Metadata.Name)
			for _, q := range p.Spec.Queues {
				r.byQueue[q.Name] = append(r.byQueue[q.Name], KindProject+"/"+p.Metadata.Name)
			}
		}
	}
}

// settledOn reports whether department dept has a queue on pool in every
// intermediate state: it has one in the snapshot and in the target, and
// its queues' pools are the same in both.
func (r *relations) settledOn(dept, pool string) bool {
	b, t := r.before.dept(dept), r.target.dept(dept)
	if b == nil || t == nil || len(b.Spec.Queues) != len(t.Spec.Queues) {
		return false
	}
	on := false
	for i := range b.Spec.Queues {
		if b.Spec.Queues[i].NodePool != t.Spec.Queues[i].NodePool {
			return false
		}
		on = on || b.Spec.Queues[i].NodePool == pool
	}
	return on
}

// scope is the part of a state one step is checked on, by name.
type scope struct {
	all                 bool // the whole state
	pools, depts, projs map[string]bool
	nodes               map[int]bool
}

// scope returns the objects that the errors a step can add are computed
// from (see verifyOrder).
func (r *relations) scope(changes []Change, st Step) *scope {
	sc := &scope{pools: map[string]bool{}, depts: map[string]bool{}, projs: map[string]bool{}, nodes: map[int]bool{}}
	structural, raised := stepEffect(changes, st)
	queues, parents, namespaces := r.stepObject(st)
	switch st.Kind {
	case KindNodePool:
		sc.all = true // a new pool changes which nodes are in the default pool
		return sc
	case KindDepartment:
		sc.depts[st.Object] = true
		for _, k := range r.kids[st.Object] {
			sc.projs[k] = true
		}
		for _, q := range queues {
			if structural || raised[q.NodePool] {
				r.closure(sc, q.NodePool)
			}
		}
	case KindProject:
		sc.projs[st.Object] = true
		for _, d := range parents {
			sc.depts[d] = true
			for _, k := range r.kids[d] {
				sc.projs[k] = true
			}
		}
		for _, q := range queues {
			for _, d := range parents {
				if (structural || raised[q.NodePool]) && !r.settledOn(d, q.NodePool) {
					r.closure(sc, q.NodePool)
				}
			}
		}
	}
	if structural {
		r.namesakes(sc, queues, namespaces)
	}
	return sc
}

// stepEffect says what a step can newly break. A pool's capacity is a sum
// of gpu guarantees: only a step that raises one (-1 is +∞) or changes
// structure can newly put the pool over.
func stepEffect(changes []Change, st Step) (structural bool, raised map[string]bool) {
	structural = st.Action == StepCreate
	raised = map[string]bool{}
	for _, i := range st.Changes {
		c := changes[i]
		if c.NewQueue || (c.Resource == "" && c.Field != "priority") {
			structural = true
		}
		if c.Field == string(quota.GPU)+"."+snapshot.FieldDeserved && !c.Shrinks {
			raised[c.Pool] = true
		}
	}
	return structural, raised
}

// stepObject is the step's object's queues, parents and namespace in the
// snapshot and the target: an intermediate state has one or the other.
func (r *relations) stepObject(st Step) (queues []snapshot.Queue, parents, namespaces []string) {
	for _, x := range []*index{r.before, r.target} {
		switch st.Kind {
		case KindDepartment:
			if d := x.dept(st.Object); d != nil {
				queues = append(queues, d.Spec.Queues...)
			}
		case KindProject:
			if p := x.proj(st.Object); p != nil {
				queues = append(queues, p.Spec.Queues...)
				parents = append(parents, p.Spec.Parent)
				namespaces = append(namespaces, p.NamespaceName())
			}
		}
	}
	return queues, parents, namespaces
}

// namesakes adds to sc the objects that share a queue name or a namespace
// with the step's object: a structural step can make them clash.
func (r *relations) namesakes(sc *scope, queues []snapshot.Queue, namespaces []string) {
	r.names()
	for _, q := range queues {
		for _, o := range r.byQueue[q.Name] {
			kind, name, _ := strings.Cut(o, "/")
			if kind == KindDepartment {
				sc.depts[name] = true
			} else {
				sc.projs[name] = true
			}
		}
	}
	for _, ns := range namespaces {
		for _, p := range r.byNS[ns] {
			sc.projs[p] = true
		}
	}
}

// closure adds what a pool's capacity is computed from: the pool, the
// departments on it, the projects that may have a queue at its top, and
// its nodes; the default pool (or a pool without a label pair) takes the
// whole state. So a step that raises a guarantee on a pool is checked with
// every department on that pool: its cost grows with them.
func (r *relations) closure(sc *scope, pool string) {
	sc.pools[pool] = true
	for _, d := range r.onPool[pool] {
		sc.depts[d] = true
	}
	for _, p := range r.orphans[pool] {
		sc.projs[p] = true
	}
	for _, x := range []*index{r.before, r.target} {
		np := x.pool(pool)
		switch {
		case pool == "default" || (np != nil && np.Spec.LabelKey == ""):
			sc.all = true
		case np != nil:
			for _, n := range r.nodes[np.Spec.LabelKey+"="+np.Spec.LabelValue] {
				sc.nodes[n] = true
			}
		}
	}
}

// extract returns the part of the working state w in the scope: its
// objects in w's order, with every pool their queues name and every
// project's department (so that nothing in it is unknown for want of a
// context object), and its nodes. The live queues and namespaces are left
// out, marked as not read: they give warnings and notes, never errors.
func (sc *scope) extract(w *index) *snapshot.State {
	if sc.all {
		return w.s
	}
	s := w.s
	sub := &snapshot.State{Source: s.Source, ManagedNodes: s.ManagedNodes, KRMConfig: s.KRMConfig}
	for _, nr := range s.NotRead {
		if nr.What != snapshot.SourceQueues && nr.What != snapshot.SourceNamespaces {
			sub.NotRead = append(sub.NotRead, nr)
		}
	}
	sub.NotRead = append(sub.NotRead, snapshot.NotRead{What: snapshot.SourceQueues, Reason: "not needed to verify the order"},
		snapshot.NotRead{What: snapshot.SourceNamespaces, Reason: "not needed to verify the order"})
	pools := map[string]bool{}
	for p := range sc.pools {
		pools[p] = true
	}
	depts := map[string]bool{}
	for d := range sc.depts {
		depts[d] = true
	}
	var pi, di, ji []int
	for name := range sc.projs {
		if i, ok := w.projs[name]; ok {
			ji = append(ji, i)
			p := &s.Projects[i]
			depts[p.Spec.Parent] = true
			for _, q := range p.Spec.Queues {
				pools[q.NodePool] = true
			}
		}
	}
	for name := range depts {
		if i, ok := w.depts[name]; ok {
			di = append(di, i)
			for _, q := range s.Departments[i].Spec.Queues {
				pools[q.NodePool] = true
			}
		}
	}
	for name := range pools {
		if i, ok := w.pools[name]; ok {
			pi = append(pi, i)
		}
	}
	sort.Ints(pi)
	sort.Ints(di)
	sort.Ints(ji)
	for _, i := range pi {
		sub.NodePools = append(sub.NodePools, s.NodePools[i])
	}
	for _, i := range di {
		sub.Departments = append(sub.Departments, s.Departments[i])
	}
	for _, i := range ji {
		sub.Projects = append(sub.Projects, s.Projects[i])
	}
	ni := make([]int, 0, len(sc.nodes))
	for i := range sc.nodes {
		ni = append(ni, i)
	}
	sort.Ints(ni)
	for _, i := range ni {
		sub.Nodes = append(sub.Nodes, s.Nodes[i])
	}
	return sub
}
