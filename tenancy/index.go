package tenancy

import "encoding/json"

// Index finds the objects of one tenancy by address, and where each object
// and value is written. Build it once per state (NewIndex); it holds
// positions in the tenancy's lists, so it stays valid while objects change
// in place, not when the lists are reordered.
type Index struct {
	t   *Tenancy
	pos map[ObjectAddr]int
}

// NewIndex indexes the node pools, departments and projects of t. Of two
// objects of one address (a tenancy that declares one twice), the later
// is found.
func NewIndex(t *Tenancy) *Index {
	x := &Index{t: t, pos: make(map[ObjectAddr]int, len(t.NodePools)+len(t.Departments)+len(t.Projects))}
	for _, k := range Planned {
		x.reindex(k)
	}
	return x
}

// reindex records the positions of every object of kind k.
func (x *Index) reindex(k Kind) {
	switch k {
	case KindNodePool:
		for i := range x.t.NodePools {
			x.pos[ObjectAddr{k, x.t.NodePools[i].Metadata.Name}] = i
		}
	case KindDepartment:
		for i := range x.t.Departments {
			x.pos[ObjectAddr{k, x.t.Departments[i].Metadata.Name}] = i
		}
	case KindProject:
		for i := range x.t.Projects {
			x.pos[ObjectAddr{k, x.t.Projects[i].Metadata.Name}] = i
		}
	}
}

// Tenancy is the indexed tenancy.
func (x *Index) Tenancy() *Tenancy { return x.t }

// Position is the index of object o in its kind's list; ok is false when
// the tenancy has no such object.
func (x *Index) Position(o ObjectAddr) (i int, ok bool) {
	i, ok = x.pos[o]
	return i, ok
}

// Names lists the names of the objects of kind k (a planned kind), in the
// tenancy's order: the names a "did you mean" is chosen from.
func (x *Index) Names(k Kind) []string {
	var out []string
	switch k {
	case KindNodePool:
		for i := range x.t.NodePools {
			out = append(out, x.t.NodePools[i].Metadata.Name)
		}
	case KindDepartment:
		for i := range x.t.Departments {
			out = append(out, x.t.Departments[i].Metadata.Name)
		}
	case KindProject:
		for i := range x.t.Projects {
			out = append(out, x.t.Projects[i].Metadata.Name)
		}
	}
	return out
}

// Has reports whether the tenancy has object o.
func (x *Index) Has(o ObjectAddr) bool {
	_, ok := x.pos[o]
	return ok
}

// NodePool returns the node pool of that name, nil when there is none.
func (x *Index) NodePool(name string) *NodePool {
	if i, ok := x.pos[ObjectAddr{KindNodePool, name}]; ok {
		return &x.t.NodePools[i]
	}
	return nil
}

// Department returns the department of that name, nil when there is none.
func (x *Index) Department(name string) *Department {
	if i, ok := x.pos[ObjectAddr{KindDepartment, name}]; ok {
		return &x.t.Departments[i]
	}
	return nil
}

// Project returns the project of that name, nil when there is none.
func (x *Index) Project(name string) *Project {
	if i, ok := x.pos[ObjectAddr{KindProject, name}]; ok {
		return &x.t.Projects[i]
	}
	return nil
}

// object returns the parts of object o that a change or a lookup needs:
// its metadata, its origin, and its queues (nil for a node pool); ok is
// false when the tenancy has no such object.
func (x *Index) object(o ObjectAddr) (meta *Meta, origin *Origin, queues *[]Queue, ok bool) {
	switch o.Kind {
	case KindNodePool:
		if p := x.NodePool(o.Name); p != nil {
			return &p.Metadata, p.Origin, nil, true
		}
	case KindDepartment:
		if d := x.Department(o.Name); d != nil {
			return &d.Metadata, d.Origin, &d.Spec.Queues, true
		}
	case KindProject:
		if p := x.Project(o.Name); p != nil {
			return &p.Metadata, p.Origin, &p.Spec.Queues, true
		}
	}
	return nil, nil, nil, false
}

// Queues returns the queues of a department or project, nil when the
// tenancy has no such object (or o is a node pool).
func (x *Index) Queues(o ObjectAddr) []Queue {
	if _, _, qs, ok := x.object(o); ok && qs != nil {
		return *qs
	}
	return nil
}

// Spec returns the spec of object o (a NodePoolSpec, DepartmentSpec or
// ProjectSpec), nil when there is none.
func (x *Index) Spec(o ObjectAddr) any {
	switch o.Kind {
	case KindNodePool:
		if p := x.NodePool(o.Name); p != nil {
			return p.Spec
		}
	case KindDepartment:
		if d := x.Department(o.Name); d != nil {
			return d.Spec
		}
	case KindProject:
		if p := x.Project(o.Name); p != nil {
			return p.Spec
		}
	}
	return nil
}

// Manifest is object o as kubectl creates it and shows it: apiVersion,
// kind, metadata.name and spec, as JSON; ok is false when there is no
// such object.
func (x *Index) Manifest(o ObjectAddr) (b []byte, ok bool) {
	spec := x.Spec(o)
	if spec == nil {
		return nil, false
	}
	b, err := json.Marshal(map[string]any{
		"apiVersion": APIVersion,
		"kind":       o.Kind.String(),
		"metadata":   map[string]string{"name": o.Name},
		"spec":       spec,
	})
	return b, err == nil // the tenancy's specs are plain data
}

// Meta returns the metadata of object o, nil when there is none.
func (x *Index) Meta(o ObjectAddr) *Meta {
	m, _, _, _ := x.object(o)
	return m
}

// Origin returns where object o is written (nil when it was read from a
// cluster, or is new); ok is false when the tenancy has no such object.
func (x *Index) Origin(o ObjectAddr) (origin *Origin, ok bool) {
	_, origin, _, ok = x.object(o)
	return origin, ok
}

// Pos returns where the value a is written in a tenancy file; ok is false
// when it is not (omitted, or read from a cluster).
func (x *Index) Pos(a FieldAddr) (p Pos, ok bool) {
	o, _ := x.Origin(a.Object)
	if o == nil {
		return Pos{}, false
	}
	p, ok = o.Values.Value(a.Pointer())
	return p, ok
}

// Value returns the value a as the tenancy holds it, Null when it is
// absent: an omitted quota field, priority, namespace or
// defaultNodePools; ok is false when the object or the queue does not
// exist.
func (x *Index) Value(a FieldAddr) (v Value, ok bool) {
	switch a.Object.Kind {
	case KindNodePool:
		if p := x.NodePool(a.Object.Name); p != nil {
			return nodePoolValue(p, a.Field)
		}
	case KindProject:
		if p := x.Project(a.Object.Name); p != nil && !a.Field.InQueue() {
			return projectValue(p, a.Field)
		}
	}
	if !a.Field.InQueue() {
		if m := x.Meta(a.Object); m != nil && a.Field == FieldName {
			return String(m.Name), true
		}
		return Null, false
	}
	qs := x.Queues(a.Object)
	if a.Queue < 0 || a.Queue >= len(qs) {
		return Null, false
	}
	return queueValue(&qs[a.Queue], a.Field), true
}

func nodePoolValue(p *NodePool, f Field) (Value, bool) {
	switch f {
	case FieldName:
		return String(p.Metadata.Name), true
	case FieldLabelKey:
		return String(p.Spec.LabelKey), true
	case FieldLabelValue:
		return String(p.Spec.LabelValue), true
	}
	return Null, false
}

// projectValue is a project's own field. An empty namespace is absent (KRM
// then uses the project's name); so is a nil defaultNodePools.
func projectValue(p *Project, f Field) (Value, bool) {
	switch f {
	case FieldName:
		return String(p.Metadata.Name), true
	case FieldParent:
		if p.Spec.ParentOmitted {
			return Null, true
		}
		return String(p.Spec.Parent), true
	case FieldNamespace:
		if p.Spec.Namespace == "" {
			return Null, true
		}
		return String(p.Spec.Namespace), true
	case FieldDefaultNodePools:
		if p.Spec.DefaultNodePools == nil {
			return Null, true
		}
		return List(p.Spec.DefaultNodePools), true
	}
	return Null, false
}

func queueValue(q *Queue, f Field) Value {
	switch f {
	case FieldQueueName:
		return String(q.Name)
	case FieldQueueNodePool:
		return String(q.NodePool)
	case FieldPriority:
		if q.Priority == nil {
			return Null
		}
		return Int(*q.Priority)
	}
	r, qf, _ := f.Quota()
	return NumberOf(q.Resources.Get(r).Get(qf))
}
