package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is the garbage collector's GOGC when the environment does not
// set one. krmplan's work is a few passes over files of tens of megabytes
// (state.json of 10,000 projects is 25 MB), allocating several times their
// size in values that live until the command ends or only for a moment:
// at the runtime's default, 100, the collector took about a sixth of the
// CPU time of snapshot, plan and render at 10,000 projects; at 200 it
// takes half of that, for a peak memory about a quarter higher
// (scripts/bench measures both).
const gcPercent = 200

// tuneGC sets gcPercent unless GOGC is set, which then wins, as the Go
// runtime documents it.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}
