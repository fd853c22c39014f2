package ucx

/*
#include "shim.h"
*/
import "C"

import "unsafe"

// TagMaskAll matches only the exact tag in RecvTag.
const TagMaskAll = ^uint64(0)

// SendTag starts sending buf to the peer with tag. Completion means buf
// may be reused.
func (e *Endpoint) SendTag(buf []byte, tag uint64) (*Request, error) {
	return e.op("tag_send", buf, func(ep C.ucp_ep_h, p unsafe.Pointer, op *C.cu_op) {
		C.cu_tag_send(ep, p, C.size_t(len(buf)), C.ucp_tag_t(tag), op)
	})
}

// RecvTag starts receiving into buf a message from any peer whose tag
// equals tag on the bits set in mask. Request.Info then gives the length
// and the sender's full tag; a longer message fails with StatusTruncated.
func (w *Worker) RecvTag(buf []byte, tag, mask uint64) (*Request, error) {
	return w.start("tag_recv", buf, func(h C.ucp_worker_h, p unsafe.Pointer, op *C.cu_op) {
		C.cu_tag_recv(h, p, C.size_t(len(buf)), C.ucp_tag_t(tag), C.ucp_tag_t(mask), op)
	})
}
