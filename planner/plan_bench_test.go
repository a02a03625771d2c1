package planner_test

import (
	"fmt"
	"testing"

	"github.com/krmplan/krmplan/config"
	"github.com/krmplan/krmplan/internal/cputime"
	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/planner/planfile"
	"github.com/krmplan/krmplan/snapshot"
)

// BenchmarkPlan is `krmplan plan` on a generated tenancy of n projects,
// between reading state.json and printing: load the desired file (a clean
// move of 4 h100 cards between two departments in every 48 projects),
// apply it, diff, run every check on the target and the snapshot, order
// the steps and verify every intermediate state, and compute the plan id.
func BenchmarkPlan(b *testing.B) {
	for _, n := range gentenancy.Sizes(testing.Short()) {
		b.Run(fmt.Sprintf("projects=%d", n), func(b *testing.B) {
			t := gentenancy.Generate(gentenancy.Spec{Projects: n, Seed: gentenancy.BenchSeed})
			parsed, _, err := t.State()
			if err != nil {
				b.Fatal(err)
			}
			// The snapshot as plan reads it, decoded from state.json: its
			// objects lie in memory in the file's order, as in the CLI.
			stateJSON := parsed.Seal()
			st, err := snapshot.Decode("state.json", stateJSON)
			if err != nil {
				b.Fatal(err)
			}
			desired := t.MoveHCL(0)
			b.ReportAllocs()
			cpu0 := cputime.Process()
			for b.Loop() {
				ov, diags := config.LoadOrdered(gentenancy.MoveFile, desired, nil, nil)
				if diags.HasErrors() {
					b.Fatal(diags)
				}
				p, diags := planner.Build(st, ov)
				if diags.HasErrors() {
					b.Fatal(diags)
				}
				// The plan id, of plan.json with state.json's bytes, as plan
				// writes it.
				if _, err := planfile.EncodeFrom(p, planfile.Sources{Snapshot: stateJSON}); err != nil {
					b.Fatal(err)
				}
				if !p.Renderable() || !p.OrderVerified || len(p.Steps) != 4*len(t.Moves()) {
					b.Fatalf("the plan is not clean: renderable %v, verified %v, %d steps for %d moves", p.Renderable(), p.OrderVerified, len(p.Steps), len(t.Moves()))
				}
			}
			cputime.Report(b, cpu0)
		})
	}
}
