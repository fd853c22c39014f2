package dtf

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// waitSlice is the time slice a waiting thread asks the kernel for. On
// Linux 6.12 and later (EEVDF custom slices) a thread with a shorter slice
// that wakes may preempt the running one at once. With the default slice a
// rank woken on a crowded core waited out the running rank's slice: 1-3 ms
// per message hop with 8 ranks on 2 cores. 100 us is the shortest granted.
const waitSlice = 100 * time.Microsecond

// waitThread pins the calling goroutine to its thread and gives the thread
// waitSlice time slices, until the returned func restores them and unpins.
// The wait sleeps on that thread (nap), so the kernel wakes the short-slice
// thread itself rather than a Go runtime thread that then hands over.
// Threads the scheduler may not change (real-time policies, kernels without
// sched_setattr) keep their slices.
func waitThread() (restore func()) {
	runtime.LockOSThread()
	old, err := unix.SchedGetAttr(0, 0)
	if err != nil || (old.Policy != unix.SCHED_NORMAL && old.Policy != unix.SCHED_BATCH) || old.Runtime <= uint64(waitSlice) {
		return runtime.UnlockOSThread
	}
	old.Size = unix.SizeofSchedAttr
	short := *old
	short.Runtime = uint64(waitSlice)
	if unix.SchedSetAttr(0, &short, 0) != nil {
		return runtime.UnlockOSThread
	}
	return func() {
		unix.SchedSetAttr(0, old, 0)
		runtime.UnlockOSThread()
	}
}

// nap sleeps the calling thread in the kernel for d.
func nap(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	syscall.Syscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}
