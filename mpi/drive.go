package mpi

/*
#include "helpers.h"
*/
import "C"

import "time"

// watchEvery spaces TestallFor's probes for watched messages (see
// h_testall_for): a watched message waits at most this much longer.
const watchEvery = 20 * time.Microsecond

// Watch names messages whose arrival ends a TestallFor early: those with
// Tag from any source on Comm.
type Watch struct {
	Comm Comm
	Tag  int
}

// TestallFor drives MPI progress on reqs for about budget and reports
// whether all of them completed. The polling loop (MPI_Testall until done
// or the budget is spent) runs in C, so a poll costs no cgo round trip:
// Open MPI moves a large message only inside MPI calls, fragment by
// fragment, and a Go loop of Test calls pays a cgo call per fragment.
// TestallFor never yields the CPU; the caller decides how to share it
// between calls. With a watch, it also returns, not done, as soon as a
// watched message is waiting: a caller that serves control messages can
// then drive data for long budgets without answering them late.
//
// A budget <= 0 makes one MPI_Testall call. Nil and already completed
// requests are skipped. When all complete, each request is completed as by
// Test (its buffer released, a receive's status kept for Wait); otherwise
// none is changed (MPI_Testall modifies nothing until all are done). When
// MPI reports an error, the failed requests are completed as failed, those
// MPI reports as still pending stay active, and the first error is
// returned; done then says whether any request is left active.
func TestallFor(reqs []*Request, budget time.Duration, watch *Watch) (done bool, err error) {
	var act []*Request
	for _, q := range reqs {
		if q != nil && q.active {
			act = append(act, q)
		}
	}
	if len(act) == 0 {
		return true, nil
	}
	// Go memory without Go pointers may be handed to C for one call.
	cr := make([]C.MPI_Request, len(act))
	for i, q := range act {
		cr[i] = *q.r
	}
	sts := make([]C.MPI_Status, len(act))
	var flag, watched C.int
	comm, tag := World().c, C.int(-1)
	if watch != nil {
		comm, tag = watch.Comm.c, C.int(watch.Tag)
	}
	rc := C.h_testall_for(C.int(len(act)), &cr[0], &sts[0], C.longlong(budget.Nanoseconds()), C.longlong(watchEvery.Nanoseconds()), comm, tag, &flag, &watched)
	if rc == C.MPI_SUCCESS && flag == 0 {
		return false, nil
	}
	if watched != 0 {
		return false, check(rc) // the probe failed; the requests are untouched
	}
	for i, q := range act {
		*q.r = cr[i]
	}
	if rc == C.MPI_SUCCESS {
		for i, q := range act {
			if e := q.complete(&sts[i], true); e != nil && err == nil {
				err = e
			}
		}
		return true, err
	}
	done = true
	for i, q := range act {
		e := rc
		if rc == C.MPI_ERR_IN_STATUS {
			e = sts[i].MPI_ERROR
		}
		switch {
		case e == C.MPI_ERR_PENDING:
			done = false // neither failed nor completed: still active
		case e != C.MPI_SUCCESS:
			q.complete(&sts[i], false)
			if err == nil {
				err = check(e)
			}
		default:
			if e := q.complete(&sts[i], true); e != nil && err == nil {
				err = e
			}
		}
	}
	return done, err
}
