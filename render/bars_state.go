package render

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
)

// AfterState returns the tenancy as the plan leaves it: a copy of the
// plan's snapshot with every change applied. A plan lists every field of a
// new object or queue as a change, so the changes alone give the target.
// Changes that cannot be read (a hand-made plan file) are skipped, never a
// panic: views only draw with it.
func AfterState(p *planner.Plan) *snapshot.State {
	s := copyState(&p.Snapshot)
	for _, c := range p.Changes {
		applyChange(s, c)
	}
	return s
}

// copyState deep-copies a state through its JSON form.
func copyState(s *snapshot.State) *snapshot.State {
	var c snapshot.State
	b, err := json.Marshal(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		return &snapshot.State{} // cannot happen: the state is plain data
	}
	return &c
}

func applyChange(s *snapshot.State, c planner.Change) {
	var str string
	strOK := json.Unmarshal(c.After, &str) == nil
	switch c.Kind {
	case planner.KindNodePool:
		np := findPool(s, c.Object)
		switch c.Field {
		case "labelKey":
			if strOK {
				np.Spec.LabelKey = str
			}
		case "labelValue":
			if strOK {
				np.Spec.LabelValue = str
			}
		}
		return
	case planner.KindDepartment:
		d := findDept(s, c.Object)
		applyQueueChange(&d.Spec.Queues, c)
		return
	case planner.KindProject:
	default:
		return
	}
	p := findProject(s, c.Object)
	if c.QueueIndex >= 0 {
		applyQueueChange(&p.Spec.Queues, c)
		return
	}
	switch c.Field {
	case "parent":
		if strOK {
			p.Spec.Parent = str
		}
	case "namespace":
		if strOK {
			p.Spec.Namespace = str
		}
	case "defaultNodePools":
		var l []string
		if json.Unmarshal(c.After, &l) == nil {
			p.Spec.DefaultNodePools = l
		}
	}
}

func applyQueueChange(qs *[]snapshot.Queue, c planner.Change) {
	if c.QueueIndex < 0 || c.QueueIndex > len(*qs) { // a new queue is appended, one at a time
		return
	}
	if c.QueueIndex == len(*qs) {
		*qs = append(*qs, snapshot.Queue{})
	}
	q := &(*qs)[c.QueueIndex]
	if q.Name == "" {
		q.Name = c.Queue
	}
	if q.NodePool == "" {
		q.NodePool = c.Pool
	}
	var str string
	switch c.Field {
	case "name":
		if json.Unmarshal(c.After, &str) == nil {
			q.Name = str
		}
		return
	case "nodepool":
		if json.Unmarshal(c.After, &str) == nil {
			q.NodePool = str
		}
		return
	case "priority":
		if n, err := strconv.ParseInt(string(c.After), 10, 32); err == nil {
			v := int32(n)
			q.Priority = &v
		}
		return
	}
	r, field, ok := strings.Cut(c.Field, ".")
	if !ok {
		return
	}
	v, err := quota.Parse(string(c.After))
	if err != nil {
		return
	}
	switch quota.Resource(r) {
	case quota.GPU, quota.CPU, quota.Memory:
	default:
		return
	}
	slot := q.Resources.Ensure(quota.Resource(r)).Field(field)
	if slot != nil {
		*slot = &v
	}
}

func findPool(s *snapshot.State, name string) *snapshot.NodePool {
	for i := range s.NodePools {
		if s.NodePools[i].Metadata.Name == name {
			return &s.NodePools[i]
		}
	}
	s.NodePools = append(s.NodePools, snapshot.NodePool{Metadata: snapshot.Meta{Name: name}})
	return &s.NodePools[len(s.NodePools)-1]
}

func findDept(s *snapshot.State, name string) *snapshot.Department {
	for i := range s.Departments {
		if s.Departments[i].Metadata.Name == name {
			return &s.Departments[i]
		}
	}
	s.Departments = append(s.Departments, snapshot.Department{Metadata: snapshot.Meta{Name: name}})
	return &s.Departments[len(s.Departments)-1]
}

func findProject(s *snapshot.State, name string) *snapshot.Project {
	for i := range s.Projects {
		if s.Projects[i].Metadata.Name == name {
			return &s.Projects[i]
		}
	}
	s.Projects = append(s.Projects, snapshot.Project{Metadata: snapshot.Meta{Name: name}})
	return &s.Projects[len(s.Projects)-1]
}
