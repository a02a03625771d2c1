package config

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
)

// Moved is a `moved { from = "a" to = "b" }` block: the rename of project
// a to b. KRM cannot rename a Project, so the plan creates b with a's
// spec — spec.namespace set to a's namespace, so that the namespace and
// its workloads carry over — and then removes a (krm-facts 2).
type Moved struct {
	From, To Str
	// Force lets the plan remove a while workloads are charged to its
	// queues, as a removed block's force does.
	Force    bool
	DefRange hcl.Range // `moved`
}

var movedSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "from", Required: true}, {Name: "to", Required: true}, {Name: "force"}},
}

// moved decodes a moved block; ok is false after an error.
func (d *decoder) moved(b *hcl.Block) (Moved, bool) {
	m := Moved{DefRange: b.DefRange}
	content, diags := b.Body.Content(movedSchema)
	d.add(diags)
	if diags.HasErrors() {
		return m, false
	}
	from, to := d.str(content.Attributes, "from", false), d.str(content.Attributes, "to", false)
	if from == nil || to == nil {
		return m, false // reported
	}
	m.From, m.To = *from, *to
	if m.From.Value == m.To.Value {
		d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid moved block",
			Detail: fmt.Sprintf("from and to are both %q: a moved block renames a project to another name.", m.From.Value), Subject: m.To.Range.Ptr()})
		return m, false
	}
	if attr, set := content.Attributes["force"]; set {
		v, ok := d.eval(attr.Expr)
		if !ok {
			return m, false
		}
		if !v.IsWhollyKnown() || v.IsNull() || v.Type() != cty.Bool {
			d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid value for force",
				Detail: "force is true or false.", Subject: attr.Expr.Range().Ptr()})
			return m, false
		}
		m.Force = v.True()
	}
	return m, true
}

// moves adds the changes of the overlay's moved blocks: the creation of
// each new project, with the old one's parent, namespace, defaultNodePools
// and queues, and the old one's removal (marked MovedTo, so the planner
// orders it after the creation). The old project must be in the snapshot,
// the new one not, and neither may be set by a project block or removed by
// a removed block. Its queues must all have derived names (name = ""):
// while the old project exists its Queues hold their names, so KRM would
// give the new project's explicitly named queues a random suffix, kept for
// good (krm-facts 3); derived names follow the owner's and are free.
func (d *differ) moves(o *Overlay) {
	seen := map[string]hcl.Range{}
	for i := range o.Moved {
		m := &o.Moved[i]
		if !d.moveAllowed(o, m, seen) {
			continue
		}
		old := d.x.Project(m.From.Value)
		d.project(movedProject(m, old, d.x.Tenancy().KRMConfig))
		d.keepOmitted(tenancy.KindProject.Object(m.To.Value), old.Spec.Queues)
		r := &Removed{Kind: tenancy.KindProject, Name: m.From, Force: m.Force, DefRange: m.DefRange}
		c := tenancy.DestroyObject(tenancy.KindProject.Object(m.From.Value))
		c.MovedTo = m.To.Value
		d.destroy(c.Object(), c, r)
	}
}

// moveAllowed reports whether the moved block m can be planned, after an
// error saying why not; seen are the projects earlier blocks name.
func (d *differ) moveAllowed(o *Overlay, m *Moved, seen map[string]hcl.Range) bool {
	for _, s := range []Str{m.From, m.To} {
		if prev, dup := seen[s.Value]; dup {
			d.errorf(s.Range, "Project moved twice", "project %q is already named by the moved block on line %d: move a project once per plan.", s.Value, prev.Start.Line)
			return false
		}
	}
	seen[m.From.Value], seen[m.To.Value] = m.DefRange, m.DefRange
	old := d.x.Project(m.From.Value)
	if old == nil {
		d.errorf(m.From.Range, "Nothing to move", "The snapshot has no project %q: there is nothing to move.", m.From.Value)
		return false
	}
	if d.x.Project(m.To.Value) != nil {
		d.errorf(m.To.Range, "Project already exists", "project %q is already in the snapshot: a moved block renames a project to a new name.", m.To.Value)
		return false
	}
	for _, p := range o.Projects {
		if p.Name == m.From.Value || p.Name == m.To.Value {
			d.errorf(p.DefRange, "Moved project is also set", "project %q is named by the moved block on line %d: rename it in this plan and change its values in the next.", p.Name, m.DefRange.Start.Line)
			return false
		}
	}
	for _, r := range o.Removed {
		if r.Kind == tenancy.KindProject && (r.Name.Value == m.From.Value || r.Name.Value == m.To.Value) {
			d.errorf(r.DefRange, "Moved project is also removed", "project %q is named by the moved block on line %d: remove one of the two.", r.Name.Value, m.DefRange.Start.Line)
			return false
		}
	}
	for _, q := range old.Spec.Queues {
		if q.Name != "" {
			d.errorf(m.DefRange, "Moved project has a named queue",
				"project %q names its queue on node pool %q %q. KRM cannot rename a project: the plan creates %q before it removes %q, and while %q exists its Queue keeps that name, so KRM would name %q's queue %q plus \"-\" and 4 random characters, for good. Rename it in two plans instead: remove %q (a removed block), and once its Queues are gone create %q with the same queue names.",
				m.From.Value, q.NodePool, q.Name, m.To.Value, m.From.Value, m.From.Value, m.To.Value, q.Name, m.From.Value, m.To.Value)
			return false
		}
	}
	return true
}

// movedProject is the project block that creates m's new project with the
// spec of old: every value set at the moved block, the namespace explicit
// (old's, by the KRMConfig's prefix when old has no spec.namespace), the
// queues with derived names. A quota field old's queue omits stays omitted
// (keepOmitted drops the default a new queue would get).
func movedProject(m *Moved, old *tenancy.Project, krm *tenancy.KRMConfig) Project {
	at := m.DefRange
	p := Project{Name: m.To.Value, DefRange: at,
		Department: &Str{Value: old.Spec.Parent, Range: at},
		Namespace:  &Str{Value: old.NamespaceName(krm.NamePrefix()), Range: at}}
	if old.Spec.DefaultNodePools != nil {
		p.DefaultNodePools = &StrList{Values: old.Spec.DefaultNodePools, Range: at}
	}
	for _, q := range old.Spec.Queues {
		b := Queue{Pool: q.NodePool, DefRange: at, Name: &Str{Value: "", Range: at}}
		if q.Priority != nil {
			b.Priority = &Int{Value: *q.Priority, Range: at}
		}
		for _, r := range quota.Resources {
			if was := q.Resources.Get(r); was != nil {
				*resourceSlot(&b, r) = movedResource(was, at)
			}
		}
		p.Queues = append(p.Queues, b)
	}
	return p
}

// keepOmitted drops the changes of object a's new queues that set a
// quota field the old queues (of the same index) omit: the new project
// states what the old one did, omitted values included, as KRM read them.
func (d *differ) keepOmitted(a tenancy.ObjectAddr, old []tenancy.Queue) {
	oc := d.byObject[a]
	if oc == nil {
		return
	}
	oc.changes = slices.DeleteFunc(oc.changes, func(c tenancy.Change) bool {
		r, f, ok := c.Field.Field.Quota()
		return ok && c.Field.Queue >= 0 && c.Field.Queue < len(old) && old[c.Field.Queue].Resources.Get(r).Get(f) == nil
	})
}

// movedResource is a resource block setting what was sets, at the range at.
func movedResource(was *tenancy.Resource, at hcl.Range) *Resource {
	res := &Resource{Range: at}
	for _, f := range tenancy.QuotaFields {
		v := was.Get(f)
		if v == nil {
			continue
		}
		n := &Num{Value: *v, Range: at}
		switch f {
		case tenancy.Deserved:
			res.Deserved = n
		case tenancy.Limit:
			res.Limit = n
		default:
			res.OverQuotaWeight = n
		}
	}
	return res
}

// resourceSlot is where q keeps resource r.
func resourceSlot(q *Queue, r quota.Resource) **Resource {
	switch r {
	case quota.GPU:
		return &q.GPU
	case quota.CPU:
		return &q.CPU
	}
	return &q.Memory
}
