package fairshare

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/krmplan/krmplan/internal/cputime"
	"github.com/krmplan/krmplan/quota"
)

// benchPools builds a tenancy of n projects the way the planner's
// benchmarks scale it: a pool per 25 projects, 4 departments per pool
// (8,000 departments and 2,000 pools at 50,000 projects), one project in
// ten a root project, every project queue demanding without bound. The
// numbers are like the demo's: 96 cards, 224 cores and 2,000 GB per 8
// cards, departments deserving about a quarter each with limits, projects
// a few cards each, weights 1 to 3, the odd higher priority.
func benchPools(n int) []Pool {
	rng := rand.New(rand.NewPCG(uint64(n), 14))
	v := func(x int) quota.Value { return quota.FromInt(int64(x)) }
	pools := make([]Pool, n/25)
	for p := range pools {
		gpu, cpu, mem := v(96), v(96/8*224000), v(96/8*2000000)
		pool := Pool{Capacity: PerResource[*quota.Value]{GPU: &gpu, CPU: &cpu, Memory: &mem}}
		for d := range 4 {
			dsv := 16 + rng.IntN(16)
			pool.Queues = append(pool.Queues, Queue{
				Name: fmt.Sprintf("dept-%d-%d", p, d),
				Quota: PerResource[Quota]{
					GPU:    Quota{v(dsv), v(dsv + 8 + rng.IntN(24)), v(1 + rng.IntN(3))},
					CPU:    Quota{quota.Unlimited, quota.Unlimited, v(1)},
					Memory: Quota{quota.Unlimited, quota.Unlimited, v(1)},
				},
			})
		}
		for j := range 25 {
			q := Queue{
				Name:   fmt.Sprintf("proj-%d-%d", p, j),
				Demand: PerResource[Demand]{Full, Full, Full},
			}
			if rng.IntN(10) > 0 {
				q.Parent = fmt.Sprintf("dept-%d-%d", p, rng.IntN(4))
			}
			if rng.IntN(8) == 0 {
				prio := 200
				q.Priority = &prio
			}
			g := 1 + rng.IntN(6)
			q.Quota = PerResource[Quota]{
				GPU:    Quota{v(g), v(g + rng.IntN(12)), v(1 + rng.IntN(3))},
				CPU:    Quota{v(g * 8000), quota.Unlimited, v(1)},
				Memory: Quota{v(g * 64000), quota.Unlimited, v(1)},
			}
			pool.Queues = append(pool.Queues, q)
		}
		pools[p] = pool
	}
	return pools
}

// BenchmarkDivide divides every pool of a tenancy twice, as a plan's
// preview does (before and after), the after with one department's
// deserved cards moved in every pool: at 10,000 and 50,000 projects, or
// under -short (CI's run that proves benchmarks work) at 1,000.
func BenchmarkDivide(b *testing.B) {
	sizes := []int{10000, 50000}
	if testing.Short() {
		sizes = []int{1000}
	}
	for _, n := range sizes {
		before := benchPools(n)
		after := benchPools(n)
		for i := range after {
			after[i].Queues = append([]Queue(nil), after[i].Queues...)
			after[i].Queues[0].Quota.GPU.Deserved = after[i].Queues[0].Quota.GPU.Deserved.Add(quota.FromInt(4))
		}
		queues := 0
		for _, p := range before {
			queues += len(p.Queues)
		}
		b.Run(fmt.Sprintf("projects=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cputime.Process()
			for b.Loop() {
				for _, set := range [][]Pool{before, after} {
					for _, p := range set {
						if _, err := Divide(p); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*queues), "ns/queue")
			// The machine may be shared: the process's CPU time per
			// operation (GC included) is the steadier figure.
			cputime.Report(b, cpu0)
		})
	}
}
