// Small C helpers for the ucx binding. UCX invokes completion and error
// callbacks from inside its own calls, possibly on its async thread; the
// callbacks here never call Go: they only record the outcome in C memory,
// which Go reads with atomic loads.
#ifndef COUPLET_UCX_SHIM_H
#define COUPLET_UCX_SHIM_H

#include <stdlib.h>
#include <string.h>
#include <ucp/api/ucp.h>

// cu_op is the C-side state of one nonblocking operation.
typedef struct cu_op {
	int done;            // set last, with release order
	ucs_status_t status; // valid once done
	size_t length;       // received length (tag receives)
	ucp_tag_t tag;       // sender tag (tag receives)
	void *req;           // UCX request to free, or NULL
	ucp_dt_iov_t *iov;   // the runs of an iov receive, freed with the op
} cu_op;

// cu_ep_state records an endpoint's asynchronous failure.
typedef struct cu_ep_state {
	int failed;
	ucs_status_t status;
} cu_ep_state;

static inline cu_op *cu_op_new(void) { return (cu_op *)calloc(1, sizeof(cu_op)); }

static inline void cu_op_free(cu_op *op) {
	free(op->iov);
	free(op);
}

static inline int cu_op_done(cu_op *op) { return __atomic_load_n(&op->done, __ATOMIC_ACQUIRE); }

static inline void cu_op_set(cu_op *op, ucs_status_t st) {
	op->status = st;
	__atomic_store_n(&op->done, 1, __ATOMIC_RELEASE);
}

static void cu_send_cb(void *req, ucs_status_t st, void *ud) { cu_op_set((cu_op *)ud, st); }

static void cu_recv_cb(void *req, ucs_status_t st, const ucp_tag_recv_info_t *info, void *ud) {
	cu_op *op = (cu_op *)ud;
	if (st == UCS_OK && info != NULL) {
		op->length = info->length;
		op->tag = info->sender_tag;
	}
	cu_op_set(op, st);
}

// cu_finish records what a *_nbx call returned: immediate success, an
// immediate error, or a request whose callback will fire later.
static inline void cu_finish(cu_op *op, ucs_status_ptr_t r) {
	if (r == NULL) {
		cu_op_set(op, UCS_OK);
	} else if (UCS_PTR_IS_ERR(r)) {
		cu_op_set(op, UCS_PTR_STATUS(r));
	} else {
		op->req = r;
	}
}

static inline void cu_param_send(ucp_request_param_t *p, cu_op *op) {
	memset(p, 0, sizeof(*p));
	p->op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
	p->cb.send = cu_send_cb;
	p->user_data = op;
}

static inline void cu_tag_send(ucp_ep_h ep, void *buf, size_t n, ucp_tag_t tag, cu_op *op) {
	ucp_request_param_t p;
	cu_param_send(&p, op);
	cu_finish(op, ucp_tag_send_nbx(ep, buf, n, tag, &p));
}

// cu_tag_recv always completes through the callback (NO_IMM_CMPL): with
// immediate completion, UCX 1.13 sometimes reported length 0 in recv_info
// for a message that was already waiting (seen over sm).
static inline void cu_tag_recv(ucp_worker_h w, void *buf, size_t n, ucp_tag_t tag, ucp_tag_t mask, cu_op *op) {
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
	p.cb.recv = cu_recv_cb;
	p.user_data = op;
	cu_finish(op, ucp_tag_recv_nbx(w, buf, n, tag, mask, &p));
}

// cu_tag_recv_iov is cu_tag_recv into the n runs of op->iov, in order
// (UCX's iov datatype).
static inline void cu_tag_recv_iov(ucp_worker_h w, size_t n, ucp_tag_t tag, ucp_tag_t mask, cu_op *op) {
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FLAG_NO_IMM_CMPL |
	                 UCP_OP_ATTR_FIELD_DATATYPE;
	p.cb.recv = cu_recv_cb;
	p.user_data = op;
	p.datatype = ucp_dt_make_iov();
	cu_finish(op, ucp_tag_recv_nbx(w, op->iov, n, tag, mask, &p));
}

static inline void cu_put(ucp_ep_h ep, void *buf, size_t n, uint64_t raddr, ucp_rkey_h rk, cu_op *op) {
	ucp_request_param_t p;
	cu_param_send(&p, op);
	cu_finish(op, ucp_put_nbx(ep, buf, n, raddr, rk, &p));
}

static inline void cu_get(ucp_ep_h ep, void *buf, size_t n, uint64_t raddr, ucp_rkey_h rk, cu_op *op) {
	ucp_request_param_t p;
	cu_param_send(&p, op);
	cu_finish(op, ucp_get_nbx(ep, buf, n, raddr, rk, &p));
}

static inline void cu_ep_flush(ucp_ep_h ep, cu_op *op) {
	ucp_request_param_t p;
	cu_param_send(&p, op);
	cu_finish(op, ucp_ep_flush_nbx(ep, &p));
}

static inline void cu_worker_flush(ucp_worker_h w, cu_op *op) {
	ucp_request_param_t p;
	cu_param_send(&p, op);
	cu_finish(op, ucp_worker_flush_nbx(w, &p));
}

static inline void cu_ep_close(ucp_ep_h ep, int force, cu_op *op) {
	ucp_request_param_t p;
	cu_param_send(&p, op);
	p.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
	p.flags = force ? UCP_EP_CLOSE_FLAG_FORCE : 0;
	cu_finish(op, ucp_ep_close_nbx(ep, &p));
}

static void cu_ep_err_cb(void *arg, ucp_ep_h ep, ucs_status_t st) {
	cu_ep_state *s = (cu_ep_state *)arg;
	s->status = st;
	__atomic_store_n(&s->failed, 1, __ATOMIC_RELEASE);
}

static inline int cu_ep_failed(cu_ep_state *s) { return __atomic_load_n(&s->failed, __ATOMIC_ACQUIRE); }

static inline ucs_status_t cu_ep_create(ucp_worker_h w, const void *addr, int peer, cu_ep_state *s, ucp_ep_h *ep) {
	ucp_ep_params_t p;
	memset(&p, 0, sizeof(p));
	p.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
	               UCP_EP_PARAM_FIELD_ERR_HANDLER;
	p.address = (const ucp_address_t *)addr;
	p.err_mode = peer ? UCP_ERR_HANDLING_MODE_PEER : UCP_ERR_HANDLING_MODE_NONE;
	p.err_handler.cb = cu_ep_err_cb;
	p.err_handler.arg = s;
	return ucp_ep_create(w, &p, ep);
}

static inline ucs_status_t cu_init(ucp_config_t *cfg, ucp_context_h *ctx) {
	ucp_params_t p;
	memset(&p, 0, sizeof(p));
	p.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
	p.features = UCP_FEATURE_TAG | UCP_FEATURE_RMA | UCP_FEATURE_WAKEUP;
	p.mt_workers_shared = 1;
	return ucp_init(&p, cfg, ctx);
}

static inline ucs_status_t cu_worker_create(ucp_context_h ctx, int mode, ucp_worker_h *w) {
	ucp_worker_params_t p;
	memset(&p, 0, sizeof(p));
	p.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	p.thread_mode = (ucs_thread_mode_t)mode;
	return ucp_worker_create(ctx, &p, w);
}

// cu_mem_map registers buf (allocating it when buf is NULL) and reports
// the mapped range.
static inline ucs_status_t cu_mem_map(ucp_context_h ctx, void *buf, size_t n, ucp_mem_h *memh, void **addr) {
	ucp_mem_map_params_t p;
	memset(&p, 0, sizeof(p));
	p.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
	p.address = buf;
	p.length = n;
	p.flags = buf == NULL ? UCP_MEM_MAP_ALLOCATE : 0;
	ucs_status_t st = ucp_mem_map(ctx, &p, memh);
	if (st != UCS_OK) {
		return st;
	}
	ucp_mem_attr_t a;
	memset(&a, 0, sizeof(a));
	a.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS;
	st = ucp_mem_query(*memh, &a);
	if (st != UCS_OK) {
		ucp_mem_unmap(ctx, *memh);
		return st;
	}
	*addr = a.address;
	return UCS_OK;
}

#endif
