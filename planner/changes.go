package planner

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// Change actions, as in Terraform's grammar: "+" create, "~" update.
const (
	ActionCreate = "create"
	ActionUpdate = "update"
)

// Change is one field that the plan sets to a new value.
type Change struct {
	// Action is "create" for a field of a new object or of a new queue,
	// "update" for a field of an existing queue or object.
	Action string `json:"action"`
	Kind   string `json:"kind"`   // NodePool, Department or Project
	Object string `json:"object"` // metadata.name
	// Queue and Pool name the queue the field belongs to (empty for an
	// object-level field such as a project's parent). QueueIndex is its
	// index in spec.queues, -1 when Queue is empty.
	Queue      string `json:"queue,omitempty"`
	Pool       string `json:"pool,omitempty"`
	QueueIndex int    `json:"queue_index"`
	// NewQueue marks a field of a queue that this plan appends to an
	// existing object (a queue of a new object is part of its creation).
	NewQueue bool `json:"new_queue,omitempty"`
	// File is the tenancy file desired.hcl names (file = "...") for a new
	// object; set on every change of that object, empty otherwise.
	File string `json:"file,omitempty"`
	// Field is the field's short name: "gpu.deserved", "cpu.limit",
	// "memory.overQuotaWeight", "priority", "name", "nodepool", "parent",
	// "namespace", "defaultNodePools", "labelKey", "labelValue".
	Field string `json:"field"`
	// Path is the JSON pointer of the value inside the object.
	Path string `json:"path"`
	// Before and After are JSON values; Before is null when the field is
	// absent (omitted in the source, or a new object).
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
	// Source is where desired.hcl sets the value, when it does.
	Source *Location `json:"source,omitempty"`
	// Resource is the quota resource of a quota field. Shrinks is set on a
	// deserved or limit that falls (-1 is +∞, an omitted bound is 0): such
	// changes are applied before the growing ones.
	Resource string `json:"resource,omitempty"`
	Shrinks  bool   `json:"shrinks,omitempty"`
}

var null = json.RawMessage("null")

func jsonValue(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // strings, lists and numbers only
	}
	return b
}

func numJSON(v *quota.Value) json.RawMessage {
	if v == nil {
		return null
	}
	return json.RawMessage(v.String())
}

func strJSON(s string, present bool) json.RawMessage {
	if !present {
		return null
	}
	return jsonValue(s)
}

// diffStates lists every field that differs between before and target, in
// object order (node pools, departments, projects, each by name) and field
// order. set maps valueKey to the desired.hcl range that set the value.
func diffStates(before, target *snapshot.State, set map[string]Location) []Change {
	d := differ{set: set}
	old := map[string]tenancy.NodePool{}
	for _, p := range before.NodePools {
		old[p.Metadata.Name] = p
	}
	for _, p := range target.NodePools {
		b, ok := old[p.Metadata.Name]
		d.obj(KindNodePool, p.Metadata.Name, ok)
		d.str("labelKey", "/spec/labelKey", b.Spec.LabelKey, p.Spec.LabelKey, ok, true)
		d.str("labelValue", "/spec/labelValue", b.Spec.LabelValue, p.Spec.LabelValue, ok, true)
	}
	oldD := map[string]*tenancy.Department{}
	for i := range before.Departments {
		oldD[before.Departments[i].Metadata.Name] = &before.Departments[i]
	}
	for _, t := range target.Departments {
		b := oldD[t.Metadata.Name]
		d.obj(KindDepartment, t.Metadata.Name, b != nil)
		var bq []tenancy.Queue
		if b != nil {
			bq = b.Spec.Queues
		}
		d.queues(bq, t.Spec.Queues)
	}
	oldP := map[string]*tenancy.Project{}
	for i := range before.Projects {
		oldP[before.Projects[i].Metadata.Name] = &before.Projects[i]
	}
	for _, t := range target.Projects {
		b := oldP[t.Metadata.Name]
		d.obj(KindProject, t.Metadata.Name, b != nil)
		var bs tenancy.ProjectSpec
		if b != nil {
			bs = b.Spec
		}
		d.str("parent", "/spec/parent", bs.Parent, t.Spec.Parent, b != nil, true)
		d.str("namespace", "/spec/namespace", bs.Namespace, t.Spec.Namespace, b != nil && bs.Namespace != "", t.Spec.Namespace != "")
		if b == nil || !slices.Equal(bs.DefaultNodePools, t.Spec.DefaultNodePools) {
			before := null
			if b != nil && bs.DefaultNodePools != nil {
				before = jsonValue(bs.DefaultNodePools)
			}
			if t.Spec.DefaultNodePools != nil {
				d.add("defaultNodePools", "/spec/defaultNodePools", before, jsonValue(t.Spec.DefaultNodePools))
			}
		}
		d.queues(bs.Queues, t.Spec.Queues)
	}
	return d.out
}

type differ struct {
	set    map[string]Location
	out    []Change
	kind   string
	name   string
	exists bool
	queue  *tenancy.Queue
	qi     int
	qIsNew bool
}

func (d *differ) obj(kind, name string, exists bool) {
	d.kind, d.name, d.exists, d.queue, d.qi, d.qIsNew = kind, name, exists, nil, -1, false
}

func (d *differ) add(field, path string, before, after json.RawMessage) {
	c := Change{Action: ActionUpdate, Kind: d.kind, Object: d.name, QueueIndex: d.qi, Field: field, Path: path, Before: before, After: after}
	if !d.exists || d.qIsNew {
		c.Action = ActionCreate
	}
	if d.queue != nil {
		c.Queue, c.Pool, c.NewQueue = d.queue.Name, d.queue.NodePool, d.qIsNew
	}
	if loc, ok := d.set[valueKey(d.kind, d.name, path)]; ok {
		c.Source = &loc
	}
	d.out = append(d.out, c)
}

// str records a string field; present flags whether it exists on each side.
func (d *differ) str(field, path, before, after string, beforePresent, afterPresent bool) {
	if beforePresent == afterPresent && before == after {
		return
	}
	if !afterPresent {
		return // the overlay never deletes
	}
	d.add(field, path, strJSON(before, beforePresent), strJSON(after, afterPresent))
}

func (d *differ) queues(before, after []tenancy.Queue) {
	for i := range after {
		t := &after[i]
		var b *tenancy.Queue
		if i < len(before) {
			b = &before[i]
		}
		// A queue of a new object is created with it: only a queue appended
		// to an existing object is "new" (an add /spec/queues/- patch).
		d.queue, d.qi, d.qIsNew = t, i, b == nil && d.exists
		var bq tenancy.Queue
		if b != nil {
			bq = *b
		}
		p := queuePath(i)
		d.str("name", p+"/name", bq.Name, t.Name, b != nil, true)
		d.str("nodepool", p+"/nodepool", bq.NodePool, t.NodePool, b != nil, true)
		if !equalPriority(bq.Priority, t.Priority) && t.Priority != nil {
			before := null
			if b != nil && bq.Priority != nil {
				before = json.RawMessage(strconv.Itoa(int(*bq.Priority)))
			}
			d.add("priority", p+"/priority", before, json.RawMessage(strconv.Itoa(int(*t.Priority))))
		}
		for _, r := range quota.Resources {
			tr := t.Resources.Get(r)
			if tr == nil {
				continue
			}
			br := bq.Resources.Get(r)
			for _, f := range tenancy.QuotaFields {
				tv := *tr.Slot(f)
				var bv *quota.Value
				if br != nil {
					bv = *br.Slot(f)
				}
				if tv == nil || (bv != nil && bv.Equal(*tv)) {
					continue
				}
				d.add(string(r)+"."+f.String(), resourcePath(i, r, f), numJSON(bv), numJSON(tv))
				c := &d.out[len(d.out)-1]
				c.Resource = string(r)
				if f != tenancy.OverQuotaWeight {
					old := quota.Zero // KRM reads an omitted bound as 0
					if bv != nil {
						old = *bv
					}
					c.Shrinks = tv.Cmp(old) < 0
				}
			}
		}
	}
}

func equalPriority(a, b *int32) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
