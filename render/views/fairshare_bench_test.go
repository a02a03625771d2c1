package views

import (
	"bytes"
	"testing"

	"github.com/krmplan/krmplan/internal/cputime"
	"github.com/krmplan/krmplan/internal/plantest"
)

// BenchmarkPlanFairShare is what the fair share adds to `krmplan plan` and
// `show`: the pools the plan changes divided before and after (the target
// through tenancy.Apply), compared, and written as the text view writes
// them. Against BenchmarkPlan at the same size it is the preview's share
// of `plan` (the target: under 10% at 50,000 projects).
func BenchmarkPlanFairShare(b *testing.B) {
	plantest.Sizes(b, func(b *testing.B, n int) {
		p, _ := plantest.Generated(b, n)
		pp, err := planFairShare(p)
		if err != nil || len(pp.Pools) == 0 {
			b.Fatalf("the plan moves no fair share: %v", err)
		}
		var buf bytes.Buffer
		b.ReportAllocs()
		cpu0 := cputime.Process()
		for b.Loop() {
			buf.Reset()
			writeFairShareChange(&buf, p, DefaultColumns)
		}
		b.ReportMetric(float64(len(pp.Pools)), "pools")
		cputime.Report(b, cpu0)
	})
}
