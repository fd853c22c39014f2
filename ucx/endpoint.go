package ucx

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"
	"time"
	"unsafe"
)

// Endpoint is a connection from a worker to a peer worker. Errors on it
// (peer gone, unreachable) are reported by its requests and by Err.
type Endpoint struct {
	w     *Worker
	h     C.ucp_ep_h
	state *C.cu_ep_state // C memory: the error handler writes it
}

// Connect creates an endpoint to the worker whose Address is addr, with
// the context's ErrMode.
func (w *Worker) Connect(addr []byte) (*Endpoint, error) {
	if len(addr) == 0 {
		return nil, fmt.Errorf("ucx: connect: empty worker address")
	}
	e := &Endpoint{w: w, state: (*C.cu_ep_state)(C.calloc(1, C.sizeof_cu_ep_state))}
	h, err := w.lock()
	if err == nil {
		err = statusErr("ep_create", C.cu_ep_create(h, unsafe.Pointer(&addr[0]), C.int(w.ctx.errMode), e.state, &e.h))
	}
	w.unlock()
	if err != nil {
		C.free(unsafe.Pointer(e.state))
		return nil, err
	}
	return e, nil
}

// Worker returns the worker the endpoint belongs to.
func (e *Endpoint) Worker() *Worker { return e.w }

// Err returns the asynchronous error reported for the endpoint, if any.
func (e *Endpoint) Err() error {
	if e.state == nil {
		return ErrClosed
	}
	if C.cu_ep_failed(e.state) == 0 {
		return nil
	}
	return statusErr("endpoint", e.state.status)
}

// Flush starts flushing every operation issued on the endpoint: when the
// request completes, puts are visible at the peer.
func (e *Endpoint) Flush() (*Request, error) {
	return e.op("ep_flush", nil, func(ep C.ucp_ep_h, _ unsafe.Pointer, op *C.cu_op) { C.cu_ep_flush(ep, op) })
}

// op starts an endpoint operation on buf.
func (e *Endpoint) op(what string, buf []byte, run func(ep C.ucp_ep_h, p unsafe.Pointer, op *C.cu_op)) (*Request, error) {
	if e.h == nil {
		return nil, ErrClosed
	}
	if err := e.Err(); err != nil {
		return nil, fmt.Errorf("ucx: %s: %w", what, err)
	}
	return e.w.start(what, buf, func(_ C.ucp_worker_h, p unsafe.Pointer, op *C.cu_op) { run(e.h, p, op) })
}

// Close closes the endpoint, flushing it first unless it has failed (then
// it is force-closed), and waits up to d for the close to complete.
func (e *Endpoint) Close(d time.Duration) error {
	if e.h == nil {
		return nil
	}
	force := C.int(0)
	if e.Err() != nil {
		force = 1
	}
	ep := e.h
	r, err := e.w.start("ep_close", nil, func(_ C.ucp_worker_h, _ unsafe.Pointer, op *C.cu_op) { C.cu_ep_close(ep, force, op) })
	e.h = nil
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		err = r.WaitContext(ctx)
		cancel()
	}
	if force == 1 || err == nil {
		// After a force close UCX no longer calls the error handler.
		C.free(unsafe.Pointer(e.state))
		e.state = nil
	}
	return err
}
