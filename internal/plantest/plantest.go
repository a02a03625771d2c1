// Package plantest builds the snapshots, plans and in-memory repositories
// that the tests of the packages above the planner (render/…, config's
// export) start from, and compares their output with golden files. Only
// tests import it.
package plantest

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/examples"
	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/planfile"
	"github.com/krmplan/krmplan/profile"
	"github.com/krmplan/krmplan/snapshot"
)

// update rewrites the golden files from the current output: go test
// ./render/views -run Golden -update. Review the diff.
var update = flag.Bool("update", false, "rewrite the golden files")

// Commit and Blob are the fixed source ids of State's snapshots, so that
// plan ids are stable.
const (
	Commit = "0123456789abcdef0123456789abcdef01234567"
	Blob   = "89abcdef0123456789abcdef0123456789abcdef"
)

// notRead marks the cluster sources of a git snapshot without a cluster.
func notRead() []snapshot.NotRead {
	var out []snapshot.NotRead
	for _, what := range []string{snapshot.SourceNodes, snapshot.SourceQueues, snapshot.SourceNamespaces} {
		out = append(out, snapshot.NotRead{What: what, Reason: "git snapshot without a cluster"})
	}
	return out
}

// State parses tenancy YAML into a sealed git snapshot with fixed source
// fields (so plan ids are stable) and no cluster data.
func State(t testing.TB, file string, src []byte) *snapshot.State {
	t.Helper()
	var ten snapshot.Parsed
	if err := ten.ParseTenancy(file, src); err != nil {
		t.Fatalf("parse %s: %v", file, err)
	}
	s := &snapshot.State{
		Source: snapshot.Source{Kind: "git", Repo: "/repo", Ref: "main", Commit: Commit,
			Files: []snapshot.SourceFile{{Path: file, Blob: Blob}}},
		Tenancy: ten.Tenancy, Other: ten.Other,
	}
	s.NotRead = notRead()
	s.Seal()
	return s
}

// Sample returns a file of the bundled sample (examples/sample):
// tenancy.yaml, move-one-card.hcl or oversubscribed.hcl.
func Sample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(examples.Sample, path.Join("sample", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// SampleState is the sample tenancy as a git snapshot.
func SampleState(t testing.TB) *snapshot.State {
	t.Helper()
	return State(t, "tenancy.yaml", Sample(t, "tenancy.yaml"))
}

// Plan plans the HCL source (named file) against s and encodes it (which
// gives it its plan id), as `krmplan plan` does; it fails the test on an
// error diagnostic.
func Plan(t testing.TB, s *snapshot.State, file string, src []byte) *planner.Plan {
	t.Helper()
	ov, diags := config.Load(file, src, nil, nil)
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", file, diags)
	}
	p, diags := planner.Build(s, ov)
	if diags.HasErrors() || p == nil {
		t.Fatalf("plan %s: %v", file, diags)
	}
	Encode(t, p)
	return p
}

// Encode returns the plan.json bytes of p (setting its plan id); it fails
// the test on an error.
func Encode(t testing.TB, p *planner.Plan) []byte {
	t.Helper()
	b, err := planfile.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Demo returns a file of the 160-GPU demo (examples/demo): tenancy.yaml,
// cluster-data.json, move-h100-cards.hcl or over-the-pool.hcl.
func Demo(t testing.TB, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(examples.Demo, path.Join("demo", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// DemoState is the demo as `krmplan snapshot --git-repo … --cluster-data
// cluster-data.json` makes it: its tenancy as a git snapshot (State's
// fixed source ids) with its cluster data laid over it.
func DemoState(t testing.TB) *snapshot.State {
	t.Helper()
	s := State(t, "tenancy.yaml", Demo(t, "tenancy.yaml"))
	var d snapshot.ClusterData
	if err := jsonfile.DecodeStrict(Demo(t, "cluster-data.json"), &d); err != nil {
		t.Fatal(err)
	}
	s.Overlay(&d)
	s.Seal()
	return s
}

// DemoPlan plans one of the demo's desired files (by base name).
func DemoPlan(t testing.TB, name string) *planner.Plan {
	t.Helper()
	return Plan(t, DemoState(t), name, Demo(t, name))
}

// SamplePlan plans one of the sample's desired files (by base name).
func SamplePlan(t testing.TB, name string) *planner.Plan {
	t.Helper()
	return Plan(t, SampleState(t), name, Sample(t, name))
}

// Golden compares got with testdata/dir/name of the test's package, or
// rewrites it with -update (review the diff).
func Golden(t *testing.T, dir, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", dir, name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the output (go test -update rewrites it; review the diff):\n--- got\n%s", p, got)
	}
}

// Repo is a commit as a map of files: the splice's RepoFiles without git,
// with git's blob ids.
type Repo map[string][]byte

// File returns the mode, blob id and bytes of path; exists is false when
// the commit has no such file.
func (m Repo) File(path string) (mode, blob string, data []byte, exists bool, err error) {
	b, ok := m[path]
	if !ok {
		return "", "", nil, false, nil
	}
	return "100644", gitcli.BlobID(b), b, true, nil
}

// List returns path itself and the *.yaml and *.yml files below it, sorted.
func (m Repo) List(path string) ([]string, error) {
	var out []string
	for p := range m {
		if p == path || strings.HasPrefix(p, strings.TrimSuffix(path, "/")+"/") && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Fixture is a plan over tenancy files held in a Repo.
type Fixture struct {
	Plan *planner.Plan
	Repo Repo
}

// PlanOn snapshots the tenancy files of repo (those named), applies the
// desired HCL and returns the plan. A .krmplan.hcl in repo is the profile.
func PlanOn(t testing.TB, repo Repo, tenancy []string, desired string) Fixture {
	t.Helper()
	var ten snapshot.Parsed
	st := &snapshot.State{Source: snapshot.Source{Kind: "git", Repo: "/repo", Ref: "main", Commit: Commit}}
	for _, f := range tenancy {
		if err := ten.ParseTenancy(f, repo[f]); err != nil {
			t.Fatalf("parse %s: %v", f, err)
		}
		st.Source.Files = append(st.Source.Files, snapshot.SourceFile{Path: f, Blob: gitcli.BlobID(repo[f])})
	}
	st.Tenancy, st.Other = ten.Tenancy, ten.Other
	if src, ok := repo[profile.FileName]; ok {
		p, err := profile.Parse(profile.FileName, src)
		if err != nil {
			t.Fatalf("profile: %v", err)
		}
		p.Blob = gitcli.BlobID(src)
		st.Profile = p
	}
	st.NotRead = notRead()
	st.Seal()
	ov, diags := config.Load("desired.hcl", []byte(desired), nil, nil)
	if diags.HasErrors() {
		t.Fatalf("desired.hcl: %v", diags)
	}
	p, diags := planner.Build(st, ov)
	if diags.HasErrors() {
		t.Fatalf("plan: %v", diags)
	}
	Encode(t, p)
	return Fixture{Plan: p, Repo: repo}
}

// OnlyAdds reports whether new is old with whole lines added: every line
// of old is in new, in order, unchanged. The reason names the first line
// that is gone.
func OnlyAdds(old, new []byte) (bool, string) {
	ol := strings.SplitAfter(string(old), "\n")
	nl := strings.SplitAfter(string(new), "\n")
	j := 0
	for i, l := range ol {
		if l == "" {
			continue
		}
		// The last line of a file without a final newline may gain one.
		for j < len(nl) && nl[j] != l && !(i == len(ol)-1 && !strings.HasSuffix(l, "\n") && strings.TrimRight(nl[j], "\r\n") == l) {
			j++
		}
		if j == len(nl) {
			return false, fmt.Sprintf("line %d %q is gone", i+1, l)
		}
		j++
	}
	return true, ""
}

// Generated is a clean plan on a generated tenancy of n projects (a move of
// 4 h100 cards between two departments in every 48 projects), read back
// from its plan.json as show and render read it, and the tenancy file's
// bytes: the benchmarks' fixture, and the tests' of a plan that takes a
// while to read.
func Generated(b testing.TB, n int) (*planner.Plan, []byte) {
	t := gentenancy.Generate(gentenancy.Spec{Projects: n, Seed: gentenancy.BenchSeed})
	st, src, err := t.State()
	if err != nil {
		b.Fatal(err)
	}
	ov, diags := config.LoadOrdered(gentenancy.MoveFile, t.MoveHCL(0), nil, nil)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	built, diags := planner.Build(st, ov)
	if diags.HasErrors() || !built.Renderable() {
		b.Fatalf("the plan does not render: %v", diags)
	}
	// Decoded from plan.json: its objects lie in memory in the file's
	// order, as in the CLI.
	p, err := planfile.Decode("plan.json", Encode(b, built))
	if err != nil {
		b.Fatal(err)
	}
	return p, src
}

// Sizes runs a benchmark on every size of gentenancy.Sizes (up to 1,000
// projects with -short).
func Sizes(b *testing.B, run func(b *testing.B, n int)) {
	for _, n := range gentenancy.Sizes(testing.Short()) {
		b.Run(fmt.Sprintf("projects=%d", n), func(b *testing.B) { run(b, n) })
	}
}
