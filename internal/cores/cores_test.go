package cores

import (
	"sync/atomic"
	"testing"
)

// Each calls fn once for every index, and not at all for n = 0.
func TestEach(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		calls := make([]atomic.Int32, n)
		Each(n, func(k int) { calls[k].Add(1) })
		for k := range calls {
			if c := calls[k].Load(); c != 1 {
				t.Fatalf("n=%d: fn(%d) called %d times", n, k, c)
			}
		}
	}
}
