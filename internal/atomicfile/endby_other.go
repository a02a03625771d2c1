//go:build unix && !linux

package atomicfile

import (
	"os"
	"syscall"
)

// endBy sends sig on and does not return (see endby_linux.go); without
// tgkill(2) the signal goes to the process.
func endBy(sig syscall.Signal) {
	_ = syscall.Kill(os.Getpid(), sig)
	select {}
}
