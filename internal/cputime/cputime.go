// Package cputime reads the process's CPU time, for benchmarks on a
// machine shared with other work: the CPU time per operation (garbage
// collection included) is steadier there than the wall time. Only tests
// import it.
package cputime

import (
	"syscall"
	"testing"
	"time"
)

// Process is the process's user and system CPU time so far; 0 when the
// system does not say.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Report adds the metric "cpu-ms/op" to b: the process's CPU time since
// start (a Process reading taken before b's loop) per operation.
func Report(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((Process()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
