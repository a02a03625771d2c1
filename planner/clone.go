package planner

import "github.com/krmplan/krmplan/snapshot"

// cloneTenancy copies the objects of s deeply enough that the copy's specs
// can be changed without touching s. Cluster data (nodes, live queues,
// namespaces) is shared: the planner never changes it.
func cloneTenancy(s *snapshot.State) *snapshot.State {
	c := *s
	c.NodePools = append([]snapshot.NodePool(nil), s.NodePools...)
	c.Departments = make([]snapshot.Department, len(s.Departments))
	for i, d := range s.Departments {
		d.Spec.Queues = cloneQueues(d.Spec.Queues)
		c.Departments[i] = d
	}
	c.Projects = make([]snapshot.Project, len(s.Projects))
	for i, p := range s.Projects {
		p.Spec.Queues = cloneQueues(p.Spec.Queues)
		p.Spec.DefaultNodePools = append([]string(nil), p.Spec.DefaultNodePools...)
		c.Projects[i] = p
	}
	return &c
}

func cloneQueues(qs []snapshot.Queue) []snapshot.Queue {
	out := make([]snapshot.Queue, len(qs))
	for i, q := range qs {
		if q.Priority != nil {
			p := *q.Priority
			q.Priority = &p
		}
		q.Resources = cloneResources(q.Resources)
		out[i] = q
	}
	return out
}

func cloneResources(rs snapshot.Resources) snapshot.Resources {
	cp := func(r *snapshot.Resource) *snapshot.Resource {
		if r == nil {
			return nil
		}
		c := *r // the values themselves are immutable and may be shared
		return &c
	}
	return snapshot.Resources{GPU: cp(rs.GPU), CPU: cp(rs.CPU), Memory: cp(rs.Memory)}
}
