package mpi

/*
#include "helpers.h"
*/
import "C"

// Wildcards for receives and probes.
const (
	AnySource = int(C.MPI_ANY_SOURCE) // receive from any rank
	AnyTag    = int(C.MPI_ANY_TAG)    // receive with any tag
)

// Status describes a received or probed message.
type Status struct {
	Source int   // rank of the sender
	Tag    int   // tag of the message
	Count  int64 // bytes received (or, for a probe, bytes pending)
}

// Elems returns how many elements of elemSize bytes the message holds.
func (s Status) Elems(elemSize int) int64 {
	if elemSize <= 0 {
		return 0
	}
	return s.Count / int64(elemSize)
}

// statusOf converts a C status; the byte count is 64-bit, so messages larger
// than 2 GiB report their true size.
func statusOf(st *C.MPI_Status) (Status, error) {
	var n C.MPI_Count
	if err := check(C.h_status_bytes(st, &n)); err != nil {
		return Status{}, err
	}
	return Status{Source: int(st.MPI_SOURCE), Tag: int(st.MPI_TAG), Count: int64(n)}, nil
}
