package views_test

import (
	"io"
	"testing"

	"github.com/krmplan/krmplan/internal/cputime"
	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/render/views"
)

// BenchmarkRenderText is the plan as `krmplan plan` and `show` print it:
// the changes, the pool bars and the findings, without colour.
func BenchmarkRenderText(b *testing.B) {
	plantest.Sizes(b, func(b *testing.B, n int) {
		p, _ := plantest.Generated(b, n)
		b.ReportAllocs()
		cpu0 := cputime.Process()
		for b.Loop() {
			if err := views.Text(io.Discard, p, views.NewStyle(false)); err != nil {
				b.Fatal(err)
			}
		}
		cputime.Report(b, cpu0)
	})
}
