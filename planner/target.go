package planner

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// Object kinds as KRM names them.
const (
	KindNodePool   = "NodePool"
	KindDepartment = "Department"
	KindProject    = "Project"
)

// Location is where a value, or the cause of a finding, is written: a line
// of a tenancy file (from the snapshot) or a range of desired.hcl.
type Location struct {
	File string `json:"file"`
	Line int    `json:"line"`
	// Column and the End fields are 1-based; StartByte/EndByte are offsets
	// into the file. For a desired.hcl range they let a view underline the
	// expression the way an HCL diagnostic does.
	Column    int  `json:"column,omitempty"`
	EndLine   int  `json:"end_line,omitempty"`
	EndColumn int  `json:"end_column,omitempty"`
	StartByte int  `json:"start_byte,omitempty"`
	EndByte   int  `json:"end_byte,omitempty"`
	Desired   bool `json:"desired,omitempty"` // true for a range of desired.hcl
}

// HCLRange is l as an hcl.Range, for printing with HCL's diagnostic writer.
func (l Location) HCLRange() hcl.Range {
	return hcl.Range{
		Filename: l.File,
		Start:    hcl.Pos{Line: l.Line, Column: l.Column, Byte: l.StartByte},
		End:      hcl.Pos{Line: l.EndLine, Column: l.EndColumn, Byte: l.EndByte},
	}
}

func fromHCL(r hcl.Range) Location {
	return Location{File: r.Filename, Line: r.Start.Line, Column: r.Start.Column, EndLine: r.End.Line, EndColumn: r.End.Column,
		StartByte: r.Start.Byte, EndByte: r.End.Byte, Desired: true}
}

// valueKey names one value of one object: kind, object name and the JSON
// pointer of the value inside the object ("/spec/queues/0/name").
func valueKey(kind, name, path string) string { return kind + "/" + name + path }

func queuePath(i int) string { return fmt.Sprintf("/spec/queues/%d", i) }

// resourcePath is the JSON pointer of one quota field of the i-th queue.
func resourcePath(i int, r quota.Resource, field tenancy.QuotaField) string {
	return fmt.Sprintf("/spec/queues/%d/resources/%s/%s", i, r, field)
}

// applier lays the overlay over a copy of the snapshot's objects.
type applier struct {
	t     *snapshot.State
	x     *index              // t's objects, whose queues are copied on write
	set   map[string]Location // valueKey → the desired.hcl range that set it
	diags hcl.Diagnostics
	pools map[string]int
	depts map[string]int
	projs map[string]int
}

// applyOverlay returns the target state: before with every attribute the
// overlay sets replaced, and the objects and queues it adds. It also returns
// the desired.hcl range of every value it set, by valueKey. Diagnostics are
// errors of the overlay against this snapshot: a new object or queue
// without a required field, a change to a node pool's immutable label pair.
func applyOverlay(before *snapshot.State, ov *config.Overlay) (*snapshot.State, map[string]Location, hcl.Diagnostics) {
	// The target shares the queues of the objects the overlay leaves alone
	// with the snapshot; an object the overlay changes gets its own (own).
	x := shared(before)
	a := &applier{t: x.s, x: x, set: map[string]Location{}, pools: x.pools, depts: x.depts, projs: x.projs}
	for _, p := range ov.NodePools {
		a.nodePool(p)
	}
	for _, d := range ov.Departments {
		i, ok := a.depts[d.Name]
		if !ok {
			a.t.Departments = append(a.t.Departments, tenancy.Department{Metadata: tenancy.Meta{Name: d.Name}})
			i = len(a.t.Departments) - 1
			a.depts[d.Name] = i
			a.mark(KindDepartment, d.Name, "/metadata/name", d.DefRange)
		}
		a.x.own(KindDepartment, d.Name)
		a.queues(KindDepartment, d.Name, &a.t.Departments[i].Spec.Queues, d.Queues)
	}
	for _, p := range ov.Projects {
		a.project(p)
	}
	a.t.Normalize()
	return a.t, a.set, a.diags
}

func (a *applier) errorf(r hcl.Range, summary, format string, args ...any) {
	rr := r
	a.diags = append(a.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: &rr})
}

func (a *applier) mark(kind, name, path string, r hcl.Range) {
	a.set[valueKey(kind, name, path)] = fromHCL(r)
}

func (a *applier) nodePool(p config.NodePool) {
	i, exists := a.pools[p.Name]
	if !exists {
		if p.Name != "default" && (p.LabelKey == nil || p.LabelValue == nil) {
			a.errorf(p.DefRange, "Missing label pair", "node pool %q is not in the snapshot: a new node pool needs label_key and label_value.", p.Name)
			return
		}
		a.t.NodePools = append(a.t.NodePools, tenancy.NodePool{Metadata: tenancy.Meta{Name: p.Name}})
		i = len(a.t.NodePools) - 1
		a.pools[p.Name] = i
		a.mark(KindNodePool, p.Name, "/metadata/name", p.DefRange)
	}
	np := &a.t.NodePools[i]
	for _, f := range []struct {
		attr  *config.Str
		slot  *string
		field string
	}{{p.LabelKey, &np.Spec.LabelKey, "labelKey"}, {p.LabelValue, &np.Spec.LabelValue, "labelValue"}} {
		if f.attr == nil || *f.slot == f.attr.Value {
			continue
		}
		if exists {
			a.errorf(f.attr.Range, "Immutable label pair",
				"node pool %q has %s %q; KRM does not allow changing a node pool's label pair after creation (create a new pool instead).", p.Name, f.field, *f.slot)
			continue
		}
		*f.slot = f.attr.Value
		a.mark(KindNodePool, p.Name, "/spec/"+f.field, f.attr.Range)
	}
}

func (a *applier) project(p config.Project) {
	i, ok := a.projs[p.Name]
	if !ok {
		if p.Department == nil {
			a.errorf(p.DefRange, "Missing department", "project %q is not in the snapshot: a new project needs department = \"<name>\".", p.Name)
			return
		}
		a.t.Projects = append(a.t.Projects, tenancy.Project{Metadata: tenancy.Meta{Name: p.Name}})
		i = len(a.t.Projects) - 1
		a.projs[p.Name] = i
		a.mark(KindProject, p.Name, "/metadata/name", p.DefRange)
	}
	pr := &a.t.Projects[i]
	if p.Department != nil {
		pr.Spec.Parent = p.Department.Value
		a.mark(KindProject, p.Name, "/spec/parent", p.Department.Range)
	}
	if p.Namespace != nil {
		pr.Spec.Namespace = p.Namespace.Value
		a.mark(KindProject, p.Name, "/spec/namespace", p.Namespace.Range)
	}
	if p.DefaultNodePools != nil {
		pr.Spec.DefaultNodePools = append([]string(nil), p.DefaultNodePools.Values...)
		a.mark(KindProject, p.Name, "/spec/defaultNodePools", p.DefaultNodePools.Range)
	}
	a.x.own(KindProject, p.Name)
	a.queues(KindProject, p.Name, &pr.Spec.Queues, p.Queues)
}

// newQueueDefaults are what krmplan writes for a field a new queue's HCL
// leaves out, so that every new queue states all three resources: KRM
// would read an omitted limit as a ceiling of zero.
func newQueueDefault(r quota.Resource, field tenancy.QuotaField) quota.Value {
	switch {
	case field == tenancy.OverQuotaWeight:
		return quota.FromInt(1)
	case field == tenancy.Deserved && r == quota.GPU:
		return quota.Zero
	}
	return quota.Unlimited
}

func (a *applier) queues(kind, owner string, qs *[]tenancy.Queue, blocks []config.Queue) {
	for _, b := range blocks {
		idx := -1
		for i, q := range *qs {
			if q.NodePool == b.Pool {
				idx = i
				break
			}
		}
		isNew := idx < 0
		if isNew {
			if b.Name == nil {
				a.errorf(b.DefRange, "Missing queue name", "%s %q has no queue on node pool %q: a new queue needs name = \"<queue name>\".", kind, owner, b.Pool)
				continue
			}
			*qs = append(*qs, tenancy.Queue{NodePool: b.Pool})
			idx = len(*qs) - 1
		}
		q := &(*qs)[idx]
		path := queuePath(idx)
		if b.Name != nil {
			q.Name = b.Name.Value
			a.mark(kind, owner, path+"/name", b.Name.Range)
		}
		if isNew {
			a.mark(kind, owner, path+"/nodepool", b.DefRange)
		}
		if b.Priority != nil {
			p := b.Priority.Value
			q.Priority = &p
			a.mark(kind, owner, path+"/priority", b.Priority.Range)
		}
		for _, r := range quota.Resources {
			rb := b.Resource(r)
			if rb == nil && !isNew {
				continue
			}
			block := q.Resources.Ensure(r)
			for _, field := range tenancy.QuotaFields {
				var n *config.Num
				if rb != nil {
					n = map[tenancy.QuotaField]*config.Num{tenancy.Deserved: rb.Deserved, tenancy.Limit: rb.Limit, tenancy.OverQuotaWeight: rb.OverQuotaWeight}[field]
				}
				slot := block.Slot(field)
				switch {
				case n != nil:
					v := n.Value
					*slot = &v
					a.mark(kind, owner, resourcePath(idx, r, field), n.Range)
				case isNew:
					v := newQueueDefault(r, field)
					*slot = &v
				}
			}
		}
	}
}
