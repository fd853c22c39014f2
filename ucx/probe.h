// C helpers for tag probing (probe.go), kept apart from shim.h.
#ifndef COUPLET_UCX_PROBE_H
#define COUPLET_UCX_PROBE_H

#include "shim.h"

// cu_tag_probe removes the first unexpected message matching tag/mask from
// the worker's queue and reports its length and sender tag; NULL if none.
static inline ucp_tag_message_h cu_tag_probe(ucp_worker_h w, ucp_tag_t tag, ucp_tag_t mask, size_t *len, ucp_tag_t *stag) {
	ucp_tag_recv_info_t info;
	ucp_tag_message_h m = ucp_tag_probe_nb(w, tag, mask, 1, &info);
	if (m != NULL) {
		*len = info.length;
		*stag = info.sender_tag;
	}
	return m;
}

// cu_tag_msg_recv receives a probed message; like cu_tag_recv it always
// completes through the callback.
static inline void cu_tag_msg_recv(ucp_worker_h w, void *buf, size_t n, ucp_tag_message_h m, cu_op *op) {
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
	p.cb.recv = cu_recv_cb;
	p.user_data = op;
	cu_finish(op, ucp_tag_msg_recv_nbx(w, buf, n, m, &p));
}

#endif
