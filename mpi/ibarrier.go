package mpi

/*
#include "helpers.h"
*/
import "C"

// Ibarrier starts a barrier over c; the request completes once every process
// of c has started it. Unlike Barrier, a caller can give up waiting on it.
func Ibarrier(c Comm) (*Request, error) {
	q := newRequest(nil, false)
	if err := check(C.PMPI_Ibarrier(c.c, q.r)); err != nil {
		q.abandon()
		return nil, err
	}
	return q, nil
}
