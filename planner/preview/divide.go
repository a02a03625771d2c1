package preview

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/krmplan/krmplan/fairshare"
	poolcap "github.com/krmplan/krmplan/planner/capacity"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// pool divides one pool: its capacity from caps (nil when the nodes were
// not read), its queues from the builder.
func (b *builder) pool(name string, caps map[string]*poolcap.Pool) (Pool, error) {
	out := Pool{Name: name}
	b.capacity(&out, caps)
	entries := b.pools[name]
	in := fairshare.Pool{Capacity: out.Capacity, Queues: b.inputQueues(len(entries))}
	for i := range entries {
		e := &entries[i]
		if err := b.queue(&in.Queues[i], e); err != nil {
			return Pool{}, fmt.Errorf("node pool %s: %w", name, err)
		}
	}
	res, err := fairshare.Divide(in)
	if err != nil {
		return Pool{}, fmt.Errorf("node pool %s: fair share: %w", name, err)
	}
	if b.keep {
		out.input = in
	}
	for i := range in.Queues {
		if q := &in.Queues[i]; q.Parent == "" {
			for _, r := range quota.Resources {
				if q.Quota.At(r).Deserved.IsUnlimited() {
					*out.whole.At(r)++
				}
			}
		}
	}
	order := treeOrder(entries)
	out.Queues = make([]Queue, len(order))
	for j, i := range order {
		e := &entries[i]
		out.Queues[j] = Queue{Name: e.name, Kind: e.kind, Owner: e.owner, Parent: e.parent,
			Aged: e.aged, NoDemand: e.noDemand, Share: res.Queues[i]}
	}
	return out, nil
}

// inputQueues is a zeroed slice of n queues for fairshare's input: new
// when the input is kept, else the builder's scratch space.
func (b *builder) inputQueues(n int) []fairshare.Queue {
	if b.keep {
		return make([]fairshare.Queue, n)
	}
	if cap(b.scratch) < n {
		b.scratch = make([]fairshare.Queue, n)
	}
	qs := b.scratch[:n]
	clear(qs)
	return qs
}

// capacity fills the pool's capacity, and why each unknown resource is
// unknown.
func (b *builder) capacity(p *Pool, caps map[string]*poolcap.Pool) {
	if caps == nil {
		why := "nodes not read: " + notReadReason(b.s, snapshot.SourceNodes)
		p.Unknown = fairshare.PerResource[string]{GPU: why, CPU: why, Memory: why}
		return
	}
	pc := caps[p.Name]
	if pc == nil { // poolcap.Pools has every node pool and default
		zero := quota.Zero
		pc = &poolcap.Pool{Divided: fairshare.PerResource[*quota.Value]{GPU: &zero}}
	}
	p.NodesRead, p.Nodes, p.Capacity = true, len(pc.Nodes), pc.Divided
	for _, r := range quota.Resources {
		if *p.Capacity.At(r) == nil {
			*p.Unknown.At(r) = missingFigure(pc.Nodes, r)
		}
	}
}

// missingFigure says which of nodes gives no figure of r, the reason
// KAI's count of it is unknown: every node, or the first one by name.
func missingFigure(nodes []*snapshot.Node, r quota.Resource) string {
	var lacking []string
	for _, n := range nodes {
		if _, ok := n.Allocatable[string(r)]; !ok {
			lacking = append(lacking, n.Name)
		}
	}
	switch {
	case len(lacking) == len(nodes):
		return "the pool's nodes give none in their allocatable resources"
	case len(lacking) == 1:
		return "node " + lacking[0] + " gives none in its allocatable resources"
	}
	return fmt.Sprintf("node %s and %d more give none in their allocatable resources", lacking[0], len(lacking)-1)
}

// queue fills q, fairshare's input for entry e: its quota and priority as
// KRM copies them into the KAI Queue, its age and its demand.
func (b *builder) queue(q *fairshare.Queue, e *entry) error {
	q.Name, q.Parent = e.name, e.parent
	if p := e.tq.Priority; p != nil {
		prio := int(*p)
		q.Priority = &prio
	}
	for _, r := range quota.Resources {
		if res := e.tq.Resources.Get(r); res != nil {
			fq := q.Quota.At(r)
			fq.Deserved, fq.Limit, fq.OverQuotaWeight = orZero(res.Deserved), orZero(res.Limit), orZero(res.OverQuotaWeight)
		}
	}
	lq := b.live[e.name]
	if lq != nil && lq.CreationTimestamp != "" {
		// The cluster data's reader refuses a timestamp that is not RFC
		// 3339; one that is not here is an unknown age.
		if t, err := time.Parse(time.RFC3339, lq.CreationTimestamp); err == nil {
			q.Created, e.aged = t, true
		}
	}
	if e.kind == tenancy.KindDepartment {
		return nil // it demands through its projects only
	}
	if b.d == Full {
		q.Demand = fairshare.PerResource[fairshare.Demand]{GPU: fairshare.Full, CPU: fairshare.Full, Memory: fairshare.Full}
		return nil
	}
	return b.liveDemand(q, e, lq)
}

// liveDemand is a leaf queue's demand under Live: its Queue's
// status.requested, 0 for a resource it does not name.
func (b *builder) liveDemand(q *fairshare.Queue, e *entry, lq *snapshot.LiveQueue) error {
	switch {
	case lq == nil:
		e.noDemand = "no live Queue of this name"
		return nil
	case lq.Requested == nil:
		e.noDemand = "its Queue has no status.requested"
		return nil
	}
	for _, r := range quota.Resources {
		text, ok := lq.Requested[snapshot.StatusResourceName[r]]
		if !ok {
			continue
		}
		v, err := snapshot.QuotaFromQuantity(r, text)
		if err != nil {
			return fmt.Errorf("queue %s: status.requested: %w", e.name, err)
		}
		*q.Demand.At(r) = fairshare.Demand{Amount: v}
	}
	return nil
}

func orZero(v *quota.Value) quota.Value {
	if v == nil {
		return quota.Zero
	}
	return *v
}

// treeOrder is the order of es in a pool's tree, as indices: the
// departments' queues by name, each followed by its children by name, then
// the root project queues by name. A queue whose parent is not among es
// (which the preview does not make) goes last. The division keeps the
// builder's order (its float64 sums follow it, as KAI's follow its maps'),
// so only the output is put in tree order.
func treeOrder(es []entry) []int {
	rank := func(e *entry) int {
		switch {
		case e.parent != "":
			return 0 // placed under its parent below
		case e.kind == tenancy.KindDepartment:
			return 1
		}
		return 2
	}
	idx := make([]int, len(es))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(rank(&es[a]), rank(&es[b])), cmp.Compare(es[a].name, es[b].name))
	})
	kids := map[string][]int{}
	n := 0
	for _, i := range idx {
		if p := es[i].parent; p != "" {
			kids[p] = append(kids[p], i)
			n++
		}
	}
	out := make([]int, 0, len(es))
	for _, i := range idx[n:] {
		out = append(out, i)
		out = append(out, kids[es[i].name]...)
		delete(kids, es[i].name)
	}
	rest := make([]string, 0, len(kids))
	for p := range kids {
		rest = append(rest, p)
	}
	slices.Sort(rest)
	for _, p := range rest {
		out = append(out, kids[p]...)
	}
	return out
}
