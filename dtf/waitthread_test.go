package dtf

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestWaitThread checks that a wait's thread gets the short slice and gets
// its own back afterwards.
func TestWaitThread(t *testing.T) {
	runtime.LockOSThread() // so that before and after read the same thread
	defer runtime.UnlockOSThread()
	before, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		t.Skipf("sched_getattr: %v", err)
	}
	restore := waitThread()
	during, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	nap(time.Millisecond)
	if el := time.Since(start); el < time.Millisecond {
		t.Errorf("nap(1ms) returned after %v", el)
	}
	restore()
	after, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if before.Runtime > uint64(waitSlice) && during.Runtime != uint64(waitSlice) {
		t.Errorf("slice while waiting = %v, want %v", time.Duration(during.Runtime), waitSlice)
	}
	if after.Runtime != before.Runtime || after.Policy != before.Policy || after.Nice != before.Nice {
		t.Errorf("after the wait: %+v, want %+v", after, before)
	}
}
