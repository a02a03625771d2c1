package config

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
)

// Ranges maps the address of every value desired.hcl sets (changed or
// not) to the range of the expression that sets it: findings about such a
// value point at desired.hcl. A new object's name points at its block
// (`project "x"`), and a new queue's nodepool at its queue block.
type Ranges map[tenancy.FieldAddr]tenancy.Location

// Changes returns what the overlay changes in the tenancy that before
// indexes: one change per field whose value differs, ordered as a plan
// lists them (node pools, departments, projects, each by name; an object's
// own fields, then its queues by index; in a queue its name, nodepool,
// priority, then gpu, cpu and memory, each deserved, limit,
// overQuotaWeight), each with the desired.hcl range that sets it. Every
// field of a new object or queue is a change: a field the HCL leaves out
// of a new queue gets newQueueDefault.
//
// Diagnostics are errors of the overlay against this tenancy: a new object
// or queue without a required field, a change to a node pool's immutable
// label pair, a file = "…" that cannot place the object (read are the
// tenancy files the snapshot read, repository paths: a new object's file
// must be where the next snapshot reads it back). With an error the
// changes are not complete.
func (o *Overlay) Changes(before *tenancy.Index, read []string) ([]tenancy.Change, Ranges, hcl.Diagnostics) {
	d := &differ{x: before, o: o, read: readFolders(read), set: Ranges{}, byObject: map[tenancy.ObjectAddr]*objectChanges{}}
	for _, p := range o.NodePools {
		d.nodePool(p)
	}
	for _, dep := range o.Departments {
		d.department(dep)
	}
	for _, p := range o.Projects {
		d.project(p)
	}
	d.removals(o)
	d.moves(o)
	if d.diags.HasErrors() {
		return nil, d.set, sortDiagnostics(o.File, d.diags)
	}
	d.diags = append(d.diags, d.place(o)...)
	return d.list(), d.set, sortDiagnostics(o.File, d.diags)
}

// differ collects the changes of one overlay, by object.
type differ struct {
	x        *tenancy.Index
	o        *Overlay
	read     folders // the snapshot's files and their folders
	set      Ranges
	diags    hcl.Diagnostics
	byObject map[tenancy.ObjectAddr]*objectChanges
}

// objectChanges are the changes of one object.
type objectChanges struct {
	addr    tenancy.ObjectAddr
	exists  bool      // the tenancy has the object
	def     hcl.Range // the object's block header
	unknown bool      // its name was said to be unknown (once per object)
	changes []tenancy.Change
}

// queueChanges names the queue the changes being made belong to, as the
// plan leaves it.
type queueChanges struct {
	addr       tenancy.QueueAddr
	name, pool string
	isNew      bool
}

func (d *differ) errorf(r hcl.Range, summary, format string, args ...any) {
	rr := r
	d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: &rr})
}

// mark records that desired.hcl sets the value at a, in the range r.
func (d *differ) mark(a tenancy.FieldAddr, r hcl.Range) { d.set[a] = location(r) }

// location is an HCL range as a plan's Location.
func location(r hcl.Range) tenancy.Location {
	return tenancy.Location{File: r.Filename, Line: r.Start.Line, Column: r.Start.Column, EndLine: r.End.Line, EndColumn: r.End.Column,
		StartByte: r.Start.Byte, EndByte: r.End.Byte, Desired: true}
}

// begin returns the change list of object a, which exists in the tenancy
// or not.
func (d *differ) begin(a tenancy.ObjectAddr, exists bool, def hcl.Range) *objectChanges {
	oc := &objectChanges{addr: a, exists: exists, def: def}
	d.byObject[a] = oc
	return oc
}

// add records a change of the field at a from before to after, unless the
// two are equal. q is the queue the field belongs to, nil for a field of
// the object.
func (d *differ) add(oc *objectChanges, a tenancy.FieldAddr, q *queueChanges, before, after tenancy.Value) {
	if before.Equal(after) {
		return
	}
	c := tenancy.Change{Action: tenancy.ActionUpdate, Field: a, Before: before, After: after}
	if !oc.exists || (q != nil && q.isNew) {
		c.Action = tenancy.ActionCreate
	}
	if q != nil {
		// A queue of a new object is created with it: only a queue
		// appended to an existing object is new (an add /spec/queues/-).
		c.Queue, c.Pool, c.NewQueue = q.name, q.pool, q.isNew && oc.exists
	}
	if loc, ok := d.set[a]; ok {
		c.Source = &loc
	}
	oc.changes = append(oc.changes, c)
}

// list is every change, objects by kind and name, an object's own fields
// before its queues, queues by index.
func (d *differ) list() []tenancy.Change {
	objs := make([]*objectChanges, 0, len(d.byObject))
	for _, oc := range d.byObject {
		objs = append(objs, oc)
	}
	sort.Slice(objs, func(i, j int) bool {
		a, b := objs[i].addr, objs[j].addr
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Name < b.Name
	})
	out := []tenancy.Change{}
	for _, oc := range objs {
		sort.SliceStable(oc.changes, func(i, j int) bool { return tenancy.ChangeBefore(&oc.changes[i], &oc.changes[j]) })
		out = append(out, oc.changes...)
	}
	return out
}

// str is a string field's value: absent when the object is.
func str(s string, present bool) tenancy.Value {
	if !present {
		return tenancy.Null
	}
	return tenancy.String(s)
}

func (d *differ) nodePool(p NodePool) {
	a := tenancy.KindNodePool.Object(p.Name)
	labels := []struct {
		attr  *Str
		field tenancy.Field
	}{{p.LabelKey, tenancy.FieldLabelKey}, {p.LabelValue, tenancy.FieldLabelValue}}
	if np := d.x.NodePool(p.Name); np != nil {
		for _, l := range labels {
			have := np.Spec.LabelKey
			if l.field == tenancy.FieldLabelValue {
				have = np.Spec.LabelValue
			}
			if l.attr != nil && l.attr.Value != have {
				d.errorf(l.attr.Range, "Immutable label pair",
					"node pool %q has %s %q; KRM does not allow changing a node pool's label pair after creation (create a new pool instead).", p.Name, l.field, have)
			}
		}
		return
	}
	if p.Name != "default" && (p.LabelKey == nil || p.LabelValue == nil) {
		if msg, near := d.notInSnapshot(tenancy.KindNodePool, p.Name); near {
			d.errorf(p.DefRange, "Unknown node pool", "%s A new node pool needs label_key and label_value.", msg)
			return
		}
		d.errorf(p.DefRange, "Missing label pair", "node pool %q is not in the snapshot: a new node pool needs label_key and label_value.", p.Name)
		return
	}
	d.mark(a.Field(tenancy.FieldName), p.DefRange)
	oc := d.begin(a, false, p.DefRange)
	for _, l := range labels {
		v := ""
		if l.attr != nil && l.attr.Value != "" {
			v = l.attr.Value
			d.mark(a.Field(l.field), l.attr.Range)
		}
		d.add(oc, a.Field(l.field), nil, tenancy.Null, tenancy.String(v))
	}
}

func (d *differ) department(dep Department) {
	a := tenancy.KindDepartment.Object(dep.Name)
	existing := d.x.Department(dep.Name)
	var qs []tenancy.Queue
	if existing != nil {
		qs = existing.Spec.Queues
	} else {
		d.mark(a.Field(tenancy.FieldName), dep.DefRange)
	}
	d.queues(d.begin(a, existing != nil, dep.DefRange), qs, dep.Queues)
}

func (d *differ) project(p Project) {
	a := tenancy.KindProject.Object(p.Name)
	existing := d.x.Project(p.Name)
	if existing == nil && p.Department == nil {
		if msg, near := d.notInSnapshot(tenancy.KindProject, p.Name); near {
			d.errorf(p.DefRange, "Unknown project", "%s A new project needs department = \"<name>\".", msg)
			return
		}
		d.errorf(p.DefRange, "Missing department", "project %q is not in the snapshot: a new project needs department = \"<name>\", or department = \"\" for a root project (no department: its queues are root queues beside the departments).", p.Name)
		return
	}
	var spec tenancy.ProjectSpec
	if existing != nil {
		spec = existing.Spec
	} else {
		d.mark(a.Field(tenancy.FieldName), p.DefRange)
	}
	oc := d.begin(a, existing != nil, p.DefRange)
	if p.Department != nil {
		d.mark(a.Field(tenancy.FieldParent), p.Department.Range)
		d.add(oc, a.Field(tenancy.FieldParent), nil, str(spec.Parent, oc.exists && !spec.ParentOmitted), tenancy.String(p.Department.Value))
	}
	if p.Namespace != nil {
		d.mark(a.Field(tenancy.FieldNamespace), p.Namespace.Range)
		d.add(oc, a.Field(tenancy.FieldNamespace), nil, str(spec.Namespace, spec.Namespace != ""), tenancy.String(p.Namespace.Value))
	}
	// An empty list is no change: KRM reads an empty defaultNodePools as
	// an absent one.
	if l := p.DefaultNodePools; l != nil {
		d.mark(a.Field(tenancy.FieldDefaultNodePools), l.Range)
		before := tenancy.Null
		if spec.DefaultNodePools != nil {
			before = tenancy.List(spec.DefaultNodePools)
		}
		if len(l.Values) > 0 && (!oc.exists || !slices.Equal(spec.DefaultNodePools, l.Values)) {
			d.add(oc, a.Field(tenancy.FieldDefaultNodePools), nil, before, tenancy.List(l.Values))
		}
	}
	d.queues(oc, spec.Queues, p.Queues)
}

// queues adds the changes of an object's queue blocks: a block on a pool
// where the object has a queue changes that queue, another appends one.
func (d *differ) queues(oc *objectChanges, existing []tenancy.Queue, blocks []Queue) {
	next := len(existing)
	seen := map[string]bool{}
	for _, b := range blocks {
		if seen[b.Pool] {
			// Load refuses this ("Duplicate queue"); an Overlay made in a
			// program could still hold it.
			d.errorf(b.DefRange, fmt.Sprintf("Duplicate queue %q", b.Pool), "The %s %q has two queue blocks on node pool %q; an object has at most one queue per pool.",
				oc.addr.Kind.Info().Word, oc.addr.Name, b.Pool)
			continue
		}
		seen[b.Pool] = true
		idx := slices.IndexFunc(existing, func(q tenancy.Queue) bool { return q.NodePool == b.Pool })
		q := &queueChanges{pool: b.Pool, isNew: idx < 0}
		var was tenancy.Queue
		switch {
		case !q.isNew:
			was = existing[idx]
		case b.Name == nil:
			d.missingQueueName(oc, existing, b)
			continue
		default:
			idx, next = next, next+1
		}
		q.addr = oc.addr.Queue(idx)
		written := was.Name // the spec's name: "" lets KRM derive the Queue's
		if b.Name != nil {
			written = b.Name.Value
			d.mark(q.addr.Field(tenancy.FieldQueueName), b.Name.Range)
		}
		// The changes name the queue by its KAI Queue's name, derived from
		// the owner's for a queue without one (tenancy.QueueName).
		q.name = tenancy.QueueName(oc.addr.Name, written, b.Pool)
		d.add(oc, q.addr.Field(tenancy.FieldQueueName), q, str(was.Name, !q.isNew), tenancy.String(written))
		if q.isNew {
			d.mark(q.addr.Field(tenancy.FieldQueueNodePool), b.DefRange)
			d.add(oc, q.addr.Field(tenancy.FieldQueueNodePool), q, tenancy.Null, tenancy.String(b.Pool))
		}
		if b.Priority != nil {
			d.mark(q.addr.Field(tenancy.FieldPriority), b.Priority.Range)
			before := tenancy.Null
			if was.Priority != nil {
				before = tenancy.Int(*was.Priority)
			}
			d.add(oc, q.addr.Field(tenancy.FieldPriority), q, before, tenancy.Int(b.Priority.Value))
		}
		d.quotas(oc, q, &was, &b)
	}
}

// missingQueueName reports a queue block that names no queue of its object
// and gives no name for a new one: with a "did you mean" when the object's
// name is near one of the snapshot's (an object that is not there has no
// queue), or the label is a queue's name or near a node pool's.
func (d *differ) missingQueueName(oc *objectChanges, existing []tenancy.Queue, b Queue) {
	if !oc.exists {
		if msg, near := d.notInSnapshot(oc.addr.Kind, oc.addr.Name); near {
			if !oc.unknown {
				oc.unknown = true
				d.errorf(oc.def, "Unknown "+oc.addr.Kind.Info().Word, "%s A new %s's queue needs name = \"<queue name>\".", msg, oc.addr.Kind.Info().Word)
			}
			return
		}
	}
	switch hint := d.queueLabelHint(b.Pool, existing); {
	case strings.HasPrefix(hint, "queue "):
		d.errorf(b.DefRange, "Queue label is a queue name", "%s", hint)
	case strings.HasSuffix(hint, "?"):
		d.errorf(b.DefRange, "Unknown node pool", "%s (The label of a queue block is its node pool.)", hint)
	case hint != "":
		d.errorf(b.DefRange, "Unknown node pool", "%s: the label of a queue block is its node pool.", hint)
	default:
		d.errorf(b.DefRange, "Missing queue name", "%s %q has no queue on node pool %q: a new queue needs name = \"<queue name>\".",
			oc.addr.Kind, oc.addr.Name, b.Pool)
	}
}

// quotas adds the changes of a queue block's gpu, cpu and memory.
func (d *differ) quotas(oc *objectChanges, q *queueChanges, was *tenancy.Queue, b *Queue) {
	for _, r := range quota.Resources {
		rb := b.Resource(r)
		if rb == nil && !q.isNew {
			continue
		}
		for _, f := range tenancy.QuotaFields {
			a := q.addr.Field(tenancy.QuotaFieldOf(r, f))
			var after quota.Value
			switch n := rb.Field(f); {
			case n != nil:
				after = n.Value
				d.mark(a, n.Range)
			case q.isNew:
				after = newQueueDefault(r, f)
			default:
				continue
			}
			d.add(oc, a, q, tenancy.NumberOf(was.Resources.Get(r).Get(f)), tenancy.Number(after))
		}
	}
}

// newQueueDefault is what krmplan writes for a field a new queue's HCL
// leaves out, so that every new queue states all three resources: KRM
// would read an omitted limit as a ceiling of zero. gpu deserved is 0, the
// other deserved and limits -1 (no bound), overQuotaWeight 1.
func newQueueDefault(r quota.Resource, f tenancy.QuotaField) quota.Value {
	switch {
	case f == tenancy.OverQuotaWeight:
		return quota.FromInt(1)
	case f == tenancy.Deserved && r == quota.GPU:
		return quota.Zero
	}
	return quota.Unlimited
}
