package planner

import (
	"reflect"
	"testing"

	"github.com/krmplan/krmplan/config"
)

// file = "..." must name a file git can hold: no .git segment, no empty
// segment, no "." or "..". The diagnostics come in the objects' order.
func TestPlacementRefusesPathsGitRefuses(t *testing.T) {
	before := mustState(t, pool("h100", "gpu", "h100")+dept("d", q("d-q", "h100", "{deserved: 4, limit: 4}")))
	src := ""
	for i, f := range []string{".git/config", "tenancy/.GIT/hooks/x.yaml", "a//b.yaml", "./a.yaml", "a/../b.yaml", "/abs.yaml", "tenancy/", "tenancy/ok.yaml", "x.git/.gitkeep.yaml"} {
		src += "project \"p" + string(rune('a'+i)) + "\" {\n  department = \"d\"\n  file = \"" + f + "\"\n}\n"
	}
	ov, diags := config.Load("desired.hcl", []byte(src), nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, diags = Build(before, ov)
	var got []string
	for _, d := range diags {
		got = append(got, d.Summary+": "+d.Detail)
	}
	want := []string{
		`Invalid file: file = ".git/config": give a clean path relative to the repository root, such as "tenancy/projects.yaml" (a .git segment is git's own data, not a file of the repository).`,
		`Invalid file: file = "tenancy/.GIT/hooks/x.yaml": give a clean path relative to the repository root, such as "tenancy/projects.yaml" (a .git segment is git's own data, not a file of the repository).`,
		`Invalid file: file = "a//b.yaml": give a clean path relative to the repository root, such as "tenancy/projects.yaml" (the path has an empty segment (a leading, trailing or doubled /)).`,
		`Invalid file: file = "./a.yaml": give a clean path relative to the repository root, such as "tenancy/projects.yaml" (the path has a "." segment).`,
		`Invalid file: file = "a/../b.yaml": give a clean path relative to the repository root, such as "tenancy/projects.yaml" (the path has a ".." segment).`,
		`Invalid file: file = "/abs.yaml": give a clean path relative to the repository root, such as "tenancy/projects.yaml" (the path is absolute).`,
		`Invalid file: file = "tenancy/": give a clean path relative to the repository root, such as "tenancy/projects.yaml" (the path has an empty segment (a leading, trailing or doubled /)).`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics:\n got %q\nwant %q", got, want)
	}
}
