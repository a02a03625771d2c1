package views

import (
	"encoding/json"
	"slices"
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
//
// The copy is shallow: the lists of objects are copied, and only the
// objects the plan changes get their own queues; everything else is shared
// with the plan's snapshot, which is not changed.
func AfterState(p *planner.Plan) *snapshot.State {
	a := newAfter(&p.Snapshot, p.Changes)
	for _, c := range p.Changes {
		a.apply(c)
	}
	return a.s
}

// after is the state being built by AfterState, with the objects the
// changes name indexed by name (the first of a name, as a search from the
// start finds it; absent, an index of -1) and the objects whose queues are
// already its own.
type after struct {
	s                      *snapshot.State
	pools, depts, projects map[string]int
	ownDept, ownProject    map[int]bool
}

// newAfter copies the lists of objects of before and indexes the objects
// the changes name. Only those: a plan changes a few objects of a large
// tenancy, and an index of every name would cost more than the view.
func newAfter(before *snapshot.State, changes []planner.Change) *after {
	s := *before
	s.NodePools = slices.Clone(before.NodePools)
	s.Departments = slices.Clone(before.Departments)
	s.Projects = slices.Clone(before.Projects)
	a := &after{s: &s, pools: map[string]int{}, depts: map[string]int{}, projects: map[string]int{},
		ownDept: map[int]bool{}, ownProject: map[int]bool{}}
	for _, c := range changes {
		if m := a.index(c.Kind); m != nil {
			m[c.Object] = -1
		}
	}
	for i := range s.NodePools {
		firstIndex(a.pools, s.NodePools[i].Metadata.Name, i)
	}
	for i := range s.Departments {
		firstIndex(a.depts, s.Departments[i].Metadata.Name, i)
	}
	for i := range s.Projects {
		firstIndex(a.projects, s.Projects[i].Metadata.Name, i)
	}
	return a
}

// index is the index of kind's objects, nil for another kind.
func (a *after) index(kind string) map[string]int {
	switch kind {
	case planner.KindNodePool:
		return a.pools
	case planner.KindDepartment:
		return a.depts
	case planner.KindProject:
		return a.projects
	}
	return nil
}

// firstIndex records i for name when m wants name (-1) and has no index
// for it yet.
func firstIndex(m map[string]int, name string, i int) {
	if j, ok := m[name]; ok && j < 0 {
		m[name] = i
	}
}

// pool returns the node pool name, added when the state has none.
func (a *after) pool(name string) *snapshot.NodePool {
	i, ok := a.pools[name]
	if !ok || i < 0 {
		a.s.NodePools = append(a.s.NodePools, snapshot.NodePool{Metadata: snapshot.Meta{Name: name}})
		i = len(a.s.NodePools) - 1
		a.pools[name] = i
	}
	return &a.s.NodePools[i]
}

// dept returns the department name, with queues of its own to change;
// added when the state has none.
func (a *after) dept(name string) *snapshot.Department {
	return ownQueues(&a.s.Departments, a.depts, a.ownDept, name, snapshot.Department{Metadata: snapshot.Meta{Name: name}},
		func(d *snapshot.Department) *[]snapshot.Queue { return &d.Spec.Queues })
}

// project returns the project name, with queues of its own to change;
// added when the state has none.
func (a *after) project(name string) *snapshot.Project {
	return ownQueues(&a.s.Projects, a.projects, a.ownProject, name, snapshot.Project{Metadata: snapshot.Meta{Name: name}},
		func(p *snapshot.Project) *[]snapshot.Queue { return &p.Spec.Queues })
}

// ownQueues returns the object of list that index names name (appending
// added when there is none), with queues of its own: an object
// the after-state shares with the plan's snapshot gets a copy of its
// queues the first time it is changed (owned marks those).
func ownQueues[T any](list *[]T, index map[string]int, owned map[int]bool, name string, added T, queues func(*T) *[]snapshot.Queue) *T {
	i, ok := index[name]
	if !ok || i < 0 {
		*list = append(*list, added)
		i = len(*list) - 1
		index[name] = i
	}
	o := &(*list)[i]
	if !owned[i] {
		if qs := queues(o); *qs != nil { // nil stays nil: appending to it copies nothing shared
			*qs = snapshot.CloneQueues(*qs)
		}
		owned[i] = true
	}
	return o
}

func (a *after) apply(c planner.Change) {
	var str string
	strOK := json.Unmarshal(c.After, &str) == nil
	switch c.Kind {
	case planner.KindNodePool:
		np := a.pool(c.Object)
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
		d := a.dept(c.Object)
		applyQueueChange(&d.Spec.Queues, c)
		return
	case planner.KindProject:
	default:
		return
	}
	p := a.project(c.Object)
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
