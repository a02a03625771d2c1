package config

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/krmplan/krmplan/tenancy"
)

// removedTenancy is changesTenancy with a second queue on the project and
// a pool "l4" on it.
func removedTenancy() *tenancy.Index {
	t, _ := tenancy.Apply(&changesTenancy, nil)
	p := &t.Projects[0]
	p.Spec.Queues = append(tenancy.CloneQueues(p.Spec.Queues), tenancy.Queue{Name: "p-l4", NodePool: "l4"})
	t.NodePools = append(t.NodePools, tenancy.NodePool{Metadata: tenancy.Meta{Name: "l4"}, Spec: tenancy.NodePoolSpec{LabelKey: "gpu", LabelValue: "l4"}})
	return tenancy.NewIndex(t)
}

// The removals come after the other changes of their object, the queues
// from the highest index down, each with its removed block's range and
// force.
func TestRemovedChanges(t *testing.T) {
	src := `removed { node_pool = "l4" }
removed {
  project = "p"
  queue   = "rtx"
}
removed {
  project = "p"
  queue   = "l4"
  force   = true
}
project "p" {
  namespace = "p-ns"
}
`
	ov, diags := Load("d.hcl", []byte(src), nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	changes, _, diags := ov.Changes(removedTenancy(), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var got []string
	for _, c := range changes {
		line := c.Action.String() + " " + c.Field.String() + " " + c.Before.String() + " -> " + c.After.String()
		if c.Force {
			line += " force"
		}
		if c.Source != nil {
			line += " @" + strconv.Itoa(c.Source.Line)
		}
		got = append(got, line)
	}
	want := []string{
		`destroy NodePool/l4 metadata.name "l4" -> null @1`,
		`update Project/p namespace null -> "p-ns" @12`,
		`destroy Project/p queue 1 name "p-l4" -> null force @6`,
		`destroy Project/p queue 0 name "p-rtx" -> null @2`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A removed block that cannot be planned is an error under its range.
func TestRemovedRefused(t *testing.T) {
	cases := []struct{ src, want string }{
		{`removed {}`, "d.hcl:1,1-8: Invalid removed block; A removed block names exactly one object: node_pool, department or project (this one names 0)."},
		{"removed {\n project = \"p\"\n department = \"ml\"\n}", "d.hcl:1,1-8: Invalid removed block; A removed block names exactly one object: node_pool, department or project (this one names 2)."},
		{"removed {\n node_pool = \"l4\"\n queue = \"x\"\n}", `d.hcl:3,10-13: Invalid removed block; A node pool has no queues: queue = "<pool>" removes a queue entry of a department or a project.`},
		{"removed {\n project = \"p\"\n force = \"yes\"\n}", "d.hcl:3,10-15: Invalid value for force; force is true or false."},
		{"removed {\n project = \"p\"\n nmae = \"x\"\n}", `d.hcl:3,2-6: Unsupported argument; An argument named "nmae" is not expected here.`},
		{`removed { project = "zz" }`, `d.hcl:1,21-25: Nothing to remove; The snapshot has no project "zz": there is nothing to remove.`},
		{"removed {\n project = \"p\"\n queue = \"a100\"\n}", `d.hcl:3,10-16: Nothing to remove; project "p" has no queue on node pool "a100": there is nothing to remove.`},
		{`removed { node_pool = "default" }`, `d.hcl:1,23-32: Nothing to remove; The snapshot has no node pool "default": there is nothing to remove.`},
		// A name near one of the snapshot's, and a queue's name where its
		// node pool belongs, get the "did you mean" of the other blocks.
		{`removed { department = "ML" }`, `d.hcl:1,24-28: Nothing to remove; The snapshot has no department "ML": there is nothing to remove; did you mean "ml"?`},
		{"removed {\n project = \"p\"\n queue = \"p-rtx\"\n}", `d.hcl:3,10-17: Nothing to remove; project "p" has no queue on node pool "p-rtx": there is nothing to remove; "p-rtx" is the name of its queue on node pool "rtx", and a queue is named by its node pool: did you mean queue = "rtx"?`},
		{"removed {\n project = \"p\"\n queue = \"rtxx\"\n}", `d.hcl:3,10-16: Nothing to remove; project "p" has no queue on node pool "rtxx": there is nothing to remove; did you mean "rtx"?`},
		{"removed { project = \"p\" }\nproject \"p\" {\n namespace = \"x\"\n}", `d.hcl:1,1-8: Removed object is also set; project "p" is removed, but a project block sets it too: remove one of the two.`},
		{"removed { project = \"p\" }\nremoved {\n project = \"p\"\n queue = \"rtx\"\n}", `d.hcl:2,1-8: Queue of a removed object; project "p" is removed whole on line 1: its queues go with it.`},
		{"removed { project = \"p\" }\nremoved { project = \"p\" }", `d.hcl:2,1-8: Duplicate removed block; project "p" is already removed on line 1.`},
		{"removed {\n project = \"p\"\n queue = \"l4\"\n}\nproject \"p\" {\n queue \"rtx\" {\n  priority = 3\n }\n}",
			`d.hcl:1,1-8: Queue removed beside other queue changes; the queue on node pool "l4" of project "p" is removed, and this plan also changes the queue on node pool "rtx" of the same project: the queues after a removed one move up, so remove the queue in one plan and change the others in the next.`},
	}
	for _, c := range cases {
		ov, diags := Load("d.hcl", []byte(c.src), nil, nil)
		if !diags.HasErrors() {
			_, _, diags = ov.Changes(removedTenancy(), nil)
		}
		if got := firstError(diags); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}

// The default pool is refused by name even where the snapshot has it.
func TestRemovedDefaultPool(t *testing.T) {
	x := removedTenancy()
	tt := x.Tenancy()
	tt.NodePools = append(tt.NodePools, tenancy.NodePool{Metadata: tenancy.Meta{Name: "default"}})
	ov, _ := Load("d.hcl", []byte(`removed { node_pool = "default" }`), nil, nil)
	_, _, diags := ov.Changes(tenancy.NewIndex(tt), nil)
	if got, want := firstError(diags), `d.hcl:1,23-32: The default node pool cannot be removed; KRM's node pool webhook refuses to delete the "default" pool: it is where every node of no other pool belongs.`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func firstError(diags hcl.Diagnostics) string {
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			return d.Subject.String() + ": " + d.Summary + "; " + d.Detail
		}
	}
	return ""
}
