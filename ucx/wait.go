package ucx

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// firstSleep and maxSleep bound one sleep on the event fd: a wait's first
// sleep, and each after progress found events, lasts at most firstSleep, and
// each further one twice the last, up to maxSleep. Events that another
// goroutine consumes, or conditions set without any UCX event, are thus
// noticed within that time even if nobody calls Signal; and so are events
// whose wake-up never comes: over tcp, a producer agent's wait in Go's network
// poller for its put and flush to complete slept the whole 100 ms, with the
// completions waiting, in about 1 of 150 stagings of 1 MiB (5 of 600 in a
// row; none when it sleeps in ppoll(2), see SleepInThread).
const (
	firstSleep = time.Millisecond
	maxSleep   = 100 * time.Millisecond
)

// Wait makes progress on the worker until cond returns true, sleeping in
// the kernel on the worker's event fd whenever there is nothing to do.
// It fails with an error wrapping ErrTimeout when ctx's deadline passes
// (or ctx.Err() when ctx is cancelled). cond must not block.
func (w *Worker) Wait(ctx context.Context, cond func() bool) error {
	stop := context.AfterFunc(ctx, func() { w.Signal() })
	defer stop()
	nap := firstSleep
	for {
		// Drain pending events: arm refuses while any are left.
		for w.Progress() > 0 {
			nap = firstSleep
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
		if err := w.sleep(ctx, nap); err != nil {
			return err
		}
		nap = min(2*nap, maxSleep)
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

// sleep parks the goroutine until the event fd fires, d passes or ctx's
// deadline comes. Unless SleepInThread, it waits in Go's network poller on a duplicate
// of the fd of its own: blocked in poll(2), a thread would keep one of the process's
// GOMAXPROCS until the runtime noticed, and a process that stages with 2 of them then
// ran its transfer on the other alone (a 16 MiB ucx staging took 11-12 ms instead of
// 9.4-10.6).
func (w *Worker) sleep(ctx context.Context, d time.Duration) error {
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl))
	}
	if d <= 0 {
		return nil // the caller's loop reports the timeout
	}
	f, err := w.takeSleeper()
	if err != nil {
		return err
	}
	defer w.putSleeper(f)
	rc, err := f.SyscallConn()
	if err != nil {
		return fmt.Errorf("ucx: worker event fd: %w", err)
	}
	if w.inThread.Load() {
		return sleepInThread(rc, d)
	}
	f.SetReadDeadline(time.Now().Add(d))
	// The first call says "not yet", so that Read waits for the fd to turn readable;
	// the second, after it did (or the deadline passed), ends the wait. Nothing is read:
	// progressing the worker clears the event.
	waited := false
	err = rc.Read(func(uintptr) bool {
		done := waited
		waited = true
		return done
	})
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("ucx: wait on worker event fd: %w", err)
	}
	return nil
}

// SleepInThread makes the worker's waits sleep in ppoll(2) on the calling thread rather
// than in Go's network poller, whose wake-up goes through the runtime's scheduler. It
// suits a process whose waiting goroutine is its only busy one, such as an MPI rank's.
// Array coupling across two launches (case 6a of couplet bench, interleaved pairs of
// launches) moved, in the thread against the poller: at 256 MiB 2.20-2.27 GB/s against
// 1.99-2.12 over tcp and 4.29-4.37 against 3.63-4.05 over sm; at 1 GiB 2.13-2.27 against
// 1.98-2.01 and 4.07-4.41 against 3.79-3.80; at 64 MiB the same either way. A process
// with other goroutines to run keeps the poller (see sleep).
func (w *Worker) SleepInThread(on bool) { w.inThread.Store(on) }

// sleepInThread blocks the thread in ppoll(2) on the worker's event fd (rc, one of its
// duplicates, held open meanwhile) until it fires or d passes. An interrupted poll
// ends the sleep early, which the caller's loop allows.
func sleepInThread(rc syscall.RawConn, d time.Duration) error {
	var perr error
	err := rc.Control(func(fd uintptr) {
		ts := unix.NsecToTimespec(d.Nanoseconds())
		_, perr = unix.Ppoll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, &ts, nil)
	})
	if err == nil && perr != nil && !errors.Is(perr, unix.EINTR) {
		err = perr
	}
	if err != nil {
		return fmt.Errorf("ucx: wait on worker event fd: %w", err)
	}
	return nil
}

// takeSleeper returns an idle duplicate of the event fd, or a new one: non-blocking,
// so that os.NewFile registers it with the network poller. Duplicates share UCX's
// epoll instance, and each is woken by its events.
func (w *Worker) takeSleeper() (*os.File, error) {
	w.sleepMu.Lock()
	defer w.sleepMu.Unlock()
	if w.sleepClosed {
		return nil, ErrClosed // efd may be gone, its number reused
	}
	if k := len(w.sleepers); k > 0 {
		f := w.sleepers[k-1]
		w.sleepers = w.sleepers[:k-1]
		return f, nil
	}
	d, err := unix.FcntlInt(uintptr(w.efd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("ucx: duplicate the worker's event fd: %w", err)
	}
	if err := unix.SetNonblock(d, true); err != nil {
		unix.Close(d)
		return nil, fmt.Errorf("ucx: worker event fd: %w", err)
	}
	return os.NewFile(uintptr(d), "ucx-worker-efd"), nil
}

// putSleeper gives f back for the next waiter, or closes it once the worker is closed.
func (w *Worker) putSleeper(f *os.File) {
	w.sleepMu.Lock()
	defer w.sleepMu.Unlock()
	if w.sleepClosed {
		f.Close()
		return
	}
	w.sleepers = append(w.sleepers, f)
}

// closeSleepers closes the idle duplicates; those in use are closed when given back.
func (w *Worker) closeSleepers() {
	w.sleepMu.Lock()
	defer w.sleepMu.Unlock()
	for _, f := range w.sleepers {
		f.Close()
	}
	w.sleepers, w.sleepClosed = nil, true
}
