package config

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/krmplan/krmplan/internal/nearname"
	"github.com/krmplan/krmplan/tenancy"
)

// Removed is a `removed { … }` block: the removal of a node pool, a
// department or a project, or of one queue entry of a department or a
// project (`removed { department = "x" queue = "h100" }`, the queue
// named by its node pool, as a queue block is). Nothing else removes.
type Removed struct {
	// Kind and Name are the object: the block's one node_pool, department
	// or project attribute.
	Kind tenancy.Kind
	Name Str
	// Queue is the node pool of the queue entry removed; nil removes the
	// whole object.
	Queue *Str
	// Force lets the plan remove something in use (queues with workloads
	// charged to them); without it such a removal is an error finding.
	Force    bool
	DefRange hcl.Range // `removed`
}

var removedSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "node_pool"}, {Name: "department"}, {Name: "project"}, {Name: "queue"}, {Name: "force"}},
}

// removedKinds are the attributes that name a removed block's object.
var removedKinds = []struct {
	attr string
	kind tenancy.Kind
}{{"node_pool", tenancy.KindNodePool}, {"department", tenancy.KindDepartment}, {"project", tenancy.KindProject}}

// removed decodes a removed block; ok is false after an error.
func (d *decoder) removed(b *hcl.Block) (Removed, bool) {
	r := Removed{DefRange: b.DefRange}
	content, diags := b.Body.Content(removedSchema)
	d.add(diags)
	if diags.HasErrors() {
		return r, false
	}
	var named []string
	for _, k := range removedKinds {
		if s := d.str(content.Attributes, k.attr, false); s != nil {
			r.Kind, r.Name = k.kind, *s
			named = append(named, k.attr)
		} else if _, set := content.Attributes[k.attr]; set {
			return r, false // reported
		}
	}
	if len(named) != 1 {
		d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid removed block",
			Detail:  fmt.Sprintf("A removed block names exactly one object: node_pool, department or project (this one names %d).", len(named)),
			Subject: b.DefRange.Ptr()})
		return r, false
	}
	if _, set := content.Attributes["queue"]; set {
		if r.Queue = d.str(content.Attributes, "queue", false); r.Queue == nil {
			return r, false
		}
		if r.Kind == tenancy.KindNodePool {
			d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid removed block",
				Detail: "A node pool has no queues: queue = \"<pool>\" removes a queue entry of a department or a project.", Subject: r.Queue.Range.Ptr()})
			return r, false
		}
	}
	if attr, set := content.Attributes["force"]; set {
		v, ok := d.eval(attr.Expr)
		if !ok {
			return r, false
		}
		if !v.IsWhollyKnown() || v.IsNull() || v.Type() != cty.Bool {
			d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid value for force",
				Detail: "force is true or false.", Subject: attr.Expr.Range().Ptr()})
			return r, false
		}
		r.Force = v.True()
	}
	return r, true
}

// what names the removal for messages: `project "legacy"`, `queue "h100"
// of department "x"`.
func (r *Removed) what() string {
	obj := fmt.Sprintf("%s %q", r.Kind.Info().Word, r.Name.Value)
	if r.Queue == nil {
		return obj
	}
	return fmt.Sprintf("the queue on node pool %q of %s", r.Queue.Value, obj)
}

// removals adds the destroy changes of the overlay's removed blocks, after
// every other change. A removal must find its object or queue in the
// tenancy, must not be of an object or queue a block of the overlay also
// sets, and an object that loses a queue may get no other change of its
// queues in the same plan (the queues after a removed one move up, so
// their indices would name other queues: plan the removal first, the
// other changes next). The default node pool cannot be removed (KRM's
// webhook refuses it).
func (d *differ) removals(o *Overlay) {
	seen := map[tenancy.ObjectAddr]hcl.Range{}
	seenQueue := map[string]hcl.Range{}
	for i := range o.Removed {
		r := &o.Removed[i]
		a := r.Kind.Object(r.Name.Value)
		key := a.String()
		if r.Queue != nil {
			key += " " + r.Queue.Value
		}
		if prev, dup := seenQueue[key]; dup {
			d.errorf(r.DefRange, "Duplicate removed block", "%s is already removed on line %d.", r.what(), prev.Start.Line)
			continue
		}
		seenQueue[key] = r.DefRange
		if !d.x.Has(a) {
			d.errorf(r.Name.Range, "Nothing to remove", "The snapshot has no %s %q: there is nothing to remove%s", r.Kind.Info().Word, r.Name.Value,
				hintEnd(nearname.DidYouMean(r.Name.Value, d.x.Names(r.Kind))))
			continue
		}
		if oc := d.byObject[a]; oc != nil && r.Queue == nil {
			d.errorf(r.DefRange, "Removed object is also set", "%s is removed, but a %s block sets it too: remove one of the two.", r.what(), r.Kind.Info().Word)
			continue
		}
		if r.Queue == nil {
			if a == tenancy.KindNodePool.Object("default") {
				d.errorf(r.Name.Range, "The default node pool cannot be removed", "KRM's node pool webhook refuses to delete the \"default\" pool: it is where every node of no other pool belongs.")
				continue
			}
			seen[a] = r.DefRange
			d.destroy(a, tenancy.DestroyObject(a), r)
			continue
		}
		d.removeQueue(a, r, seen)
	}
	for a, oc := range d.byObject {
		if _, gone := seen[a]; gone && slices.ContainsFunc(oc.changes, func(c tenancy.Change) bool { return c.Action != tenancy.ActionDestroy }) {
			d.errorf(seen[a], "Removed object is also set", "%s %q is removed, but a block sets it too: remove one of the two.", a.Kind.Info().Word, a.Name)
		}
	}
}

// removeQueue adds the removal of one queue entry of object a.
func (d *differ) removeQueue(a tenancy.ObjectAddr, r *Removed, seen map[tenancy.ObjectAddr]hcl.Range) {
	if prev, gone := seen[a]; gone {
		d.errorf(r.DefRange, "Queue of a removed object", "%s %q is removed whole on line %d: its queues go with it.", a.Kind.Info().Word, a.Name, prev.Start.Line)
		return
	}
	qs := d.x.Queues(a)
	idx := slices.IndexFunc(qs, func(q tenancy.Queue) bool { return q.NodePool == r.Queue.Value })
	if idx < 0 {
		d.errorf(r.Queue.Range, "Nothing to remove", "%s %q has no queue on node pool %q: there is nothing to remove%s", a.Kind.Info().Word, a.Name, r.Queue.Value,
			hintEnd(removedQueueHint(r.Queue.Value, a.Name, qs)))
		return
	}
	if oc := d.byObject[a]; oc != nil {
		for _, c := range oc.changes {
			if c.Field.Queue != tenancy.NoQueue && c.Action != tenancy.ActionDestroy {
				d.errorf(r.DefRange, "Queue removed beside other queue changes",
					"%s is removed, and this plan also changes the queue on node pool %q of the same %s: the queues after a removed one move up, so remove the queue in one plan and change the others in the next.",
					r.what(), c.Pool, a.Kind.Info().Word)
				return
			}
		}
	}
	d.destroy(a, tenancy.DestroyQueue(a.Queue(idx), qs[idx].Name, qs[idx].NodePool), r)
}

// destroy records the destroy change c of object a, set by the removed
// block r.
func (d *differ) destroy(a tenancy.ObjectAddr, c tenancy.Change, r *Removed) {
	oc := d.byObject[a]
	if oc == nil {
		oc = d.begin(a, true, r.DefRange)
	}
	loc := location(r.DefRange)
	c.Source, c.Force = &loc, r.Force
	d.mark(c.Field, r.DefRange)
	oc.changes = append(oc.changes, c)
}

// removedQueueHint is what a removed block's queue = "..." that names no
// queue of the object owner may have meant, from its queues qs: a queue's
// name, as KRM names its Queue (the queue is named by its node pool, as in
// a queue block: "did you mean queue = "h100"?"), or the nearest of its
// node pools; "" when neither fits.
func removedQueueHint(value, owner string, qs []tenancy.Queue) string {
	var pools []string
	for _, q := range qs {
		if q.KAIName(owner) == value {
			return fmt.Sprintf("%q is the name of its queue on node pool %q, and a queue is named by its node pool: did you mean queue = %q?", value, q.NodePool, q.NodePool)
		}
		pools = append(pools, q.NodePool)
	}
	return nearname.DidYouMean(value, pools)
}

// hintEnd ends a sentence: "; " and the hint, or "." without one.
func hintEnd(hint string) string {
	if hint == "" {
		return "."
	}
	return "; " + hint
}
