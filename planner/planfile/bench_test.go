package planfile_test

import (
	"testing"

	"github.com/krmplan/krmplan/internal/cputime"
	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/planner/planfile"
)

// BenchmarkPlanRead is what show and render do before they print or
// write: decode plan.json of a clean plan on a generated tenancy of n
// projects (the move of 4 h100 cards in every 48 projects) and verify it,
// which plans its snapshot and desired file again (every check, the
// steps and their verified order) and compares.
func BenchmarkPlanRead(b *testing.B) {
	plantest.Sizes(b, func(b *testing.B, n int) {
		p, _ := plantest.Generated(b, n)
		file := plantest.Encode(b, p) // the same bytes as the plan's before decoding
		b.ReportAllocs()
		cpu0 := cputime.Process()
		for b.Loop() {
			if _, err := planfile.Decode("plan.json", file); err != nil {
				b.Fatal(err)
			}
		}
		cputime.Report(b, cpu0)
	})
}
