package preview

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/krmplan/krmplan/fairshare"
	"github.com/krmplan/krmplan/internal/nearname"
	"github.com/krmplan/krmplan/quota"
)

// Explanation is how one queue got its fair share: the pool it is on, the
// queue, and fairshare's trace of every resource along its path (its
// department's queue first, when it has one).
type Explanation struct {
	Pool  *Pool
	Queue *Queue
	fairshare.Explanation
}

// Explain traces the fair share of the queue named name (a KAI Queue name)
// in pv. It is an error when no pool of pv has such a queue; the error
// names the nearest names (similar).
func (pv *Preview) Explain(name string) (*Explanation, error) {
	for i := range pv.Pools {
		p := &pv.Pools[i]
		for j := range p.Queues {
			if p.Queues[j].Name != name {
				continue
			}
			if p.input.Queues == nil {
				return nil, fmt.Errorf("node pool %s: the division was not kept (a plan's preview); preview the state itself", p.Name)
			}
			ex, err := fairshare.Explain(p.input, name)
			if err != nil {
				return nil, fmt.Errorf("node pool %s: %w", p.Name, err)
			}
			return &Explanation{Pool: p, Queue: &p.Queues[j], Explanation: ex}, nil
		}
	}
	return nil, fmt.Errorf("no node pool has a queue %q%s", name, pv.similar(name))
}

// similar suggests, for an error message, the queue names near name: the
// nearest by spelling (internal/nearname, as every other name krmplan
// suggests) and those that contain name or that name contains, up to 5 in
// all ("; did you mean research-h100?"). With none near, it names up to 5
// of the queues there are, sorted, so the user sees what a queue name
// looks like here.
func (pv *Preview) similar(name string) string {
	var all []string
	for i := range pv.Pools {
		for _, q := range pv.Pools[i].Queues {
			all = append(all, q.Name)
		}
	}
	sort.Strings(all)
	all = slices.Compact(all)
	var near []string
	if n := nearname.Nearest(name, all); n != "" {
		near = append(near, n)
	}
	for _, q := range all {
		if len(near) < 5 && name != "" && !slices.Contains(near, q) && (strings.Contains(q, name) || strings.Contains(name, q)) {
			near = append(near, q)
		}
	}
	switch {
	case len(near) > 0:
		return "; did you mean " + strings.Join(near, ", ") + "?"
	case len(all) == 0:
		return " (the snapshot has no queue)"
	case len(all) > 5:
		return fmt.Sprintf(" (none is named like it; a queue is named by its KAI Queue name: %s, … %d in all)", strings.Join(all[:5], ", "), len(all))
	}
	return fmt.Sprintf(" (none is named like it; a queue is named by its KAI Queue name: %s)", strings.Join(all, ", "))
}

// Oversubscribed is how much the guarantees of the pool's top-level queues
// exceed its capacity of r (0 when they fit, or the capacity is unknown).
// KAI never scales a guarantee down: each queue still gets
// min(deserved, limit, demand), the fair shares add up to more than the
// pool, and nothing is left for the over-quota phase.
func (p *Pool) Oversubscribed(r quota.Resource) quota.Value {
	c := *p.Capacity.At(r)
	if c == nil {
		return quota.Zero
	}
	over := p.Guaranteed(r).Minus(*c)
	if over.IsNegative() || over.IsZero() {
		return quota.Zero
	}
	return over
}

// WholeDeserved counts the pool's top-level queues that deserve -1 of r,
// which KAI reads as the whole amount divided (KRM's "unlimited"): each is
// guaranteed all of the pool's r, so two of them oversubscribe it.
func (p *Pool) WholeDeserved(r quota.Resource) int { return *p.whole.At(r) }

// Guaranteed is the sum of the guarantees of the pool's top-level queues
// of r, as plain numbers (a negative guarantee lowers it).
func (p *Pool) Guaranteed(r quota.Resource) quota.Value {
	sum := quota.Zero
	for i := range p.Queues {
		if q := &p.Queues[i]; q.Parent == "" && q.Share.Dropped == "" {
			sum = sum.Plus(q.Share.Share.At(r).Guaranteed())
		}
	}
	return sum
}
