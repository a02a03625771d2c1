package gentenancy_test

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/planner"
)

// TestSameSeedSameBytes: the output is a pure function of the spec, and
// another seed gives other numbers.
func TestSameSeedSameBytes(t *testing.T) {
	a := gentenancy.Files(gentenancy.Generate(gentenancy.Spec{Projects: 500, Seed: 9}))
	b := gentenancy.Files(gentenancy.Generate(gentenancy.Spec{Projects: 500, Seed: 9}))
	c := gentenancy.Files(gentenancy.Generate(gentenancy.Spec{Projects: 500, Seed: 10}))
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between two runs with the same seed", name)
		}
	}
	if bytes.Equal(a[gentenancy.TenancyFile], c[gentenancy.TenancyFile]) {
		t.Error("seeds 9 and 10 give the same tenancy")
	}
}

// TestSizesGrowInProportion: a tenancy of n projects has n projects, and
// departments, pools and nodes in proportion (per 48 projects: 8
// departments, 2 pools, 20 nodes of 8 cards, one of them not ready).
func TestSizesGrowInProportion(t *testing.T) {
	for _, tc := range []struct{ projects, cells, departments int }{
		{1, 1, 1},
		{48, 1, 8},
		{50, 2, 10},
		{1000, 21, 168}, // 20 full cells, and 40 projects in 8 departments
		{10000, 209, 1672},
	} {
		g := gentenancy.Generate(gentenancy.Spec{Projects: tc.projects, Seed: 1})
		notReady, cards := 0, 0
		for _, n := range g.Nodes {
			cards += gentenancy.CardsPerNode
			if !n.Ready {
				notReady++
			}
		}
		if len(g.Projects) != tc.projects || g.Cells != tc.cells || len(g.Departments) != tc.departments ||
			len(g.Pools) != 2*tc.cells || len(g.Nodes) != 20*tc.cells || cards != 160*tc.cells || notReady != tc.cells {
			t.Errorf("%d projects: got %d projects, %d cells, %d departments, %d pools, %d nodes (%d not ready) with %d cards",
				tc.projects, len(g.Projects), g.Cells, len(g.Departments), len(g.Pools), len(g.Nodes), notReady, cards)
		}
	}
}

// TestColumnsAligned: in the whole file, every resource row has its limit
// and overQuotaWeight at the same columns, as a hand-kept file has.
func TestColumnsAligned(t *testing.T) {
	src := gentenancy.Generate(gentenancy.Spec{Projects: 1000, Seed: 1}).YAML()
	row := regexp.MustCompile(`(?m)^        (gpu|cpu|memory): +\{deserved: \S+ +limit: \S+ +overQuotaWeight: \S+\}$`)
	rows := row.FindAll(src, -1)
	if len(rows) == 0 {
		t.Fatal("no resource rows")
	}
	at := func(r []byte, key string) int { return bytes.Index(r, []byte(key)) }
	for _, r := range rows {
		if at(r, "limit:") != at(rows[0], "limit:") || at(r, "overQuotaWeight:") != at(rows[0], "overQuotaWeight:") {
			t.Fatalf("row %q is not aligned with %q", r, rows[0])
		}
	}
	if n := bytes.Count(src, []byte("\n        gpu:")); n != len(rows)/3 {
		t.Fatalf("%d gpu rows, but %d resource rows match the aligned form", n, len(rows))
	}
}

// TestBenchmarkPlanIsClean: the tenancies the benchmarks plan have no
// error, and the move in every cell plans clean: renderable, verified, 4
// steps a cell, no finding added.
func TestBenchmarkPlanIsClean(t *testing.T) {
	g := gentenancy.Generate(gentenancy.Spec{Projects: 1000, Seed: gentenancy.BenchSeed})
	st, _, err := g.State()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range planner.CheckState(st) {
		if f.Level == planner.LevelError {
			t.Fatalf("the tenancy has an error: %s", f.Message)
		}
	}
	ov, diags := config.Load(gentenancy.MoveFile, g.MoveHCL(0), nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := planner.Build(st, ov)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if len(g.Moves()) != g.Cells || !p.Renderable() || !p.OrderVerified || len(p.Steps) != 4*g.Cells {
		t.Fatalf("%d moves in %d cells; renderable %v, verified %v, %d steps", len(g.Moves()), g.Cells, p.Renderable(), p.OrderVerified, len(p.Steps))
	}
	for _, f := range p.Findings {
		if !f.AlreadyPresent {
			t.Errorf("the move adds %s %s: %s", f.Level, f.Code, f.Message)
		}
	}
}
