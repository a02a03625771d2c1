package fairshare

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestOrderSums compares orderSums with summing every permutation.
func TestOrderSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vals := []float64{0.1, 0.2, 0.3, 2.0 / 3, 1.0 / 3, 1, 0.7, 1e16, -0.1}
	for range 300 {
		n := 1 + rng.IntN(6)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = vals[rng.IntN(len(vals))]
		}
		start := []float64{0, 10, 0.3}[rng.IntN(3)]
		got, ok := orderSums(start, xs)
		if !ok {
			t.Fatal(xs)
		}
		var want []float64
		perm(xs, 0, func(p []float64) {
			s := start
			for _, x := range p {
				s += x
			}
			if !slices.Contains(want, s) {
				want = append(want, s)
			}
		})
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("orderSums(%v, %v) = %v, want %v", start, xs, got, want)
		}
	}
	if _, ok := orderSums(0, make([]float64, 5000)); !ok {
		t.Error("equal terms must not count as states")
	}
	many := make([]float64, 13)
	for i := range many {
		many[i] = float64(i) / 7
	}
	if _, ok := orderSums(0, many); ok {
		t.Error("13 different terms: 8192 states, beyond the bound")
	}
}

func perm(xs []float64, k int, f func([]float64)) {
	if k == len(xs) {
		f(xs)
		return
	}
	for i := k; i < len(xs); i++ {
		xs[k], xs[i] = xs[i], xs[k]
		perm(xs, k+1, f)
		xs[k], xs[i] = xs[i], xs[k]
	}
}
