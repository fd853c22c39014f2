package ucx

/*
#include "shim.h"
*/
import "C"

import (
	"os"
	"sync"
	"sync/atomic"
	"unsafe"
)

// ThreadMode is the UCX thread mode of a worker.
type ThreadMode int

const (
	// ThreadSerialized (the default) lets any goroutine use the worker;
	// the binding serialises the calls with a mutex. Go moves goroutines
	// between OS threads, so this is the natural mode for Go callers.
	ThreadSerialized ThreadMode = iota
	// ThreadSingle is UCS_THREAD_MODE_SINGLE: UCX takes no locks. The
	// binding still serialises calls, so use it only when a single
	// goroutine on a locked OS thread (runtime.LockOSThread) drives the worker.
	ThreadSingle
	// ThreadMulti is UCS_THREAD_MODE_MULTI: UCX locks internally and the
	// binding adds no lock of its own.
	ThreadMulti
)

func (m ThreadMode) c() C.int {
	switch m {
	case ThreadSingle:
		return C.UCS_THREAD_MODE_SINGLE
	case ThreadMulti:
		return C.UCS_THREAD_MODE_MULTI
	}
	return C.UCS_THREAD_MODE_SERIALIZED
}

// Worker is a UCP worker: it owns endpoints and requests and makes
// progress on them. Its methods are safe for concurrent use.
type Worker struct {
	ctx  *Context
	mode ThreadMode
	// mu serialises UCX calls (shared under ThreadMulti, where UCX locks
	// itself) and keeps Close from destroying the worker under a call.
	mu  sync.RWMutex
	h   C.ucp_worker_h
	efd int
	// sleepers holds idle duplicates of efd in Go's network poller, one per waiter
	// at a time (wait.go); sleepClosed is set when the worker closes.
	sleepMu     sync.Mutex
	sleepers    []*os.File
	sleepClosed bool
	inThread    atomic.Bool // SleepInThread
	// pending holds started requests not yet finished, so that Close can
	// release them: UCX aborts when a worker dies with unreleased requests.
	pendMu  sync.Mutex
	pending map[*Request]struct{}
}

// NewWorker creates a worker on c with the given thread mode.
func (c *Context) NewWorker(mode ThreadMode) (*Worker, error) {
	ch, err := c.handle()
	if err != nil {
		return nil, err
	}
	w := &Worker{ctx: c, mode: mode, pending: map[*Request]struct{}{}}
	envMu.Lock() // the transports read their settings from the environment here
	restore := setEnv(c.env)
	err = statusErr("worker_create", C.cu_worker_create(ch, mode.c(), &w.h))
	restore()
	envMu.Unlock()
	if err != nil {
		return nil, err
	}
	var fd C.int
	if err := statusErr("worker_get_efd", C.ucp_worker_get_efd(w.h, &fd)); err != nil {
		C.ucp_worker_destroy(w.h)
		return nil, err
	}
	w.efd = int(fd)
	return w, nil
}

// lock takes the worker's lock and returns the handle, or ErrClosed.
// The caller must call unlock in both cases.
func (w *Worker) lock() (C.ucp_worker_h, error) {
	if w.mode == ThreadMulti {
		w.mu.RLock()
	} else {
		w.mu.Lock()
	}
	if w.h == nil {
		return nil, ErrClosed
	}
	return w.h, nil
}

func (w *Worker) unlock() {
	if w.mode == ThreadMulti {
		w.mu.RUnlock()
	} else {
		w.mu.Unlock()
	}
}

// Progress runs one round of ucp_worker_progress and reports how many
// events it handled (0 when the worker is closed).
func (w *Worker) Progress() int {
	h, err := w.lock()
	defer w.unlock()
	if err != nil {
		return 0
	}
	return int(C.ucp_worker_progress(h))
}

// Address returns the worker's address, to be handed to peers (through the
// KVS in production) for Connect.
func (w *Worker) Address() ([]byte, error) {
	h, err := w.lock()
	defer w.unlock()
	if err != nil {
		return nil, err
	}
	var a *C.ucp_address_t
	var n C.size_t
	if err := statusErr("worker_get_address", C.ucp_worker_get_address(h, &a, &n)); err != nil {
		return nil, err
	}
	defer C.ucp_worker_release_address(h, a)
	return C.GoBytes(unsafe.Pointer(a), C.int(n)), nil
}

// Signal wakes every goroutine sleeping in Wait on this worker so that it
// re-checks its condition (ucp_worker_signal, safe from any goroutine).
func (w *Worker) Signal() error {
	// ucp_worker_signal is thread safe; reading h still needs the lock.
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.h == nil {
		return ErrClosed
	}
	return statusErr("worker_signal", C.ucp_worker_signal(w.h))
}

// Close destroys the worker. Endpoints should be closed and requests
// completed first: requests still pending are released and fail with
// ErrClosed, and UCX releases what is left.
func (w *Worker) Close() error {
	// Exclusive in every mode: a call in progress (a Progress of another
	// goroutine) ends before the worker is destroyed, and later calls find
	// it closed.
	w.mu.Lock()
	defer w.mu.Unlock()
	h := w.h
	if h == nil {
		return nil
	}
	w.pendMu.Lock()
	for r := range w.pending {
		// No callback runs after ucp_request_free, so the C state can go.
		if r.op.req != nil {
			C.ucp_request_free(r.op.req)
		}
		r.abandon(ErrClosed)
	}
	w.pending = nil
	w.pendMu.Unlock()
	w.closeSleepers()
	C.ucp_worker_destroy(h)
	w.h = nil
	return nil
}
