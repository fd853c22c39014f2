package ucx

/*
#include "probe.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Probed is a tagged message that Probe took off the worker's queue of
// unexpected messages. Its data is still with UCX until Recv fetches it;
// every Probed message must be received, or UCX holds it until the worker
// is destroyed.
type Probed struct {
	w      *Worker
	h      C.ucp_tag_message_h
	Length int    // the message's size in bytes
	Tag    uint64 // the sender's full tag
}

// Probe looks for a message that has arrived (ucp_tag_probe_nb with
// remove=1) whose tag equals tag on the bits set in mask. It returns nil
// when none is waiting. Probe does not progress the worker: call Progress
// first so that arrived messages are seen.
func (w *Worker) Probe(tag, mask uint64) (*Probed, error) {
	h, err := w.lock()
	defer w.unlock()
	if err != nil {
		return nil, err
	}
	var n C.size_t
	var stag C.ucp_tag_t
	m := C.cu_tag_probe(h, C.ucp_tag_t(tag), C.ucp_tag_t(mask), &n, &stag)
	if m == nil {
		return nil, nil
	}
	return &Probed{w: w, h: m, Length: int(n), Tag: uint64(stag)}, nil
}

// Recv starts receiving the probed message into buf (ucp_tag_msg_recv_nbx),
// which should hold Length bytes; a shorter buf fails with StatusTruncated.
// Request.Info reports the length and tag once it completes.
func (m *Probed) Recv(buf []byte) (*Request, error) {
	if m.h == nil {
		return nil, fmt.Errorf("ucx: tag_msg_recv: message already received")
	}
	h := m.h
	m.h = nil
	return m.w.start("tag_msg_recv", buf, func(w C.ucp_worker_h, p unsafe.Pointer, op *C.cu_op) {
		C.cu_tag_msg_recv(w, p, C.size_t(len(buf)), h, op)
	})
}
