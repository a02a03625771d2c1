package script_test

import (
	"testing"

	"github.com/krmplan/krmplan/internal/cputime"
	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/render/script"
)

// BenchmarkRenderPatch is the kubectl patch script of the plan.
func BenchmarkRenderPatch(b *testing.B) {
	plantest.Sizes(b, func(b *testing.B, n int) {
		p, _ := plantest.Generated(b, n)
		b.ReportAllocs()
		cpu0 := cputime.Process()
		for b.Loop() {
			script.PatchScript(p, script.Options{Cluster: script.Cluster{Context: "prod"}})
		}
		cputime.Report(b, cpu0)
	})
}
