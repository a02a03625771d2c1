// Package scope is the part of a state that one step of a plan is checked
// on: the planner's verification of the step order (planner.stepErrors)
// names the objects, pools and nodes the errors a step can add are
// computed from, and Extract cuts them out of the working state, so that
// each step costs the size of its scope rather than of the tenancy.
package scope

import (
	"sort"

	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// Scope is the part of a state one step is checked on, by name.
type Scope struct {
	Owner               string // the step's object, whose queues' names may be derived from it
	All                 bool   // the whole state
	Pools, Depts, Projs map[string]bool
	Nodes               map[int]bool // indices into the snapshot's Nodes
}

// New is the empty scope of a step of the object named owner.
func New(owner string) *Scope {
	return &Scope{Owner: owner, Pools: map[string]bool{}, Depts: map[string]bool{}, Projs: map[string]bool{}, Nodes: map[int]bool{}}
}

// Extract returns the part of the working state (base's cluster data with
// w's objects) in the scope: its objects in w's order, with every pool
// their queues name and every project's department (so that nothing in it
// is unknown for want of a context object), and its nodes. The live queues
// and namespaces are left out, marked as not read: they give warnings and
// notes, never errors.
func (sc *Scope) Extract(base *snapshot.State, w *tenancy.Index) *snapshot.State {
	if sc.All {
		whole := *base
		whole.Tenancy = *w.Tenancy()
		return &whole
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
	for p := range sc.Pools {
		pools[p] = true
	}
	depts := map[string]bool{}
	for d := range sc.Depts {
		depts[d] = true
	}
	ji := positions(w, tenancy.KindProject, sc.Projs)
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
	// Each list is made at its size: a scope of thousands of projects
	// grown by append copied them (152 bytes each) a dozen times.
	sub.NodePools = pick(t.NodePools, positions(w, tenancy.KindNodePool, pools))
	sub.Departments = pick(t.Departments, di)
	sub.Projects = pick(t.Projects, ji)
	ni := make([]int, 0, len(sc.Nodes))
	for i := range sc.Nodes {
		ni = append(ni, i)
	}
	sort.Ints(ni)
	sub.Nodes = pick(base.Nodes, ni)
	return sub
}

// pick is the elements of list at positions, in their order; nil when
// there are none.
func pick[E any](list []E, positions []int) []E {
	if len(positions) == 0 {
		return nil
	}
	out := make([]E, len(positions))
	for k, i := range positions {
		out[k] = list[i]
	}
	return out
}

// positions is where the objects of kind named in names are in w's
// tenancy, in order.
func positions(w *tenancy.Index, kind tenancy.Kind, names map[string]bool) []int {
	out := make([]int, 0, len(names))
	for name := range names {
		if i, ok := w.Position(kind.Object(name)); ok {
			out = append(out, i)
		}
	}
	sort.Ints(out)
	return out
}
