package preview

import (
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/fairshare"
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
// names the closest names when some start or end like it.
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

// similar lists up to 5 queue names that contain name, or that name
// contains, for an error message: "; did you mean research-h100?".
func (pv *Preview) similar(name string) string {
	var near []string
	for i := range pv.Pools {
		for _, q := range pv.Pools[i].Queues {
			if len(near) < 5 && name != "" && (strings.Contains(q.Name, name) || strings.Contains(name, q.Name)) {
				near = append(near, q.Name)
			}
		}
	}
	if len(near) == 0 {
		return " (a queue is named by its KAI Queue name, e.g. research-h100)"
	}
	return "; did you mean " + strings.Join(near, ", ") + "?"
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
