package fairshare

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// node is one queue's place in the tree.
type node struct {
	name         string
	prio         int
	created      time.Time
	known        bool // created is known
	parent       int32
	kidLo, kidHi int32 // children in divider.kids, sorted by priority
	dropped      string
}

// buildTree indexes the queues, links children to parents
// (cluster_info.UpdateQueueHierarchy), sorts every set of siblings by
// priority (highest first, stable; resource_division.getQueuesByPriority
// sorts the bands) and marks the queues KAI drops (cleanQueueOrphans) or
// never reaches from the top level (proportion.getTopQueues,
// getChildQueues).
func (d *divider) buildTree() error {
	qs := d.pool.Queues
	if d.index == nil {
		d.index = map[string]int32{}
	}
	clear(d.index)
	d.nodes = grow(d.nodes, len(qs))
	for i := range qs {
		q := &qs[i]
		if q.Name == "" {
			return fmt.Errorf("queue %d has no name", i+1)
		}
		if _, dup := d.index[q.Name]; dup {
			return fmt.Errorf("queue %q is given twice", q.Name)
		}
		d.index[q.Name] = int32(i)
		n := &d.nodes[i]
		n.name, n.prio, n.created, n.known = q.Name, DefaultPriority, q.Created, !q.Created.IsZero()
		if q.Priority != nil {
			n.prio = *q.Priority
		}
	}
	count := grow(d.countBuf, len(qs)+1)
	d.countBuf = count
	for i := range qs {
		n := &d.nodes[i]
		n.parent = -1
		if pn := qs[i].Parent; pn != "" {
			p, ok := d.index[pn]
			if !ok {
				n.dropped = fmt.Sprintf("its parent queue %q is not in the pool: KAI deletes it with its descendants", pn)
				continue
			}
			n.parent = p
			count[p+1]++
		}
	}
	d.linkChildren(count)
	d.walk()
	return nil
}

// grow returns s with length n, every element zero, reusing its array.
func grow[T any](s []T, n int) []T {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}

// linkChildren fills d.kids from the parent links (count[p+1] children of
// p) and d.top with the top-level queues, each sorted by priority.
func (d *divider) linkChildren(count []int32) {
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	d.kids = grow(d.kids, int(count[len(count)-1]))
	d.top = d.top[:0]
	for i := range d.nodes {
		n := &d.nodes[i]
		n.kidLo, n.kidHi = count[i], count[i]
		if n.parent < 0 && n.dropped == "" {
			d.top = append(d.top, int32(i))
		}
	}
	for i := range d.nodes {
		if p := d.nodes[i].parent; p >= 0 {
			pn := &d.nodes[p]
			d.kids[pn.kidHi] = int32(i)
			pn.kidHi++
		}
	}
	byPrio := func(a, b int32) int { return cmp.Compare(d.nodes[b].prio, d.nodes[a].prio) }
	for i := range d.nodes {
		n := &d.nodes[i]
		slices.SortStableFunc(d.kids[n.kidLo:n.kidHi], byPrio)
	}
	slices.SortStableFunc(d.top, byPrio)
}

// walk lists the queues reachable from the top level, parents first, and
// marks the rest dropped.
func (d *divider) walk() {
	d.order = append(d.order[:0], d.top...)
	for j := 0; j < len(d.order); j++ {
		n := &d.nodes[d.order[j]]
		d.order = append(d.order, d.kids[n.kidLo:n.kidHi]...)
	}
	if len(d.order) == len(d.nodes) {
		return
	}
	reached := make([]bool, len(d.nodes))
	for _, i := range d.order {
		reached[i] = true
	}
	for i := range d.nodes {
		if n := &d.nodes[i]; !reached[i] && n.dropped == "" {
			n.dropped = "it is not under a top-level queue (its parents form a cycle, or one is dropped): KAI never divides it"
			if p := n.parent; p >= 0 && d.nodes[p].dropped != "" && !strings.HasPrefix(d.nodes[p].dropped, "it is not") {
				n.dropped = fmt.Sprintf("its parent queue %q is dropped", d.nodes[p].name)
			}
		}
	}
}
