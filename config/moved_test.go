package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/tenancy"
)

// movedTenancy is changesTenancy with a second project "q" whose queue has
// a derived name, a priority and no cpu or memory, in namespace "q-ns".
func movedTenancy() *tenancy.Index {
	t, _ := tenancy.Apply(&changesTenancy, nil)
	prio := int32(50)
	t.Projects = append(t.Projects, tenancy.Project{Metadata: tenancy.Meta{Name: "q"}, Spec: tenancy.ProjectSpec{Parent: "ml", Namespace: "q-ns",
		DefaultNodePools: []string{"rtx"},
		Queues:           []tenancy.Queue{{Name: "", NodePool: "rtx", Priority: &prio, Resources: tenancy.Resources{GPU: &tenancy.Resource{Deserved: val("1"), Limit: val("2")}}}}}})
	return tenancy.NewIndex(t)
}

// A moved block is the creation of the new project with the old one's
// spec — its namespace explicit, its queue's name derived, only the
// quota fields the old queue states — then the old one's removal, marked
// MovedTo, every change at the moved block.
func TestMovedChanges(t *testing.T) {
	src := "moved {\n  from  = \"q\"\n  to    = \"r\"\n  force = true\n}\n"
	ov, diags := Load("d.hcl", []byte(src), nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	changes, _, diags := ov.Changes(movedTenancy(), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var got []string
	for _, c := range changes {
		line := c.Action.String() + " " + c.Field.String() + " " + c.Before.String() + " -> " + c.After.String()
		if c.MovedTo != "" {
			line += " moved to " + c.MovedTo
		}
		if c.Force {
			line += " force"
		}
		if c.Source == nil || c.Source.Line != 1 {
			line += " (not at the moved block)"
		}
		got = append(got, line)
	}
	want := []string{
		`destroy Project/q metadata.name "q" -> null moved to r force`,
		`create Project/r parent null -> "ml"`,
		`create Project/r namespace null -> "q-ns"`,
		`create Project/r defaultNodePools null -> ["rtx"]`,
		`create Project/r queue 0 name null -> ""`,
		`create Project/r queue 0 nodepool null -> "rtx"`,
		`create Project/r queue 0 priority null -> 50`,
		`create Project/r queue 0 gpu.deserved null -> 1`,
		`create Project/r queue 0 gpu.limit null -> 2`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A moved block that cannot be planned is an error under its range.
func TestMovedRefused(t *testing.T) {
	cases := []struct{ src, want string }{
		{`moved { from = "q" }`, `d.hcl:1,9-9: Missing required argument; The argument "to" is required, but no definition was found.`},
		{`moved {` + "\n" + `from = "q"` + "\n" + `to = "q"` + "\n}", `d.hcl:3,6-9: Invalid moved block; from and to are both "q": a moved block renames a project to another name.`},
		{`moved {` + "\n" + `from = "zz"` + "\n" + `to = "r"` + "\n}", `d.hcl:2,8-12: Nothing to move; The snapshot has no project "zz": there is nothing to move.`},
		{`moved {` + "\n" + `from = "q"` + "\n" + `to = "p"` + "\n}", `d.hcl:3,6-9: Project already exists; project "p" is already in the snapshot: a moved block renames a project to a new name.`},
		{`moved {` + "\n" + `from = "q"` + "\n" + `to = "r"` + "\n}\nproject \"r\" {\n department = \"ml\"\n}", `d.hcl:5,1-12: Moved project is also set; project "r" is named by the moved block on line 1: rename it in this plan and change its values in the next.`},
		{`moved {` + "\n" + `from = "q"` + "\n" + `to = "r"` + "\n}\nremoved { project = \"q\" }", `d.hcl:5,1-8: Moved project is also removed; project "q" is named by the moved block on line 1: remove one of the two.`},
		{`moved {` + "\n" + `from = "q"` + "\n" + `to = "r"` + "\n}\nmoved {\n from = \"r\"\n to = \"s\"\n}", `d.hcl:6,9-12: Project moved twice; project "r" is already named by the moved block on line 1: move a project once per plan.`},
		{`moved {` + "\n" + `from = "p"` + "\n" + `to = "r"` + "\n}", `d.hcl:1,1-6: Moved project has a named queue; project "p" names its queue on node pool "rtx" "p-rtx". KRM cannot rename a project: the plan creates "r" before it removes "p", and while "p" exists its Queue keeps that name, so KRM would name "r"'s queue "p-rtx" plus "-" and 4 random characters, for good. Rename it in two plans instead: remove "p" (a removed block), and once its Queues are gone create "r" with the same queue names.`},
	}
	for _, c := range cases {
		ov, diags := Load("d.hcl", []byte(c.src), nil, nil)
		if !diags.HasErrors() {
			_, _, diags = ov.Changes(movedTenancy(), nil)
		}
		if got := firstError(diags); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}
