package planner

import (
	"reflect"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/snapshot"
)

// file = "..." must name a file git can hold: no .git segment, no empty
// segment, no "." or "..". The diagnostics come in the objects' order.
func TestPlacementRefusesPathsGitRefuses(t *testing.T) {
	before := mustState(t, pool("h100", "gpu", "h100")+dept("d", q("d-q", "h100", "{deserved: 4, limit: 4}")))
	before.Source.Files = []snapshot.SourceFile{{Path: "tenancy/pools.yaml"}, {Path: "x.git/a.yaml"}}
	got := placementDiags(t, before, []string{".git/config", "tenancy/.GIT/hooks/x.yaml", "a//b.yaml", "./a.yaml", "a/../b.yaml", "/abs.yaml", "tenancy/", "tenancy/ok.yaml", "x.git/.gitkeep.yaml"})
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

// A new object goes in a file the next snapshot reads back: one of the
// snapshot's files, or a .yaml or .yml file in a folder that holds one or
// below it (a --tenancy folder is read to every depth). tenancy/x.json,
// .krmplan.hcl or a folder the snapshot did not read were accepted once,
// and the object was never read back.
func TestPlacementOnlyWhereTheSnapshotReads(t *testing.T) {
	before := mustState(t, pool("h100", "gpu", "h100")+dept("d", q("d-q", "h100", "{deserved: 4, limit: 4}")))
	before.Source.Files = []snapshot.SourceFile{{Path: "tenancy/pools.yaml"}, {Path: "tenancy/teams/a.yml"}, {Path: "clusters/b/c.yaml"}}
	files := []string{"tenancy/x.json", ".krmplan.hcl", "projects/research.yaml", "tenancy/pools.yaml", "tenancy/new.yml",
		"tenancy/teams/b.yaml", "new.yaml", "tenancy/teams/deeper/c.yaml", "clusters/a/x.yaml"}
	got := placementDiags(t, before, files)
	const folders = "(clusters/b/, tenancy/)"
	want := []string{
		`Invalid file: file = "tenancy/x.json": a new object goes in a .yaml or .yml file, so the next snapshot would not read Project/pa back.`,
		`Invalid file: file = ".krmplan.hcl": a new object goes in a .yaml or .yml file, so the next snapshot would not read Project/pb back.`,
		`Invalid file: file = "projects/research.yaml": a new object goes in a folder the snapshot read or one below it ` + folders + `, so the next snapshot would not read Project/pc back.`,
		`Invalid file: file = "new.yaml": a new object goes in a folder the snapshot read or one below it ` + folders + `, so the next snapshot would not read Project/pg back.`,
		`Invalid file: file = "clusters/a/x.yaml": a new object goes in a folder the snapshot read or one below it ` + folders + `, so the next snapshot would not read Project/pi back.`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics:\n got %q\nwant %q", got, want)
	}

	// A cluster's snapshot read no file, and its plan is rendered as
	// patches, which write no file: file = is not checked.
	before.Source.Files = nil
	if got = placementDiags(t, before, files); len(got) != 0 {
		t.Errorf("cluster snapshot: %q", got)
	}
}

// placementDiags plans a new project pa, pb, … in each of files and
// returns the diagnostics, "summary: detail".
func placementDiags(t *testing.T, before *snapshot.State, files []string) []string {
	t.Helper()
	src := ""
	for i, f := range files {
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
	return got
}
