package mpi

/*
#include "helpers.h"
*/
import "C"

import (
	"fmt"
	"math"
)

// Nonblocking collectives: unlike the blocking ones, which spin inside MPI
// until every process arrives, the caller decides how to wait and can give
// up after a timeout.

// Ibarrier starts a barrier over c; the request completes once every process
// of c has started it. Unlike Barrier, a caller can give up waiting on it.
func Ibarrier(c Comm) (*Request, error) {
	q := newRequest(nil, false)
	if err := check(C.MPI_Ibarrier(c.c, q.r)); err != nil {
		q.abandon()
		return nil, err
	}
	return q, nil
}

// Iallreduce starts an Allreduce over c. send and recv must not be touched
// until the request completes; recv holds the result then.
func Iallreduce[T Elem](c Comm, send, recv []T, op Op) (*Request, error) {
	if len(recv) != len(send) || len(send) == 0 || int64(len(send)) > min(maxCount, math.MaxInt32) {
		return nil, fmt.Errorf("mpi: Iallreduce: send holds %d elements, recv %d", len(send), len(recv))
	}
	mop, err := op.c()
	if err != nil {
		return nil, err
	}
	q := newRequest(bufPtr(send), false)
	q.pin.Pin(bufPtr(recv))
	if err := check(C.MPI_Iallreduce(bufPtr(send), bufPtr(recv), C.int(len(send)), elemType[T](), mop, c.c, q.r)); err != nil {
		q.abandon()
		return nil, err
	}
	return q, nil
}
