package planner

// The verification of the step order: every intermediate state a plan's
// steps pass through must hold no error that the snapshot does not.

import (
	"fmt"
	"sort"

	"github.com/krmplan/krmplan/planner/removal"
	"github.com/krmplan/krmplan/quota"
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
	rel := newRelations(before, bx, tx)
	work := tenancy.NewDraft(&before.Tenancy)
	renamed := removal.Renamed(changes)
	for n, st := range steps[:max(len(steps)-1, 0)] { // the last state is the target, checked on its own
		sc := rel.scope(changes, st)
		had := map[findingKey]bool{}
		for _, f := range sh.errors(sc.extract(before, work.Index())) {
			had[f.key()] = true
		}
		if err := work.Apply(stepChanges(changes, st)); err != nil {
			// The steps are made of the changes: this is a bug, said as
			// the step's error rather than passed.
			out = append(out, added{n, st, []Finding{{Code: CodeUnsafeOrder, Level: LevelError, Object: st.Object, Message: "the step does not apply: " + err.Error()}}})
			return out
		}
		var errs []Finding
		for _, f := range sh.errors(sc.extract(before, work.Index())) {
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

// relations are what the checks compare across objects, over the snapshot
// and the target together. Every intermediate state takes each field from
// one of the two, so these lists hold, for every such state, at least the
// objects related (and maybe a few more, which only costs time).
type relations struct {
	before, target *tenancy.Index
	// kids lists the projects of each department; onPool the departments
	// with a queue on each pool; orphans the projects that may have a queue
	// on a pool where their department has none (a queue at the pool's top).
	kids, onPool, orphans map[string][]string
	// byQueue lists the owners of each queue name and byNS the projects of
	// each namespace, made at the first step that may change names (see
	// names).
	byQueue map[string][]tenancy.ObjectAddr
	byNS    map[string][]string
	// nodes lists the nodes (indices into the snapshot's Nodes) carrying
	// each label pair ("key=value") that a pool selects.
	nodes map[string][]int
}

func newRelations(before *snapshot.State, bx, tx *tenancy.Index) *relations {
	r := &relations{before: bx, target: tx,
		kids: map[string][]string{}, onPool: map[string][]string{}, orphans: map[string][]string{}, nodes: map[string][]int{}}
	keys := map[string]bool{}
	for _, t := range []*tenancy.Tenancy{bx.Tenancy(), tx.Tenancy()} {
		for _, p := range t.NodePools {
			if k := p.Spec.LabelKey; k != "" {
				keys[k] = true
			}
		}
		for i := range t.Departments {
			d := &t.Departments[i]
			for _, q := range d.Spec.Queues {
				r.onPool[q.NodePool] = append(r.onPool[q.NodePool], d.Metadata.Name)
			}
		}
		for i := range t.Projects {
			p := &t.Projects[i]
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
	r.byQueue, r.byNS = map[string][]tenancy.ObjectAddr{}, map[string][]string{}
	for _, x := range []*tenancy.Index{r.before, r.target} {
		t := x.Tenancy()
		for i := range t.Departments {
			d := &t.Departments[i]
			for _, q := range d.Spec.Queues {
				n := q.KAIName(d.Metadata.Name)
				r.byQueue[n] = append(r.byQueue[n], tenancy.KindDepartment.Object(d.Metadata.Name))
			}
		}
		for i := range t.Projects {
			p := &t.Projects[i]
			ns := p.NamespaceName(t.KRMConfig.NamePrefix())
			r.byNS[ns] = append(r.byNS[ns], p.Metadata.Name)
			for _, q := range p.Spec.Queues {
				n := q.KAIName(p.Metadata.Name)
				r.byQueue[n] = append(r.byQueue[n], tenancy.KindProject.Object(p.Metadata.Name))
			}
		}
	}
}

// settledOn reports whether department dept has a queue on pool in every
// intermediate state: it has one in the snapshot and in the target, and
// its queues' pools are the same in both.
func (r *relations) settledOn(dept, pool string) bool {
	b, t := r.before.Department(dept), r.target.Department(dept)
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
	owner               string // the step's object, whose queues' names may be derived from it
	all                 bool   // the whole state
	pools, depts, projs map[string]bool
	nodes               map[int]bool
}

// scope returns the objects that the errors a step can add are computed
// from (see stepErrors).
func (r *relations) scope(changes []tenancy.Change, st Step) *scope {
	sc := &scope{owner: st.Object.Name, pools: map[string]bool{}, depts: map[string]bool{}, projs: map[string]bool{}, nodes: map[int]bool{}}
	for _, i := range st.Changes {
		if changes[i].Action == tenancy.ActionDestroy {
			sc.all = true // a removal can leave any object naming what is gone
			return sc
		}
	}
	structural, raised := stepEffect(changes, st)
	queues, parents, namespaces := r.stepObject(st)
	switch st.Object.Kind {
	case tenancy.KindNodePool:
		sc.all = true // a new pool changes which nodes are in the default pool
		return sc
	case tenancy.KindDepartment:
		sc.depts[st.Object.Name] = true
		for _, k := range r.kids[st.Object.Name] {
			sc.projs[k] = true
		}
		for _, q := range queues {
			if structural || raised[q.NodePool] {
				r.closure(sc, q.NodePool)
			}
		}
	case tenancy.KindProject:
		sc.projs[st.Object.Name] = true
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

// gpuDeserved is the field of a queue's gpu guarantee.
var gpuDeserved = tenancy.QuotaFieldOf(quota.GPU, tenancy.Deserved)

// stepEffect says what a step can newly break. A pool's capacity is a sum
// of gpu guarantees: only a step that raises one (-1 is +∞) or changes
// structure can newly put the pool over.
func stepEffect(changes []tenancy.Change, st Step) (structural bool, raised map[string]bool) {
	structural = st.Action == StepCreate
	raised = map[string]bool{}
	for _, i := range st.Changes {
		c := &changes[i]
		if c.NewQueue || (c.Resource() == "" && c.Field.Field != tenancy.FieldPriority) {
			structural = true
		}
		if c.Field.Field == gpuDeserved && !c.Shrinks() {
			raised[c.Pool] = true
		}
	}
	return structural, raised
}

// stepObject is the step's object's queues, parents and namespace in the
// snapshot and the target: an intermediate state has one or the other.
func (r *relations) stepObject(st Step) (queues []tenancy.Queue, parents, namespaces []string) {
	for _, x := range []*tenancy.Index{r.before, r.target} {
		switch st.Object.Kind {
		case tenancy.KindDepartment:
			if d := x.Department(st.Object.Name); d != nil {
				queues = append(queues, d.Spec.Queues...)
			}
		case tenancy.KindProject:
			if p := x.Project(st.Object.Name); p != nil {
				queues = append(queues, p.Spec.Queues...)
				parents = append(parents, p.Spec.Parent)
				namespaces = append(namespaces, p.NamespaceName(x.Tenancy().KRMConfig.NamePrefix()))
			}
		}
	}
	return queues, parents, namespaces
}

// namesakes adds to sc the objects that share a queue name or a namespace
// with the step's object: a structural step can make them clash.
func (r *relations) namesakes(sc *scope, queues []tenancy.Queue, namespaces []string) {
	r.names()
	for _, q := range queues {
		for _, o := range r.byQueue[q.KAIName(sc.owner)] {
			if o.Kind == tenancy.KindDepartment {
				sc.depts[o.Name] = true
			} else {
				sc.projs[o.Name] = true
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
	for _, x := range []*tenancy.Index{r.before, r.target} {
		np := x.NodePool(pool)
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

// extract returns the part of the working state (base's cluster data with
// w's objects) in the scope: its objects in w's order, with every pool
// their queues name and every project's department (so that nothing in it
// is unknown for want of a context object), and its nodes. The live queues
// and namespaces are left out, marked as not read: they give warnings and
// notes, never errors.
func (sc *scope) extract(base *snapshot.State, w *tenancy.Index) *snapshot.State {
	if sc.all {
		return withTenancy(base, w.Tenancy())
	}
	t := w.Tenancy()
	sub := &snapshot.State{Source: base.Source, Tenancy: tenancy.Tenancy{ManagedNodes: t.ManagedNodes, KRMConfig: t.KRMConfig}}
	for _, nr := range base.NotRead {
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
	ji := positions(w, tenancy.KindProject, sc.projs)
	for _, i := range ji {
		p := &t.Projects[i]
		depts[p.Spec.Parent] = true
		for _, q := range p.Spec.Queues {
			pools[q.NodePool] = true
		}
	}
	di := positions(w, tenancy.KindDepartment, depts)
	for _, i := range di {
		for _, q := range t.Departments[i].Spec.Queues {
			pools[q.NodePool] = true
		}
	}
	for _, i := range positions(w, tenancy.KindNodePool, pools) {
		sub.NodePools = append(sub.NodePools, t.NodePools[i])
	}
	for _, i := range di {
		sub.Departments = append(sub.Departments, t.Departments[i])
	}
	for _, i := range ji {
		sub.Projects = append(sub.Projects, t.Projects[i])
	}
	ni := make([]int, 0, len(sc.nodes))
	for i := range sc.nodes {
		ni = append(ni, i)
	}
	sort.Ints(ni)
	for _, i := range ni {
		sub.Nodes = append(sub.Nodes, base.Nodes[i])
	}
	return sub
}

// positions is where the objects of kind named in names are in w's
// tenancy, in order.
func positions(w *tenancy.Index, kind tenancy.Kind, names map[string]bool) []int {
	var out []int
	for name := range names {
		if i, ok := w.Position(kind.Object(name)); ok {
			out = append(out, i)
		}
	}
	sort.Ints(out)
	return out
}
