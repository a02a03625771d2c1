package scope

// The relations a step's scope is made from: which objects the checks
// compare with which, over a plan's snapshot and target together.

import (
	"slices"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// Relations are what the checks compare across objects, over the snapshot
// and the target together. Every intermediate state takes each field from
// one of the two, so these lists hold, for every such state, at least the
// objects related (and maybe a few more, which only costs time).
type Relations struct {
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

func NewRelations(before *snapshot.State, bx, tx *tenancy.Index) *Relations {
	r := &Relations{before: bx, target: tx,
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
func (r *Relations) names() {
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
func (r *Relations) settledOn(dept, pool string) bool {
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
func (r *Relations) settledPools(dept string) *[]string {
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

// Scope returns the objects that the errors a step can add are computed
// from (see planner's stepErrors): the step of object obj that applies the
// changes idx, and creates obj when creates is set.
func (r *Relations) Scope(changes []tenancy.Change, obj tenancy.ObjectAddr, idx []int, creates bool) *Scope {
	sc := New(obj.Name)
	for _, i := range idx {
		if changes[i].Action == tenancy.ActionDestroy {
			sc.All = true // a removal can leave any object naming what is gone
			return sc
		}
	}
	structural, raised := stepEffect(changes, idx, creates)
	queues, parents, namespaces := r.stepObject(obj)
	switch obj.Kind {
	case tenancy.KindNodePool:
		sc.All = true // a new pool changes which nodes are in the default pool
		return sc
	case tenancy.KindDepartment:
		sc.Depts[obj.Name] = true
		for _, k := range r.kids[obj.Name] {
			sc.Projs[k] = true
		}
		for _, q := range queues {
			if structural || raised[q.NodePool] {
				r.closure(sc, q.NodePool)
			}
		}
	case tenancy.KindProject:
		sc.Projs[obj.Name] = true
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
func stepEffect(changes []tenancy.Change, idx []int, creates bool) (structural bool, raised map[string]bool) {
	structural = creates
	raised = map[string]bool{}
	for _, i := range idx {
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
func (r *Relations) stepObject(obj tenancy.ObjectAddr) (queues []tenancy.Queue, parents, namespaces []string) {
	for _, x := range []*tenancy.Index{r.before, r.target} {
		switch obj.Kind {
		case tenancy.KindDepartment:
			if d := x.Department(obj.Name); d != nil {
				queues = append(queues, d.Spec.Queues...)
			}
		case tenancy.KindProject:
			if p := x.Project(obj.Name); p != nil {
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
func (r *Relations) namesakes(sc *Scope, queues []tenancy.Queue, namespaces []string) {
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
func (r *Relations) closure(sc *Scope, pool string) {
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
