package ucx

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// maxSleep caps one sleep on the event fd. Events that another goroutine
// consumes, or conditions set without any UCX event, are thus noticed
// within this time even if nobody calls Signal.
const maxSleep = 100 * time.Millisecond

// Wait makes progress on the worker until cond returns true, sleeping in
// the kernel on the worker's event fd whenever there is nothing to do.
// It fails with an error wrapping ErrTimeout when ctx's deadline passes
// (or ctx.Err() when ctx is cancelled). cond must not block.
func (w *Worker) Wait(ctx context.Context, cond func() bool) error {
	stop := context.AfterFunc(ctx, func() { w.Signal() })
	defer stop()
	for {
		// Drain pending events: arm refuses while any are left.
		for w.Progress() > 0 {
		}
		if cond() {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return waitErr(ctx, err)
		}
		armed, err := w.arm()
		if err != nil {
			return err
		}
		if !armed {
			continue
		}
		if cond() {
			return nil
		}
		if err := w.sleep(ctx); err != nil {
			return err
		}
	}
}

// WaitTimeout is Wait with a deadline d from now.
func (w *Worker) WaitTimeout(d time.Duration, cond func() bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return w.Wait(ctx, cond)
}

// waitErr names why a wait ended early.
func waitErr(ctx context.Context, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("ucx: wait: %w", ErrTimeout)
	}
	return fmt.Errorf("ucx: wait: %w", err)
}

// arm asks UCX to signal the event fd on the next event; false means
// events arrived meanwhile and must be progressed first.
func (w *Worker) arm() (bool, error) {
	h, err := w.lock()
	defer w.unlock()
	if err != nil {
		return false, err
	}
	st := C.ucp_worker_arm(h)
	if st == C.UCS_ERR_BUSY {
		return false, nil
	}
	return st == C.UCS_OK, statusErr("worker_arm", st)
}

// sleep blocks in poll(2) on the event fd until it fires, maxSleep passes
// or ctx's deadline comes.
func (w *Worker) sleep(ctx context.Context) error {
	d := maxSleep
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl))
	}
	if d <= 0 {
		return nil // the caller's loop reports the timeout
	}
	ms := int((d + time.Millisecond - 1) / time.Millisecond)
	fds := []unix.PollFd{{Fd: int32(w.efd), Events: unix.POLLIN}}
	if _, err := unix.Poll(fds, ms); err != nil && err != unix.EINTR {
		return fmt.Errorf("ucx: poll on worker event fd: %w", err)
	}
	return nil
}
