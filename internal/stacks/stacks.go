// Package stacks lets a test see which goroutines still run a package's code.
package stacks

import (
	"bytes"
	"runtime"
)

// RunningIn is the stacks of the goroutines, other than the caller's, that
// are running code of a function whose name starts with prefix
// ("github.com/krmplan/krmplan/planner."). A test that work started by a
// call was waited for asks it right after the call: unlike a count of
// goroutines, it does not see a goroutine that has finished its work and
// is only exiting (sync.WaitGroup.Go's Done comes before the exit), nor
// the runtime's and the testing package's own.
func RunningIn(prefix string) []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	stacks := bytes.Split(buf, []byte("\n\n"))
	var out []string
	for _, s := range stacks[1:] { // the first is the caller's own
		if bytes.Contains(s, []byte("\n"+prefix)) {
			out = append(out, string(s))
		}
	}
	return out
}
