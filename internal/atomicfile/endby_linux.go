package atomicfile

import (
	"os"
	"runtime"
	"syscall"
)

// endBy sends sig on and does not return: the signal ends the process (or
// reaches the next guard, which ends it once its file is removed).
//
// kill(2) of the process would let the kernel hand the signal to any of
// its threads, and that thread may run the signal's action only after the
// program went on past the guard and ended with status 0: under load the
// attack suite's midwrite saw SIGTERM sent while the temporary file
// existed and krmplan exit 0. tgkill(2) of the calling thread, which does
// not block the signal, makes the kernel run the action as the call
// returns; blocking after it keeps the program from going on if another
// guard takes the signal first.
func endBy(sig syscall.Signal) {
	runtime.LockOSThread()
	_ = syscall.Tgkill(os.Getpid(), syscall.Gettid(), sig)
	select {}
}
