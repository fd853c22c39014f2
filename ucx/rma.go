package ucx

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Put starts writing local to the peer's registered memory at address
// remote (within the region rk was packed for). Completion means local may
// be reused; Flush makes the data visible at the peer.
func (e *Endpoint) Put(local []byte, remote uint64, rk *RemoteKey) (*Request, error) {
	if err := rk.check(e); err != nil {
		return nil, err
	}
	return e.op("put", local, func(ep C.ucp_ep_h, p unsafe.Pointer, op *C.cu_op) {
		C.cu_put(ep, p, C.size_t(len(local)), C.uint64_t(remote), rk.h, op)
	})
}

// Get starts reading len(local) bytes of the peer's registered memory at
// address remote into local.
func (e *Endpoint) Get(local []byte, remote uint64, rk *RemoteKey) (*Request, error) {
	if err := rk.check(e); err != nil {
		return nil, err
	}
	return e.op("get", local, func(ep C.ucp_ep_h, p unsafe.Pointer, op *C.cu_op) {
		C.cu_get(ep, p, C.size_t(len(local)), C.uint64_t(remote), rk.h, op)
	})
}

func (k *RemoteKey) check(e *Endpoint) error {
	switch {
	case k == nil || k.h == nil:
		return fmt.Errorf("ucx: rma: remote key missing or destroyed")
	case k.ep != e:
		return fmt.Errorf("ucx: rma: remote key was unpacked on another endpoint")
	}
	return nil
}

// Flush starts flushing every endpoint of the worker.
func (w *Worker) Flush() (*Request, error) {
	return w.start("worker_flush", nil, func(h C.ucp_worker_h, _ unsafe.Pointer, op *C.cu_op) { C.cu_worker_flush(h, op) })
}
