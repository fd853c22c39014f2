package mpi

// #include "watcher.h"
import "C"

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
)

// Watcher looks for waiting messages of one tag on a thread of its own that
// the Go scheduler does not know (watcher.c), and wakes Wait when one waits.
// A goroutine that polled MPI on a Go timer instead cost hand-offs between
// threads in the Go scheduler and the kernel at each tick, and each one set
// off the runtime's monitor thread (sysmon), on a node whose ranks outnumber
// its cores.
//
// The thread looks after min, doubling the wait up to max while nothing
// arrives, never while the watch is paused (a caller progresses MPI itself)
// and never inside another thread's MPI-IO call (LockIO). Once it saw a
// message it stops looking until Rearm. Its looks progress MPI, as any MPI
// call does. MPI must provide MPI_THREAD_MULTIPLE.
type Watcher struct {
	mu sync.Mutex // guards w, which Close frees
	w  *C.couplet_watch
	ev *os.File // the eventfd the thread signals
}

// NewWatcher starts a watcher for messages with tag from any source on c.
func NewWatcher(c Comm, tag int, min, max time.Duration) (*Watcher, error) {
	if min <= 0 || max < min {
		return nil, fmt.Errorf("mpi: NewWatcher: backoff %v to %v", min, max)
	}
	var fd, errno C.int
	w := C.couplet_watch_start(c.c, C.int(tag), C.longlong(min.Nanoseconds()), C.longlong(max.Nanoseconds()), &fd, &errno)
	if w == nil {
		return nil, fmt.Errorf("mpi: NewWatcher: %w", syscall.Errno(errno))
	}
	return &Watcher{w: w, ev: os.NewFile(uintptr(fd), "couplet-watch")}, nil
}

// Wait blocks, parked in the Go scheduler, until the thread saw a message
// (then the watch stays quiet until Rearm) or the watch is closed (then it
// returns an error).
func (w *Watcher) Wait() error {
	var b [8]byte
	_, err := w.ev.Read(b[:]) // os.File retries EINTR itself
	return err
}

// Pause stops the thread looking until Resume. It does not wake the thread:
// a thread asleep between looks sees the pause when its sleep ends.
func (w *Watcher) Pause() { w.set(func(cw *C.couplet_watch) { C.couplet_watch_pause(cw, 1) }) }

// Resume lets the thread look again after Pause: after the shortest wait if
// it stopped for the pause (its sleep ended meanwhile), otherwise when its
// sleep ends, as if there had been no pause.
func (w *Watcher) Resume() { w.set(func(cw *C.couplet_watch) { C.couplet_watch_pause(cw, 0) }) }

// Rearm lets the thread look again after it saw a message.
func (w *Watcher) Rearm() { w.set(func(cw *C.couplet_watch) { C.couplet_watch_rearm(cw) }) }

// WatchCounts is what a Watcher's thread has done so far.
type WatchCounts struct {
	// Tries counts the waits that ended while the watch was neither paused
	// nor fired, Looks those of them that probed (the rest were kept out of
	// MPI by another thread's MPI-IO call).
	Tries, Looks uint64
	// Wakes counts the waits that a change of the flags ended before their
	// deadline: a Resume or Rearm of a stopped thread, or Close.
	Wakes uint64
}

// Counts reports what the thread has done; after Close, all zero.
func (w *Watcher) Counts() WatchCounts {
	var t, l, k C.ulonglong
	w.set(func(cw *C.couplet_watch) { C.couplet_watch_counts(cw, &t, &l, &k) })
	return WatchCounts{Tries: uint64(t), Looks: uint64(l), Wakes: uint64(k)}
}

// set applies f to the running thread's flags; after Close it does nothing.
func (w *Watcher) set(f func(*C.couplet_watch)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.w != nil {
		f(w.w)
	}
}

// Close stops and joins the thread, and ends a Wait; call it before
// MPI_Finalize. Further calls do nothing.
func (w *Watcher) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.w == nil {
		return nil
	}
	C.couplet_watch_stop(w.w)
	w.w = nil
	return w.ev.Close()
}
