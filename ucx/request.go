package ucx

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"time"
	"unsafe"
)

// Request is a pending nonblocking operation. Any Go buffer it uses stays
// pinned until the request completes (Test, Wait or Done observes it); the
// caller must not touch the buffer before then.
type Request struct {
	w        *Worker
	what     string
	op       *C.cu_op // C memory: UCX callbacks write it
	pin      runtime.Pinner
	finished bool
	err      error
	length   int
	tag      uint64
}

// start prepares a request for an operation on buf (may be empty), pinning
// buf's Go memory. run performs the UCX call under the worker's lock.
func (w *Worker) start(what string, buf []byte, run func(h C.ucp_worker_h, p unsafe.Pointer, op *C.cu_op)) (*Request, error) {
	r := &Request{w: w, what: what, op: C.cu_op_new()}
	if r.op == nil {
		return nil, fmt.Errorf("ucx: %s: out of C memory", what)
	}
	var p unsafe.Pointer
	if len(buf) > 0 {
		p = unsafe.Pointer(unsafe.SliceData(buf))
		r.pin.Pin(p) // a no-op for C memory such as Memory.Bytes
	}
	h, err := w.lock()
	if err != nil {
		w.unlock()
		r.pin.Unpin()
		C.cu_op_free(r.op)
		return nil, err
	}
	run(h, p, r.op)
	w.pendMu.Lock()
	w.pending[r] = struct{}{}
	w.pendMu.Unlock()
	w.unlock()
	if r.Done() && r.err != nil {
		return nil, r.err // failed at once: no request to hand back
	}
	return r, nil
}

// abandon ends a request whose worker is closing; UCX has released it.
// The caller holds pendMu.
func (r *Request) abandon(err error) {
	r.finished = true
	r.err = err
	C.cu_op_free(r.op)
	r.op = nil
	r.pin.Unpin()
}

// finish releases the UCX request, the C state and the pin once the
// callback (or the immediate result) has been seen. The state change
// happens under pendMu so that it cannot race with Worker.Close.
func (r *Request) finish() {
	w := r.w
	w.pendMu.Lock()
	if r.finished {
		w.pendMu.Unlock()
		return
	}
	delete(w.pending, r)
	r.finished = true
	op := r.op
	r.op = nil
	w.pendMu.Unlock()

	r.err = statusErr(r.what, op.status)
	r.length = int(op.length)
	r.tag = uint64(op.tag)
	if op.req != nil {
		if _, err := w.lock(); err == nil { // a closed worker freed it already
			C.ucp_request_free(op.req)
		}
		w.unlock()
	}
	C.cu_op_free(op)
	r.pin.Unpin()
}

// Done reports whether the request has completed, without progressing the
// worker. After true, Err and Info are valid.
func (r *Request) Done() bool {
	r.w.pendMu.Lock()
	finished, op := r.finished, r.op
	ready := finished || C.cu_op_done(op) != 0
	r.w.pendMu.Unlock()
	if ready && !finished {
		r.finish()
	}
	return ready
}

// Err is the outcome of a completed request (nil while it is pending).
func (r *Request) Err() error { return r.err }

// Info returns the received length and the sender's tag of a completed
// tag receive.
func (r *Request) Info() (n int, tag uint64) { return r.length, r.tag }

// Test progresses the worker once and reports whether the request has
// completed, with its error.
func (r *Request) Test() (bool, error) {
	if !r.Done() {
		r.w.Progress()
	}
	if !r.Done() {
		return false, nil
	}
	return true, r.err
}

// Wait waits for completion, sleeping on the worker's event fd, and fails
// with an error wrapping ErrTimeout after d. On timeout the request stays
// pending: wait again or Cancel it.
func (r *Request) Wait(d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return r.WaitContext(ctx)
}

// WaitContext is Wait bounded by ctx.
func (r *Request) WaitContext(ctx context.Context) error {
	if err := r.w.Wait(ctx, r.Done); err != nil {
		return fmt.Errorf("ucx: %s not complete: %w", r.what, err)
	}
	return r.err
}

// Cancel asks UCX to cancel a pending request (ucp_request_cancel) and
// waits up to d for it to complete, normally with StatusCanceled.
func (r *Request) Cancel(d time.Duration) error {
	if r.Done() {
		return nil
	}
	h, err := r.w.lock()
	r.w.pendMu.Lock()
	if err == nil && !r.finished && r.op.req != nil {
		C.ucp_request_cancel(h, r.op.req)
	}
	r.w.pendMu.Unlock()
	r.w.unlock()
	if err != nil {
		return err
	}
	err = r.Wait(d)
	if IsStatus(err, StatusCanceled) {
		return nil
	}
	return err
}

// WaitAll waits until every request completes or d passes, and returns the
// first error among them.
func WaitAll(w *Worker, reqs []*Request, d time.Duration) error {
	all := func() bool {
		for _, r := range reqs {
			if r != nil && !r.Done() {
				return false
			}
		}
		return true
	}
	if err := w.WaitTimeout(d, all); err != nil {
		return err
	}
	for _, r := range reqs {
		if r != nil && r.err != nil {
			return r.err
		}
	}
	return nil
}
