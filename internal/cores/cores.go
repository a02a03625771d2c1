// Package cores runs independent pieces of work on every core.
package cores

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls fn(0), …, fn(n-1) on one goroutine per core (GOMAXPROCS)
// and returns when all have returned. fn must only write to its own
// index's results.
func Each(n int, fn func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < n; k = int(next.Add(1) - 1) {
				fn(k)
			}
		})
	}
	wg.Wait()
}
