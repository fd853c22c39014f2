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

// Pause stops the thread looking until Resume.
func (w *Watcher) Pause() { w.set(func(cw *C.couplet_watch) { C.couplet_watch_pause(cw, 1) }) }

// Resume lets the thread look again after Pause, starting from the shortest wait.
func (w *Watcher) Resume() { w.set(func(cw *C.couplet_watch) { C.couplet_watch_pause(cw, 0) }) }

// Rearm lets the thread look again after it saw a message.
func (w *Watcher) Rearm() { w.set(func(cw *C.couplet_watch) { C.couplet_watch_rearm(cw) }) }

// Counts reports how often the thread tried to look (once per wait that
// ended while it was neither paused nor fired) and how often it looked (the
// tries it was not kept out of MPI by another thread's MPI-IO call). After
// Close both are 0.
func (w *Watcher) Counts() (tries, looks uint64) {
	var t, l C.ulonglong
	w.set(func(cw *C.couplet_watch) { C.couplet_watch_counts(cw, &t, &l) })
	return uint64(t), uint64(l)
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
