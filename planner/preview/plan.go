package preview

import (
	"maps"
	"slices"
	"sync"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
)

// PlanPreview is the fair share a plan moves, under full demand: the
// pools whose division differs between the plan's snapshot and its target
// (tenancy.Apply), with the queues whose share differs.
type PlanPreview struct {
	// Before and After are the previews of the pools the plan can change.
	Before, After *Preview
	// Pools are the pools whose division differs, by name.
	Pools []PoolChange
}

// PoolChange is one pool whose division a plan changes.
type PoolChange struct {
	Name string
	// Before and After are the pool's divisions; nil on the side where it
	// does not exist (a new node pool).
	Before, After *Pool
	// Queues are the queues whose share differs, in the after side's tree
	// order, then those only before has.
	Queues []QueueChange
}

// QueueChange is one queue whose fair share a plan changes.
type QueueChange struct {
	Name string
	// Before and After are the queue on each side, nil where it is not.
	Before, After *Queue
	// Resources lists the resources whose share differs, in quota order.
	Resources []quota.Resource
	// Touched is set when the plan changes the queue itself (a value of
	// it, or its object's parent); a queue with Touched unset moves only
	// because others changed.
	Touched bool
}

// Side is the queue as after has it, else as before had it.
func (c *QueueChange) Side() *Queue {
	if c.After != nil {
		return c.After
	}
	return c.Before
}

// OfPlan previews the pools of plan p that only holds (ChangedPools(p);
// nil is every pool) before and after, under full demand, and compares
// them. A change to a node pool adds that pool and pool default, whose
// nodes it can take. The two sides share one reading of the cluster data
// unless the plan changes a node pool.
func OfPlan(p *planner.Plan, only map[string]bool) (*PlanPreview, error) {
	if only != nil {
		only = widen(p, only)
	}
	cb := clusterOf(p.Snapshot, only, p.Nodes()) // the nodes as the checks read them
	target, ca := p.TargetState(), cb
	if changesNodePools(p) {
		ca = clusterOf(target, only, p.Nodes()) // its pools select other nodes
	}
	// The two sides only read the states and the cluster data: they are
	// divided at the same time, and the snapshot's error, if any, is the
	// one returned, as when they were divided one after the other.
	var after *Preview
	var errAfter error
	var wg sync.WaitGroup
	wg.Go(func() { after, errAfter = of(target, Full, only, ca, false) })
	before, err := of(p.Snapshot, Full, only, cb, false)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if errAfter != nil {
		return nil, errAfter
	}
	out := &PlanPreview{Before: before, After: after}
	touched := touchedQueues(p)
	pools := map[string][2]*Pool{}
	for i := range before.Pools {
		pools[before.Pools[i].Name] = [2]*Pool{&before.Pools[i], nil}
	}
	for i := range after.Pools {
		pair := pools[after.Pools[i].Name]
		pair[1] = &after.Pools[i]
		pools[after.Pools[i].Name] = pair
	}
	names := make([]string, 0, len(pools))
	for n := range pools {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		pair := pools[n]
		if pc := comparePool(n, pair[0], pair[1], touched); pc != nil {
			out.Pools = append(out.Pools, *pc)
		}
	}
	return out, nil
}

// ChangedPools are the pools whose division plan p can change: the pool
// of each queue a change sets a field of, on both sides (a queue moved to
// another pool counts on both), every pool of an object whose own fields
// change (a project's new parent moves its queues in the tree; a new
// object's queues), and for a NodePool change that pool and pool default,
// whose nodes it can take. It is linear in the changes: a plan that moves
// cards on one pool divides that pool alone, though the objects it changes
// have queues on others.
func ChangedPools(p *planner.Plan) map[string]bool {
	out := map[string]bool{}
	bx, tx := p.Indexes()
	for i := range p.Changes {
		c := &p.Changes[i]
		o := c.Object()
		if o.Kind == tenancy.KindNodePool {
			out[o.Name], out["default"] = true, true
			continue
		}
		for _, x := range []*tenancy.Index{bx, tx} {
			qs := x.Queues(o)
			if qi := c.Field.Queue; qi >= 0 {
				if qi < len(qs) {
					out[qs[qi].NodePool] = true
				}
				continue
			}
			for j := range qs {
				out[qs[j].NodePool] = true
			}
		}
	}
	return out
}

// changesNodePools reports whether plan p changes a NodePool, and so
// which nodes a pool has.
func changesNodePools(p *planner.Plan) bool {
	for i := range p.Changes {
		if p.Changes[i].Object().Kind == tenancy.KindNodePool {
			return true
		}
	}
	return false
}

// widen adds to only the pools a node pool change can reach: the pool
// itself and default, which has the nodes no other pool selects.
func widen(p *planner.Plan, only map[string]bool) map[string]bool {
	var out map[string]bool
	for i := range p.Changes {
		if o := p.Changes[i].Object(); o.Kind == tenancy.KindNodePool {
			if out == nil {
				out = maps.Clone(only)
			}
			out[o.Name], out["default"] = true, true
		}
	}
	if out == nil {
		return only
	}
	return out
}

// touchedQueues are the KAI names of the queues plan p changes, on both
// sides (a renamed queue under both names): the queue of a changed queue
// field, and every queue of an object whose own fields change (a
// project's new parent moves its queues in the tree).
func touchedQueues(p *planner.Plan) map[string]bool {
	out := map[string]bool{}
	bx, tx := p.Indexes()
	for i := range p.Changes {
		c := &p.Changes[i]
		o := c.Object()
		for _, x := range []*tenancy.Index{bx, tx} {
			qs := x.Queues(o)
			if qi := c.Field.Queue; qi >= 0 {
				if qi < len(qs) {
					out[tenancy.QueueName(o.Name, qs[qi].Name, qs[qi].NodePool)] = true
				}
				continue
			}
			for _, q := range qs {
				out[tenancy.QueueName(o.Name, q.Name, q.NodePool)] = true
			}
		}
	}
	return out
}

// comparePool lists the queues whose share differs between b and a (either
// may be nil); nil when none does.
func comparePool(name string, b, a *Pool, touched map[string]bool) *PoolChange {
	pc := &PoolChange{Name: name, Before: b, After: a}
	was := map[string]*Queue{}
	if b != nil {
		for i := range b.Queues {
			was[b.Queues[i].Name] = &b.Queues[i]
		}
	}
	if a != nil {
		for i := range a.Queues {
			q := &a.Queues[i]
			old := was[q.Name]
			delete(was, q.Name)
			if rs := differ(old, q); len(rs) > 0 {
				pc.Queues = append(pc.Queues, QueueChange{Name: q.Name, Before: old, After: q, Resources: rs, Touched: touched[q.Name]})
			}
		}
	}
	if b != nil {
		for i := range b.Queues {
			if q := &b.Queues[i]; was[q.Name] != nil {
				pc.Queues = append(pc.Queues, QueueChange{Name: q.Name, Before: q, Resources: differ(q, nil), Touched: touched[q.Name]})
			}
		}
	}
	if len(pc.Queues) == 0 {
		return nil
	}
	return pc
}

// differ lists the resources whose share differs between b and a; a queue
// on one side only differs in every resource.
func differ(b, a *Queue) []quota.Resource {
	if b == nil || a == nil {
		return quota.Resources
	}
	var out []quota.Resource
	for _, r := range quota.Resources {
		sb, sa := b.Share.Share.At(r), a.Share.Share.At(r)
		if sb.Known != sa.Known || sb.KAI() != sa.KAI() || (b.Share.Dropped == "") != (a.Share.Dropped == "") {
			out = append(out, r)
		}
	}
	return out
}

// Untouched lists the queues of pc whose share changes though the plan
// does not change them, in pc's order.
func (pc *PoolChange) Untouched() []string {
	var out []string
	for i := range pc.Queues {
		if !pc.Queues[i].Touched {
			out = append(out, pc.Queues[i].Name)
		}
	}
	return out
}
