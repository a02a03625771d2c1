package planner

// The verification of the step order: every intermediate state a plan's
// steps pass through must hold no error that the snapshot does not.

import (
	"fmt"
	"slices"

	"github.com/krmplan/krmplan/planner/removal"
	"github.com/krmplan/krmplan/planner/scope"
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
		for _, f := range sh.errors(sc.Extract(before, work.Index())) {
			had[f.key()] = true
		}
		if err := work.Apply(stepChanges(changes, st)); err != nil {
			// The steps are made of the changes: this is a bug, said as
			// the step's error rather than passed.
			out = append(out, added{n, st, []Finding{{Code: CodeUnsafeOrder, Level: LevelError, Object: st.Object, Message: "the step does not apply: " + err.Error()}}})
			return out
		}
		var errs []Finding
		for _, f := range sh.errors(sc.Extract(before, work.Index())) {
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
	// settled is settledPools by department, lastPools the last one asked.
	settled   map[string]*[]string
	lastDept  string
	lastPools *[]string
}

func newRelations(before *snapshot.State, bx, tx *tenancy.Index) *relations {
	r := &relations{before: bx, target: tx,
		kids: map[string][]string{}, onPool: map[string][]string{}, orphans: map[string][]string{}, nodes: map[string][]int{}, settled: map[string]*[]string{}}
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
// its queues' pools are the same in both. Each department is looked up
// once (settled), most often by the call before (projects lie by
// department): a lookup in the two indexes costs a cache miss each at
// 50,000 projects.
func (r *relations) settledOn(dept, pool string) bool {
	if dept != r.lastDept || r.lastPools == nil {
		pools, ok := r.settled[dept]
		if !ok {
			pools = r.settledPools(dept)
			r.settled[dept] = pools
		}
		r.lastDept, r.lastPools = dept, pools
	}
	return slices.Contains(*r.lastPools, pool)
}

// settledPools is the pools of dept's queues when they are the same in
// the snapshot and the target, in order; none when they differ or dept is
// in only one of them.
func (r *relations) settledPools(dept string) *[]string {
	pools := new([]string)
	b, t := r.before.Department(dept), r.target.Department(dept)
	if b == nil || t == nil || len(b.Spec.Queues) != len(t.Spec.Queues) {
		return pools
	}
	for i := range b.Spec.Queues {
		if b.Spec.Queues[i].NodePool != t.Spec.Queues[i].NodePool {
			return pools
		}
		*pools = append(*pools, b.Spec.Queues[i].NodePool)
	}
	return pools
}

// scope returns the objects that the errors a step can add are computed
// from (see stepErrors).
func (r *relations) scope(changes []tenancy.Change, st Step) *scope.Scope {
	sc := scope.New(st.Object.Name)
	for _, i := range st.Changes {
		if changes[i].Action == tenancy.ActionDestroy {
			sc.All = true // a removal can leave any object naming what is gone
			return sc
		}
	}
	structural, raised := stepEffect(changes, st)
	queues, parents, namespaces := r.stepObject(st)
	switch st.Object.Kind {
	case tenancy.KindNodePool:
		sc.All = true // a new pool changes which nodes are in the default pool
		return sc
	case tenancy.KindDepartment:
		sc.Depts[st.Object.Name] = true
		for _, k := range r.kids[st.Object.Name] {
			sc.Projs[k] = true
		}
		for _, q := range queues {
			if structural || raised[q.NodePool] {
				r.closure(sc, q.NodePool)
			}
		}
	case tenancy.KindProject:
		sc.Projs[st.Object.Name] = true
		for _, d := range parents {
			sc.Depts[d] = true
			for _, k := range r.kids[d] {
				sc.Projs[k] = true
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
func (r *relations) namesakes(sc *scope.Scope, queues []tenancy.Queue, namespaces []string) {
	r.names()
	for _, q := range queues {
		for _, o := range r.byQueue[q.KAIName(sc.Owner)] {
			if o.Kind == tenancy.KindDepartment {
				sc.Depts[o.Name] = true
			} else {
				sc.Projs[o.Name] = true
			}
		}
	}
	for _, ns := range namespaces {
		for _, p := range r.byNS[ns] {
			sc.Projs[p] = true
		}
	}
}

// closure adds what a pool's capacity is computed from: the pool, the
// departments on it, the projects that may have a queue at its top, and
// its nodes; the default pool (or a pool without a label pair) takes the
// whole state. So a step that raises a guarantee on a pool is checked with
// every department on that pool: its cost grows with them.
func (r *relations) closure(sc *scope.Scope, pool string) {
	sc.Pools[pool] = true
	for _, d := range r.onPool[pool] {
		sc.Depts[d] = true
	}
	for _, p := range r.orphans[pool] {
		sc.Projs[p] = true
	}
	for _, x := range []*tenancy.Index{r.before, r.target} {
		np := x.NodePool(pool)
		switch {
		case pool == "default" || (np != nil && np.Spec.LabelKey == ""):
			sc.All = true
		case np != nil:
			for _, n := range r.nodes[np.Spec.LabelKey+"="+np.Spec.LabelValue] {
				sc.Nodes[n] = true
			}
		}
	}
}
