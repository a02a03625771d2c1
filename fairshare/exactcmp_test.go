package fairshare

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func TestSignificand(t *testing.T) {
	for _, f := range []float64{1, 3, 0.5, -6, 0.1, 1e300, 5e-324, math.SmallestNonzeroFloat64 * 12, 2.5e-310, 123456789} {
		m, e, s := significand(f)
		got := new(big.Float).SetMantExp(new(big.Float).SetUint64(m), e)
		if s < 0 {
			got.Neg(got)
		}
		if want := new(big.Float).SetFloat64(f); got.Cmp(want) != 0 || m&1 == 0 {
			t.Errorf("significand(%v) = %d·2^%d (%d)", f, m, e, s)
		}
	}
}

// TestCmpProd checks the exact sign of a·b − c·d against big.Float.
func TestCmpProd(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := []float64{0, 1, -1, 3, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 7, 1e15, 1e-9, 9007199254740993, 0x1p-60, -2.5}
	for range 20000 {
		a, b, c, d := vals[rng.IntN(len(vals))], vals[rng.IntN(len(vals))], vals[rng.IntN(len(vals))], vals[rng.IntN(len(vals))]
		if rng.IntN(3) == 0 {
			c, d = a*b/3, 3 // near-equal products
		}
		x := new(big.Float).SetPrec(0).SetFloat64(a)
		x.SetPrec(2000).Mul(x, new(big.Float).SetFloat64(b))
		y := new(big.Float).SetPrec(2000).SetFloat64(c)
		y.Mul(y, new(big.Float).SetFloat64(d))
		want := x.Sub(x, y).Sign()
		if got := cmpProd(a, b, c, d); got != want {
			t.Fatalf("cmpProd(%v, %v, %v, %v) = %d, want %d", a, b, c, d, got, want)
		}
	}
}
