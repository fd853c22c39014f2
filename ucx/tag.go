package ucx

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

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

// RecvTagRuns is RecvTag into runs of buf rather than one span: the
// message's bytes fill buf[r[0]:r[0]+r[1]] for each run r in order (UCX's
// iov datatype), so a message packed from rows elsewhere lands straight in
// its rows. Every run must lie within buf; the runs' lengths sum to the
// longest message it takes.
func (w *Worker) RecvTagRuns(buf []byte, runs [][2]int64, tag, mask uint64) (*Request, error) {
	for _, r := range runs {
		if r[0] < 0 || r[1] < 0 || r[0]+r[1] > int64(len(buf)) {
			return nil, fmt.Errorf("ucx: tag_recv: run [%d, +%d) outside the %d-byte buffer", r[0], r[1], len(buf))
		}
	}
	return w.start("tag_recv", buf, func(h C.ucp_worker_h, p unsafe.Pointer, op *C.cu_op) {
		iov := (*C.ucp_dt_iov_t)(C.calloc(C.size_t(max(1, len(runs))), C.size_t(unsafe.Sizeof(C.ucp_dt_iov_t{}))))
		if iov == nil {
			C.cu_op_set(op, C.UCS_ERR_NO_MEMORY)
			return
		}
		op.iov = iov
		s := unsafe.Slice(iov, len(runs))
		for i, r := range runs {
			s[i].buffer = unsafe.Add(p, r[0])
			s[i].length = C.size_t(r[1])
		}
		C.cu_tag_recv_iov(h, C.size_t(len(runs)), C.ucp_tag_t(tag), C.ucp_tag_t(mask), op)
	})
}
