package planner

import (
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// cloneTenancy copies the objects of s deeply enough that the copy's specs
// can be changed without touching s. Cluster data (nodes, live queues,
// namespaces) is shared: the planner never changes it.
func cloneTenancy(s *snapshot.State) *snapshot.State {
	c := *s
	c.NodePools = append([]tenancy.NodePool(nil), s.NodePools...)
	c.Departments = make([]tenancy.Department, len(s.Departments))
	for i, d := range s.Departments {
		d.Spec.Queues = tenancy.CloneQueues(d.Spec.Queues)
		c.Departments[i] = d
	}
	c.Projects = make([]tenancy.Project, len(s.Projects))
	for i, p := range s.Projects {
		p.Spec.Queues = tenancy.CloneQueues(p.Spec.Queues)
		p.Spec.DefaultNodePools = append([]string(nil), p.Spec.DefaultNodePools...)
		c.Projects[i] = p
	}
	return &c
}
