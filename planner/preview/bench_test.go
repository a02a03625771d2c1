package preview_test

import (
	"fmt"
	"testing"

	"github.com/krmplan/krmplan/internal/cputime"
	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/planner/preview"
)

// BenchmarkPreview is `krmplan fairshare` between reading state.json and
// printing: every node pool of a generated tenancy of n projects (with its
// nodes' allocatable and its live Queues) divided under full demand. It
// reports the time per queue, which stays flat when the cost is linear.
func BenchmarkPreview(b *testing.B) {
	for _, n := range gentenancy.Sizes(testing.Short()) {
		b.Run(fmt.Sprintf("projects=%d", n), func(b *testing.B) {
			t := gentenancy.Generate(gentenancy.Spec{Projects: n, Seed: gentenancy.BenchSeed})
			st, _, err := t.State()
			if err != nil {
				b.Fatal(err)
			}
			pv, err := preview.Of(st, preview.Full, nil)
			if err != nil {
				b.Fatal(err)
			}
			queues := 0
			for i := range pv.Pools {
				if pv.Pools[i].Capacity.GPU == nil {
					b.Fatalf("pool %s: capacity unknown", pv.Pools[i].Name)
				}
				queues += len(pv.Pools[i].Queues)
			}
			b.ReportAllocs()
			cpu0 := cputime.Process()
			for b.Loop() {
				if _, err := preview.Of(st, preview.Full, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(queues), "ns/queue")
			cputime.Report(b, cpu0)
		})
	}
}
