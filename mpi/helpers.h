// C helpers for the mpi package: MPI handle macros are not visible to cgo,
// so each one is wrapped in a tiny static function.
#ifndef COUPLET_MPI_HELPERS_H
#define COUPLET_MPI_HELPERS_H
#include <mpi.h>
#include <stdbool.h>
#include <time.h>

static inline MPI_Request h_request_null(void) { return MPI_REQUEST_NULL; }
static inline MPI_Datatype h_datatype_null(void) { return MPI_DATATYPE_NULL; }
static inline MPI_Datatype h_byte(void) { return MPI_BYTE; }
static inline MPI_Datatype h_int8(void) { return MPI_INT8_T; }
static inline MPI_Datatype h_uint8(void) { return MPI_UINT8_T; }
static inline MPI_Datatype h_int16(void) { return MPI_INT16_T; }
static inline MPI_Datatype h_uint16(void) { return MPI_UINT16_T; }
static inline MPI_Datatype h_int32(void) { return MPI_INT32_T; }
static inline MPI_Datatype h_uint32(void) { return MPI_UINT32_T; }
static inline MPI_Datatype h_int64(void) { return MPI_INT64_T; }
static inline MPI_Datatype h_uint64(void) { return MPI_UINT64_T; }
static inline MPI_Datatype h_float(void) { return MPI_FLOAT; }
static inline MPI_Datatype h_double(void) { return MPI_DOUBLE; }
static inline MPI_Op h_op_sum(void) { return MPI_SUM; }
static inline MPI_Op h_op_min(void) { return MPI_MIN; }
static inline MPI_Op h_op_max(void) { return MPI_MAX; }
static inline int h_order_c(void) { return MPI_ORDER_C; }

// h_appnum reads the MPI_APPNUM attribute of MPI_COMM_WORLD.
static inline int h_appnum(int *value, int *flag) {
	int *v = NULL;
	int rc = PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, flag);
	if (rc == MPI_SUCCESS && *flag) *value = *v;
	return rc;
}

// h_tag_ub reads the MPI_TAG_UB attribute of MPI_COMM_WORLD.
static inline int h_tag_ub(int *value, int *flag) {
	int *v = NULL;
	int rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, flag);
	if (rc == MPI_SUCCESS && *flag) *value = *v;
	return rc;
}

// h_status_bytes reports how many bytes a status describes.
static inline int h_status_bytes(MPI_Status *st, MPI_Count *n) {
	return PMPI_Get_elements_x(st, MPI_BYTE, n);
}

static inline int h_waitall(int n, MPI_Request *reqs, MPI_Status *sts) {
	return PMPI_Waitall(n, reqs, sts);
}

// Open MPI's switch for giving the CPU away in an idle progress call (set
// when ranks outnumber cores). Weak, so another MPI leaves it NULL.
extern bool opal_progress_set_yield_when_idle(bool) __attribute__((weak));

// h_testall_for calls MPI_Testall until all n requests are complete,
// budget_ns nanoseconds have passed (one call when budget_ns <= 0) or, when
// watch_tag >= 0, a message with that tag is waiting on comm (*watched is
// then 1, as it is when the probe fails), so that polling MPI progress
// costs no cgo round trip per poll. It never yields itself; Open MPI's
// progress inside Testall yields when idle where ranks outnumber cores, once
// per round, as MPI_Waitall's does.
//
// The watch is probed at most every probe_ns, not every round: a round that
// moves one 32 KiB fragment takes a few microseconds, and an any-source
// probe with its own progress call each round cost as much again, which
// slowed large transfers by a fifth. A control message then waits at most
// probe_ns longer to be noticed.
static inline int h_testall_for(int n, MPI_Request *reqs, MPI_Status *sts, long long budget_ns, long long probe_ns, MPI_Comm comm, int watch_tag, int *flag, int *watched) {
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	long long probed = 0; // ns since t0 of the last probe
	*watched = 0;
	for (;;) {
		int rc = PMPI_Testall(n, reqs, flag, sts);
		if (rc != MPI_SUCCESS || *flag || budget_ns <= 0) return rc;
		clock_gettime(CLOCK_MONOTONIC, &t);
		long long now = (long long)(t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec);
		if (watch_tag >= 0 && now - probed >= probe_ns) {
			// Only Testall's progress may yield when idle, as one
			// progress call per round of MPI_Waitall does: a second
			// yield per round doubled the context switches of ranks that
			// outnumber the cores.
			MPI_Status st;
			bool prev = false;
			probed = now;
			if (opal_progress_set_yield_when_idle) prev = opal_progress_set_yield_when_idle(false);
			rc = PMPI_Iprobe(MPI_ANY_SOURCE, watch_tag, comm, watched, &st);
			if (opal_progress_set_yield_when_idle) opal_progress_set_yield_when_idle(prev);
			if (rc != MPI_SUCCESS) *watched = 1;
			if (*watched) return rc;
		}
		if (now >= budget_ns) return rc;
	}
}

// h_poll is MPI_Iprobe that never yields the CPU, and looks a second time
// after a miss: Open MPI's ob1 matches first and progresses after, so a
// message that arrived while the caller slept is only pulled in by the miss.
static inline int h_poll(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *st) {
	bool prev = false;
	if (opal_progress_set_yield_when_idle) prev = opal_progress_set_yield_when_idle(false);
	int rc = PMPI_Iprobe(source, tag, comm, flag, st);
	if (rc == MPI_SUCCESS && !*flag) rc = PMPI_Iprobe(source, tag, comm, flag, st);
	if (opal_progress_set_yield_when_idle) opal_progress_set_yield_when_idle(prev);
	return rc;
}
#endif
