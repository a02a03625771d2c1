package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/krmplan/krmplan/internal/nearname"
	"github.com/krmplan/krmplan/quota"
)

var nodePoolSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "label_key"}, {Name: "label_value"}, {Name: "file"}},
}

var departmentSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "file"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "queue", LabelNames: []string{"pool"}}},
}

var projectSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "department"}, {Name: "namespace"}, {Name: "default_node_pools"}, {Name: "file"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "queue", LabelNames: []string{"pool"}}},
}

var queueSchema = func() *hcl.BodySchema {
	s := &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "name"}, {Name: "priority"}},
	}
	for _, r := range quota.Resources {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: string(r)})
		s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: string(r)})
	}
	return s
}()

// eval evaluates an attribute's expression; ok is false after an error,
// which is reported.
func (d *decoder) eval(expr hcl.Expression) (cty.Value, bool) {
	val, diags := d.ev.Value(expr, d.ctx, nil)
	d.add(diags)
	return val, !diags.HasErrors()
}

// str decodes an optional string attribute.
func (d *decoder) str(attrs hcl.Attributes, name string, allowEmpty bool) *Str {
	attr, ok := attrs[name]
	if !ok {
		return nil
	}
	val, ok := d.eval(attr.Expr)
	if !ok {
		return nil
	}
	return d.toStr(name, val, attr.Expr, d.ctx, attr.Range.Ptr(), allowEmpty)
}

func (d *decoder) nodePool(b *hcl.Block) (NodePool, bool) {
	np := NodePool{Name: b.Labels[0], DefRange: b.DefRange}
	ok := d.checkLabel("node_pool", b, false)
	content, diags := b.Body.Content(nodePoolSchema)
	d.add(diags)
	np.LabelKey = d.str(content.Attributes, "label_key", false)
	np.LabelValue = d.str(content.Attributes, "label_value", true)
	np.File = d.str(content.Attributes, "file", false)
	return np, ok
}

func (d *decoder) department(b *hcl.Block) (Department, bool) {
	dep := Department{Name: b.Labels[0], DefRange: b.DefRange}
	ok := d.checkLabel("department", b, false)
	content, diags := b.Body.Content(departmentSchema)
	d.add(diags)
	dep.File = d.str(content.Attributes, "file", false)
	dep.Queues = d.queues(content.Blocks, "department", dep.Name)
	return dep, ok
}

func (d *decoder) project(b *hcl.Block) (Project, bool) {
	p := Project{Name: b.Labels[0], DefRange: b.DefRange}
	ok := d.checkLabel("project", b, false)
	content, diags := b.Body.Content(projectSchema)
	d.add(diags)
	// department = "" is a root project: KRM's spec.parent "" (or absent),
	// whose queues are root queues beside the departments.
	p.Department = d.str(content.Attributes, "department", true)
	p.Namespace = d.str(content.Attributes, "namespace", false)
	p.File = d.str(content.Attributes, "file", false)
	if attr, found := content.Attributes["default_node_pools"]; found {
		if val, evalOK := d.eval(attr.Expr); evalOK {
			p.DefaultNodePools = d.toStrList("default_node_pools", val, attr.Expr, d.ctx, attr.Range.Ptr())
		}
	}
	p.Queues = d.queues(content.Blocks, "project", p.Name)
	return p, ok
}

// queues decodes the queue blocks of one object; one queue per pool.
func (d *decoder) queues(blocks hcl.Blocks, kind, owner string) []Queue {
	var out []Queue
	seen := map[string]hcl.Range{}
	for _, b := range blocks {
		q, ok := d.queue(b)
		if !ok {
			continue
		}
		if prev, dup := seen[q.Pool]; dup {
			d.diags = append(d.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  fmt.Sprintf("Duplicate queue %q", q.Pool),
				Detail: fmt.Sprintf("The %s %q already has a queue on node pool %q, defined on line %d (%s); an object has at most one queue per pool.",
					kind, owner, q.Pool, prev.Start.Line, prev),
				Subject: b.DefRange.Ptr(),
			})
			continue
		}
		seen[q.Pool] = b.DefRange
		out = append(out, q)
	}
	return out
}

func (d *decoder) queue(b *hcl.Block) (Queue, bool) {
	q := Queue{Pool: b.Labels[0], DefRange: b.DefRange}
	ok := d.checkLabel("queue", b, false)
	content, diags := b.Body.Content(queueSchema)
	d.add(diags)
	q.Name = d.str(content.Attributes, "name", false)
	if attr, found := content.Attributes["priority"]; found {
		if val, evalOK := d.eval(attr.Expr); evalOK {
			q.Priority = d.toInt("priority", val, attr.Expr, d.ctx, attr.Range.Ptr())
		}
	}

	// Each resource is set once, by a block or by an attribute: collect
	// both forms in source order so that the first one wins.
	type setting struct {
		res   quota.Resource
		rng   hcl.Range // the `gpu` word
		start int
		attr  *hcl.Attribute
		block *hcl.Block
	}
	var settings []setting
	for _, r := range quota.Resources {
		if attr, found := content.Attributes[string(r)]; found {
			settings = append(settings, setting{res: r, rng: attr.NameRange, start: attr.Range.Start.Byte, attr: attr})
		}
	}
	for _, blk := range content.Blocks {
		settings = append(settings, setting{res: quota.Resource(blk.Type), rng: blk.DefRange, start: blk.DefRange.Start.Byte, block: blk})
	}
	sort.SliceStable(settings, func(i, j int) bool { return settings[i].start < settings[j].start })
	first := map[quota.Resource]hcl.Range{}
	for _, s := range settings {
		var res *Resource
		if s.attr != nil {
			res = d.resourceAttr(s.res, s.attr)
		} else {
			res = d.resourceBlock(s.res, s.block)
		}
		if prev, dup := first[s.res]; dup {
			d.diags = append(d.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  fmt.Sprintf("Duplicate %s setting", s.res),
				Detail: fmt.Sprintf("The queue on pool %q already sets %s on line %d (%s); give %s once, as a block or as an attribute.",
					q.Pool, s.res, prev.Start.Line, prev, s.res),
				Subject: s.rng.Ptr(),
			})
			continue
		}
		first[s.res] = s.rng
		switch s.res {
		case quota.GPU:
			q.GPU = res
		case quota.CPU:
			q.CPU = res
		case quota.Memory:
			q.Memory = res
		}
	}
	return q, ok
}

// resourceBlock decodes `gpu { deserved = 2 }`.
func (d *decoder) resourceBlock(r quota.Resource, b *hcl.Block) *Resource {
	res := &Resource{Range: b.DefRange}
	attrs, diags := b.Body.JustAttributes()
	d.add(diags)
	for _, attr := range sortedAttrs(attrs) {
		val, ok := d.eval(attr.Expr)
		if !ok {
			// Still check the key, so that a typo is reported too.
			val = cty.DynamicVal
		}
		d.setKey(r, res, attr.Name, attr.NameRange, attr.Expr, val, attr.Range.Ptr(), nil, ok)
	}
	return res
}

// resourceAttr decodes `gpu = { deserved = 2, limit = 3 }`, or an
// expression that evaluates to such an object.
func (d *decoder) resourceAttr(r quota.Resource, attr *hcl.Attribute) *Resource {
	res := &Resource{Range: attr.NameRange}
	if pairs, diags := hcl.ExprMap(attr.Expr); !diags.HasErrors() {
		seen := map[string]hcl.Range{}
		for _, pair := range pairs {
			keyVal, ok := d.eval(pair.Key)
			if !ok {
				continue
			}
			if !keyVal.IsKnown() || keyVal.IsNull() || keyVal.Type() != cty.String {
				if keyVal.IsKnown() || !d.upstreamErr {
					d.diags = append(d.diags, &hcl.Diagnostic{
						Severity: hcl.DiagError,
						Summary:  "Invalid resource key",
						Detail:   fmt.Sprintf("A key of %s must be one of %s; this is %s.", r, strings.Join(ResourceKeys, ", "), describe(keyVal)),
						Subject:  pair.Key.Range().Ptr(),
						Context:  attr.Range.Ptr(),
					})
				}
				continue
			}
			val, ok := d.eval(pair.Value)
			if !ok {
				val = cty.DynamicVal
			}
			context := hcl.RangeBetween(pair.Key.Range(), pair.Value.Range())
			d.setKey(r, res, keyVal.AsString(), pair.Key.Range(), pair.Value, val, &context, seen, ok)
		}
		return res
	}

	val, ok := d.eval(attr.Expr)
	if !ok {
		return res
	}
	if !d.checkKnown(string(r), val, attr.Expr, d.ctx, attr.Range.Ptr(), "An object with deserved, limit and over_quota_weight") {
		return res
	}
	if !val.Type().IsObjectType() && !val.Type().IsMapType() {
		d.diags = append(d.diags, valueError(string(r), attr.Expr, d.ctx, attr.Range.Ptr(),
			fmt.Sprintf("An object with deserved, limit and over_quota_weight is required, but this is %s.", describe(val))))
		return res
	}
	for it := val.ElementIterator(); it.Next(); {
		k, v := it.Element()
		d.setKey(r, res, k.AsString(), attr.Expr.Range(), attr.Expr, v, attr.Range.Ptr(), nil, true)
	}
	return res
}

// setKey records one key of a resource. keyRange is where the key is
// written; expr is the expression of the value (its range becomes the
// Num's). seen, when not nil, catches a key given twice in one object.
// evalOK is false when the value failed to evaluate (reported already).
func (d *decoder) setKey(r quota.Resource, res *Resource, key string, keyRange hcl.Range, expr hcl.Expression, val cty.Value, context *hcl.Range, seen map[string]hcl.Range, evalOK bool) {
	var slot **Num
	switch key {
	case KeyDeserved:
		slot = &res.Deserved
	case KeyLimit:
		slot = &res.Limit
	case KeyOverQuotaWeight:
		slot = &res.OverQuotaWeight
	default:
		hint := ""
		if s := nearname.Nearest(key, ResourceKeys); s != "" {
			hint = fmt.Sprintf(" Did you mean %q?", s)
		}
		d.diags = append(d.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unsupported argument",
			Detail:   fmt.Sprintf("An argument named %q is not expected in %s; the keys are deserved, limit and over_quota_weight.%s", key, r, hint),
			Subject:  keyRange.Ptr(),
			Context:  context,
		})
		return
	}
	if seen != nil {
		if prev, dup := seen[key]; dup {
			d.diags = append(d.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Duplicate argument",
				Detail:   fmt.Sprintf("The argument %q of %s was already set on line %d (%s).", key, r, prev.Start.Line, prev),
				Subject:  keyRange.Ptr(),
				Context:  context,
			})
			return
		}
		seen[key] = keyRange
	}
	if !evalOK {
		return
	}
	*slot = d.toNum(key, val, expr, d.ctx, context)
}
