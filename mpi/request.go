package mpi

/*
#include "helpers.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"time"
	"unsafe"
)

// Request is a pending nonblocking operation. The buffer it uses stays pinned
// until Wait, Test or Waitall completes it; the caller must not touch the
// buffer before then.
type Request struct {
	r      *C.MPI_Request // its own allocation: cgo checks the whole object a pointer is in
	pin    runtime.Pinner
	active bool
	recv   bool // a receive: its status describes the message
	st     Status
}

// newRequest pins buf for the life of the request; starting the operation
// is left to the caller.
func newRequest(buf unsafe.Pointer, recv bool) *Request {
	q := &Request{r: new(C.MPI_Request), active: true, recv: recv}
	*q.r = C.h_request_null()
	if buf != nil {
		q.pin.Pin(buf)
	}
	return q
}

// abandon undoes newRequest when starting the operation failed.
func (q *Request) abandon() {
	q.active = false
	q.pin.Unpin()
}

// complete records the final status and releases the buffer; ok is false
// when the operation failed and its status means nothing.
func (q *Request) complete(st *C.MPI_Status, ok bool) error {
	q.active = false
	q.pin.Unpin()
	if !ok || !q.recv {
		return nil
	}
	s, err := statusOf(st)
	q.st = s
	return err
}

// Isend starts sending buf to dest with tag and returns at once.
func Isend[T Elem](c Comm, buf []T, dest, tag int) (*Request, error) {
	return istart(buf, false, func(dt C.MPI_Datatype, n C.int, r *C.MPI_Request) C.int {
		return C.PMPI_Isend(bufPtr(buf), n, dt, C.int(dest), C.int(tag), c.c, r)
	})
}

// Irecv starts receiving from source with tag into buf and returns at once.
func Irecv[T Elem](c Comm, buf []T, source, tag int) (*Request, error) {
	return istart(buf, true, func(dt C.MPI_Datatype, n C.int, r *C.MPI_Request) C.int {
		return C.PMPI_Irecv(bufPtr(buf), n, dt, C.int(source), C.int(tag), c.c, r)
	})
}

// istart pins buf, builds its message type and starts the operation.
func istart[T Elem](buf []T, recv bool, start func(C.MPI_Datatype, C.int, *C.MPI_Request) C.int) (*Request, error) {
	dt, n, owned, err := msgType(elemType[T](), int64(elemSize[T]()), int64(len(buf)))
	if err != nil {
		return nil, err
	}
	if owned {
		// MPI keeps the type alive until the pending operation completes.
		defer freeType(dt)
	}
	q := newRequest(bufPtr(buf), recv)
	if err := check(start(dt, n, q.r)); err != nil {
		q.abandon()
		return nil, err
	}
	return q, nil
}

// Active reports whether the operation is still pending: started and not
// yet completed by Wait, Test, Waitall, TestallFor or Cancel.
func (q *Request) Active() bool { return q.active }

// Wait blocks until the operation completes. For a receive the status
// describes the message; for a send it is empty. Waiting on a completed
// request returns its status again.
func (q *Request) Wait() (Status, error) {
	if !q.active {
		return q.st, nil
	}
	var st C.MPI_Status
	if err := check(C.PMPI_Wait(q.r, &st)); err != nil {
		q.complete(&st, false)
		return Status{}, err
	}
	err := q.complete(&st, true)
	return q.st, err
}

// Test completes the operation if it has finished, without blocking.
func (q *Request) Test() (done bool, st Status, err error) {
	if !q.active {
		return true, q.st, nil
	}
	var cst C.MPI_Status
	var flag C.int
	if err := check(C.PMPI_Test(q.r, &flag, &cst)); err != nil {
		q.complete(&cst, false)
		return true, Status{}, err
	}
	if flag == 0 {
		return false, Status{}, nil
	}
	err = q.complete(&cst, true)
	return true, q.st, err
}

// WaitTimeout waits like Wait but gives up after d, polling with sleeps that
// back off so that waiting ranks leave the cores to others. On timeout the
// request stays pending.
func (q *Request) WaitTimeout(d time.Duration) (Status, error) {
	deadline := time.Now().Add(d)
	pause := 20 * time.Microsecond
	for {
		done, st, err := q.Test()
		if done {
			return st, err
		}
		if time.Now().After(deadline) {
			return Status{}, fmt.Errorf("mpi: request not complete after %v", d)
		}
		time.Sleep(pause)
		pause = min(2*pause, 5*time.Millisecond)
	}
}

// Cancel cancels a pending operation (reliable for receives) and completes it.
func (q *Request) Cancel() error {
	if !q.active {
		return nil
	}
	if err := check(C.PMPI_Cancel(q.r)); err != nil {
		return err
	}
	var st C.MPI_Status
	err := check(C.PMPI_Wait(q.r, &st))
	q.complete(&st, false)
	return err
}

// Waitall blocks until every request completes (nil and completed entries
// are skipped) and returns the first error. Each request's status is then
// available from its Wait.
func Waitall(reqs []*Request) error {
	var act []*Request
	for _, q := range reqs {
		if q != nil && q.active {
			act = append(act, q)
		}
	}
	if len(act) == 0 {
		return nil
	}
	cr := make([]C.MPI_Request, len(act))
	for i, q := range act {
		cr[i] = *q.r
	}
	sts := make([]C.MPI_Status, len(act))
	rc := C.h_waitall(C.int(len(act)), &cr[0], &sts[0])
	var first error
	for i, q := range act {
		*q.r = cr[i]
		e := C.int(C.MPI_SUCCESS)
		if rc == C.MPI_ERR_IN_STATUS {
			e = sts[i].MPI_ERROR
		} else if rc != C.MPI_SUCCESS {
			e = rc
		}
		switch {
		case e == C.MPI_ERR_PENDING:
			continue // neither failed nor completed: still active
		case e != C.MPI_SUCCESS:
			q.complete(&sts[i], false)
			if first == nil {
				first = check(e)
			}
		default:
			if err := q.complete(&sts[i], true); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}
