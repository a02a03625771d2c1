package render

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
)

// update rewrites the golden files under testdata/golden from the current
// output: go test ./render -run Golden -update. Review the diff.
var update = flag.Bool("update", false, "rewrite the golden files")

// sampleDir is the bundled sample: tenancy.yaml, move-one-card.hcl and
// oversubscribed.hcl.
const sampleDir = "../examples/sample"

// stateOf parses tenancy YAML into a sealed git snapshot with fixed
// source fields (so plan ids are stable) and no cluster data.
func stateOf(t testing.TB, file string, src []byte) *snapshot.State {
	t.Helper()
	var ten snapshot.Tenancy
	if err := ten.ParseTenancy(file, src); err != nil {
		t.Fatalf("parse %s: %v", file, err)
	}
	s := &snapshot.State{
		Source: snapshot.Source{Kind: "git", Repo: "/repo", Ref: "main", Commit: "0123456789abcdef0123456789abcdef01234567",
			Files: []snapshot.SourceFile{{Path: file, Blob: "89abcdef0123456789abcdef0123456789abcdef"}}},
		NodePools: ten.NodePools, Departments: ten.Departments, Projects: ten.Projects,
		ManagedNodes: ten.ManagedNodes, KRMConfig: ten.KRMConfig, Other: ten.Other,
	}
	for _, what := range []string{snapshot.SourceNodes, snapshot.SourceQueues, snapshot.SourceNamespaces} {
		s.NotRead = append(s.NotRead, snapshot.NotRead{What: what, Reason: "git snapshot without a cluster"})
	}
	s.Seal()
	return s
}

// sampleState is the sample tenancy as a git snapshot.
func sampleState(t testing.TB) *snapshot.State {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sampleDir, "tenancy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return stateOf(t, "tenancy.yaml", b)
}

// planOf plans the HCL source (named file) against s; it fails the test on
// an error diagnostic.
func planOf(t testing.TB, s *snapshot.State, file string, src []byte) *planner.Plan {
	t.Helper()
	ov, diags := config.Load(file, src, nil, nil)
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", file, diags)
	}
	p, diags := planner.Build(s, ov)
	if diags.HasErrors() || p == nil {
		t.Fatalf("plan %s: %v", file, diags)
	}
	return p
}

// samplePlan plans one of the sample's desired files (by base name).
func samplePlan(t testing.TB, name string) *planner.Plan {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(sampleDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return planOf(t, sampleState(t), name, src)
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) { goldenIn(t, "golden", name, got) }

// goldenIn compares got with testdata/dir/name, or rewrites it with
// -update (go test ./render -update; review the diff).
func goldenIn(t *testing.T, dir, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", dir, name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./render -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the output (go test ./render -update rewrites it; review the diff):\n--- got\n%s", path, got)
	}
}
