package config

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
)

func val(s string) *quota.Value {
	v := quota.MustParse(s)
	return &v
}

// changesTenancy is a pool, a department and a project with one queue
// each, the project's without cpu and memory.
var changesTenancy = tenancy.Tenancy{
	NodePools: []tenancy.NodePool{{Metadata: tenancy.Meta{Name: "rtx"}, Spec: tenancy.NodePoolSpec{LabelKey: "gpu", LabelValue: "rtx"}}},
	Departments: []tenancy.Department{{Metadata: tenancy.Meta{Name: "ml"}, Spec: tenancy.DepartmentSpec{Queues: []tenancy.Queue{
		{Name: "ml-rtx", NodePool: "rtx", Resources: tenancy.Resources{GPU: &tenancy.Resource{Deserved: val("4"), Limit: val("-1")}}}}}}},
	Projects: []tenancy.Project{{Metadata: tenancy.Meta{Name: "p"}, Spec: tenancy.ProjectSpec{Parent: "ml", Queues: []tenancy.Queue{
		{Name: "p-rtx", NodePool: "rtx", Resources: tenancy.Resources{GPU: &tenancy.Resource{Deserved: val("3")}}}}}}},
}

// The changes come by kind and name, object fields before queues, in
// field order; a new queue states every field (newQueueDefault); a value
// set to what the tenancy holds is no change, but its range is kept.
func TestChangesOrderAndDefaults(t *testing.T) {
	src := `project "p" {
  namespace = "p-ns"
  queue "l4" {
    name = "p-l4"
    gpu = { deserved = 1 }
  }
  queue "rtx" {
    gpu = { deserved = 2, limit = 3 }
  }
}
department "ml" {
  queue "rtx" {
    gpu = { deserved = 4 }
  }
}
node_pool "l4" {
  label_key   = "gpu"
  label_value = "l4"
}
`
	ov, diags := Load("d.hcl", []byte(src), nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	changes, set, diags := ov.Changes(tenancy.NewIndex(&changesTenancy), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var got []string
	for _, c := range changes {
		line := fmt.Sprintf("%s %s %s -> %s", c.Action, c.Field, c.Before, c.After)
		if c.NewQueue {
			line += " (new queue " + c.Queue + ")"
		}
		got = append(got, line)
	}
	want := []string{
		`create NodePool/l4 labelKey null -> "gpu"`,
		`create NodePool/l4 labelValue null -> "l4"`,
		`update Project/p namespace null -> "p-ns"`,
		`update Project/p queue 0 gpu.deserved 3 -> 2`,
		`update Project/p queue 0 gpu.limit null -> 3`,
		`create Project/p queue 1 name null -> "p-l4" (new queue p-l4)`,
		`create Project/p queue 1 nodepool null -> "l4" (new queue p-l4)`,
		`create Project/p queue 1 gpu.deserved null -> 1 (new queue p-l4)`,
		`create Project/p queue 1 gpu.limit null -> -1 (new queue p-l4)`,
		`create Project/p queue 1 gpu.overQuotaWeight null -> 1 (new queue p-l4)`,
		`create Project/p queue 1 cpu.deserved null -> -1 (new queue p-l4)`,
		`create Project/p queue 1 cpu.limit null -> -1 (new queue p-l4)`,
		`create Project/p queue 1 cpu.overQuotaWeight null -> 1 (new queue p-l4)`,
		`create Project/p queue 1 memory.deserved null -> -1 (new queue p-l4)`,
		`create Project/p queue 1 memory.limit null -> -1 (new queue p-l4)`,
		`create Project/p queue 1 memory.overQuotaWeight null -> 1 (new queue p-l4)`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes:\n got %q\nwant %q", got, want)
	}
	unchanged := tenancy.KindDepartment.Object("ml").Queue(0).Field(tenancy.QuotaFieldOf(quota.GPU, tenancy.Deserved))
	if loc, ok := set[unchanged]; !ok || loc.Line != 13 || !loc.Desired {
		t.Errorf("the range of a value set as it is: %+v %v", loc, ok)
	}
	if c := changes[3]; c.Source == nil || c.Source.Line != 8 || c.Queue != "p-rtx" || c.Pool != "rtx" {
		t.Errorf("gpu.deserved of p-rtx: %+v", c)
	}
	if _, err := tenancy.Apply(&changesTenancy, changes); err != nil {
		t.Errorf("the changes do not apply: %v", err)
	}
}

// An Overlay made in a program may name a pool twice; desired.hcl cannot.
func TestChangesRefuseTwoBlocksOnOnePool(t *testing.T) {
	ov := &Overlay{Projects: []Project{{Name: "p", Queues: []Queue{{Pool: "rtx"}, {Pool: "rtx"}}}}}
	_, _, diags := ov.Changes(tenancy.NewIndex(&changesTenancy), nil)
	if len(diags) != 1 || diags[0].Summary != `Duplicate queue "rtx"` ||
		diags[0].Detail != `The project "p" has two queue blocks on node pool "rtx"; an object has at most one queue per pool.` {
		t.Errorf("diagnostics: %v", diags)
	}
}

// A name desired.hcl gives that the snapshot lacks, where a new object or
// queue needs more than the block gives, is answered with the snapshot's
// nearest name; a queue label that is a queue's name says the label is the
// node pool, and which pool that queue is on.
func TestChangesSuggestNames(t *testing.T) {
	tn := changesTenancy
	tn.NodePools = append(tn.NodePools, tenancy.NodePool{Metadata: tenancy.Meta{Name: "h200"}, Spec: tenancy.NodePoolSpec{LabelKey: "gpu", LabelValue: "h200"}})
	tn.Projects = append(tn.Projects, tenancy.Project{Metadata: tenancy.Meta{Name: "pretraining"}, Spec: tenancy.ProjectSpec{Parent: "ml", Queues: []tenancy.Queue{
		{Name: "pretraining-h200", NodePool: "h200"}}}})
	for _, c := range []struct{ src, summary, detail string }{
		{`project "pretrainig" {
  queue "h200" {
    gpu { deserved = 1 }
  }
}`, "Unknown project", `project "pretrainig" is not in the snapshot — did you mean "pretraining"? A new project needs department = "<name>".`},
		{`project "pretraining" {
  queue "pretraining-h200" {
    gpu { deserved = 1 }
  }
}`, "Queue label is a queue name", `queue "pretraining-h200": the label is the node pool: did you mean queue "h200"?`},
		{`project "p" {
  queue "pretraining-h200" {
    gpu { deserved = 1 }
  }
}`, "Queue label is a queue name", `queue "pretraining-h200": the label is the node pool: "pretraining-h200" is the queue of project pretraining on node pool "h200"`},
		{`department "mll" {
  queue "rtx" {
    gpu { deserved = 1 }
  }
}`, "Unknown department", `department "mll" is not in the snapshot — did you mean "ml"? A new department's queue needs name = "<queue name>".`},
		{`department "ml" {
  queue "h20" {
    gpu { deserved = 1 }
  }
}`, "Unknown node pool", `node pool "h20" does not exist — did you mean "h200"? (The label of a queue block is its node pool.)`},
		{`department "ml" {
  queue "a100" {
    gpu { deserved = 1 }
  }
}`, "Unknown node pool", `node pool "a100" does not exist: the label of a queue block is its node pool.`},
		{`department "ml" {
  queue "h200" {
    gpu { deserved = 1 }
  }
}`, "Missing queue name", `Department "ml" has no queue on node pool "h200": a new queue needs name = "<queue name>".`},
		{`node_pool "h20" {}`, "Unknown node pool", `node pool "h20" is not in the snapshot — did you mean "h200"? A new node pool needs label_key and label_value.`},
		{`project "research" {}`, "Missing department", `project "research" is not in the snapshot: a new project needs department = "<name>", or department = "" for a root project (no department: its queues are root queues beside the departments).`},
	} {
		ov, diags := Load("d.hcl", []byte(c.src), nil, nil)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		_, _, diags = ov.Changes(tenancy.NewIndex(&tn), nil)
		if len(diags) != 1 || diags[0].Summary != c.summary || diags[0].Detail != c.detail {
			t.Errorf("%s\n got %v\nwant %s: %s", c.src, diags, c.summary, c.detail)
		}
	}
}
