package examples_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/examples"
	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// TestDemoIsWhatTheGeneratorWrites keeps the committed demo equal to what
// examples/demo/gen writes now (run `go generate ./examples` after changing
// the generator), file by file, and no other file bundled.
func TestDemoIsWhatTheGeneratorWrites(t *testing.T) {
	want := gentenancy.Files(gentenancy.Demo())
	var names []string
	if err := fs.WalkDir(examples.Demo, "demo", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(names) != len(want) {
		t.Fatalf("bundled %v, the generator writes %d files", names, len(want))
	}
	for name, data := range want {
		got, err := fs.ReadFile(examples.Demo, "demo/"+name)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(data) {
			t.Errorf("examples/demo/%s differs from what the generator writes; run go generate ./examples", name)
		}
	}
}

// demoState is the demo's snapshot as `krmplan snapshot --cluster-data`
// makes it (without git).
func demoState(t *testing.T) *snapshot.State {
	t.Helper()
	src, err := fs.ReadFile(examples.Demo, "demo/tenancy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ten snapshot.Parsed
	if err := ten.ParseTenancy("tenancy.yaml", src); err != nil {
		t.Fatal(err)
	}
	st := &snapshot.State{Source: snapshot.Source{Kind: "git"}, Tenancy: ten.Tenancy}
	b, err := fs.ReadFile(examples.Demo, "demo/cluster-data.json")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cluster-data.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := snapshot.LoadClusterData(file) // the reader of --cluster-data: unknown keys are refused
	if err != nil {
		t.Fatal(err)
	}
	st.Overlay(d)
	st.Seal()
	return st
}

// TestDemoTenancy checks what the issue promises of the demo: 160 GPUs on
// 20 nodes in two pools, 8 departments, 48 projects, one node not ready,
// non-preemptible usage, one namespace not labelled; and that the
// departments are guaranteed 88 of the h100 pool's 96 cards.
func TestDemoTenancy(t *testing.T) {
	st := demoState(t)
	var pools []string
	for _, p := range st.NodePools {
		pools = append(pools, p.Metadata.Name+"="+p.Spec.LabelValue)
	}
	if got := len(st.Departments); got != 8 {
		t.Errorf("%d departments, want 8", got)
	}
	if got := len(st.Projects); got != 48 {
		t.Errorf("%d projects, want 48", got)
	}
	cards, perPool := quota.Zero, map[string]int{}
	var notReady []string
	for _, n := range st.Nodes {
		cards = cards.Add(n.GPUCapacity)
		perPool[n.Labels[gentenancy.LabelKey]]++
		if !n.Ready {
			notReady = append(notReady, n.Name)
		}
	}
	if len(st.Nodes) != 20 || cards.String() != "160" || perPool["h100"] != 12 || perPool["a100"] != 8 || len(pools) != 2 {
		t.Errorf("%d nodes with %s cards, per pool %v, pools %v; want 20 nodes with 160 cards, h100 12 and a100 8", len(st.Nodes), cards, perPool, pools)
	}
	if len(notReady) != 1 {
		t.Errorf("nodes not ready: %v, want one", notReady)
	}
	var nonPreemptible []string
	for _, q := range st.LiveQueues {
		if v, ok, err := q.Usage(quota.GPU, true); err != nil || (ok && !v.IsZero()) {
			nonPreemptible = append(nonPreemptible, q.Name)
		}
	}
	if len(nonPreemptible) == 0 {
		t.Error("no queue has non-preemptible usage")
	}
	labelled := map[string]string{}
	for _, ns := range st.Namespaces {
		labelled[ns.Name] = ns.Labels[tenancy.DefaultProjectLabelKey]
	}
	var unlabelled []string
	for _, p := range st.Projects {
		if labelled[p.NamespaceName(st.KRMConfig.NamePrefix())] != p.Metadata.Name {
			unlabelled = append(unlabelled, p.Metadata.Name)
		}
	}
	if len(unlabelled) != 1 {
		t.Errorf("projects whose namespace is not labelled for them: %v, want one", unlabelled)
	}
	h100 := quota.Zero
	for _, d := range st.Departments {
		for _, q := range d.Spec.Queues {
			if q.NodePool == "h100" {
				h100 = h100.Add(*q.Resources.GPU.Deserved)
			}
		}
	}
	if h100.String() != "88" {
		t.Errorf("the departments are guaranteed %s h100 cards, want 88", h100)
	}
}

func plan(t *testing.T, st *snapshot.State, file string) *planner.Plan {
	t.Helper()
	src, err := fs.ReadFile(examples.Demo, "demo/"+file)
	if err != nil {
		t.Fatal(err)
	}
	ov, diags := config.Load(file, src, nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := planner.Build(st, ov)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p
}

// newFindings lists "level code: message" of the findings a plan adds.
func newFindings(p *planner.Plan) []string {
	var out []string
	for _, f := range p.Findings {
		if !f.AlreadyPresent {
			out = append(out, string(f.Level)+" "+string(f.Code)+": "+f.Message)
		}
	}
	sort.Strings(out)
	return out
}

// TestDemoPlans: the failing desired file puts the h100 pool 8 cards over
// and nothing else is wrong with it; the clean one moves 4 cards in four
// steps, one per phase, and adds no finding.
func TestDemoPlans(t *testing.T) {
	st := demoState(t)
	for _, f := range planner.CheckState(st) {
		if f.Level == planner.LevelError {
			t.Fatalf("the demo tenancy has an error: %s", f.Message)
		}
	}

	over := plan(t, st, gentenancy.OverPoolFile)
	want := []string{
		"error pool-over-capacity: pool h100: departments are guaranteed 104 cards, the pool has 96 cards — 8 cards over",
		"note unassigned-share: research-h100: the projects are guaranteed 27 cards of the department's 43 cards — 16 cards not guaranteed to any project; its projects get that part only as over-quota share, by overQuotaWeight",
	}
	if got := newFindings(over); !slices.Equal(got, want) {
		t.Errorf("%s adds the findings\n%q\nwant\n%q", gentenancy.OverPoolFile, got, want)
	}
	if over.Renderable() || over.Summary.Errors != 1 {
		t.Errorf("%s: renderable %v with %d errors, want not renderable with 1", gentenancy.OverPoolFile, over.Renderable(), over.Summary.Errors)
	}

	move := plan(t, st, gentenancy.MoveFile)
	if got := newFindings(move); len(got) != 0 {
		t.Errorf("%s adds findings: %q", gentenancy.MoveFile, got)
	}
	if !move.Renderable() || !move.OrderVerified || len(move.Changes) != 4 {
		t.Fatalf("%s: renderable %v, verified %v, %d changes; want a verified plan of 4 changes", gentenancy.MoveFile, move.Renderable(), move.OrderVerified, len(move.Changes))
	}
	var steps []string
	for _, s := range move.Steps {
		steps = append(steps, string(s.Phase)+": "+s.Object.Kind.String()+" "+s.Object.Name)
	}
	wantSteps := []string{
		"shrinking projects: Project detection",
		"shrinking departments: Department vision",
		"growing or new departments: Department research",
		"growing or new projects: Project foundation-models",
	}
	if !slices.Equal(steps, wantSteps) {
		t.Errorf("steps %q, want %q", steps, wantSteps)
	}
}
