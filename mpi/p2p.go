package mpi

/*
#include "helpers.h"
*/
import "C"

// Send sends buf to rank dest of c with tag, blocking until buf may be reused.
// More than 2^31 elements travel as one message of a derived type.
func Send[T Elem](c Comm, buf []T, dest, tag int) error {
	dt, n, owned, err := msgType(elemType[T](), int64(elemSize[T]()), int64(len(buf)))
	if err != nil {
		return err
	}
	if owned {
		defer freeType(dt)
	}
	return check(C.PMPI_Send(bufPtr(buf), n, dt, C.int(dest), C.int(tag), c.c))
}

// Recv receives a message from source (or AnySource) with tag (or AnyTag)
// into buf, which must be large enough for it.
func Recv[T Elem](c Comm, buf []T, source, tag int) (Status, error) {
	dt, n, owned, err := msgType(elemType[T](), int64(elemSize[T]()), int64(len(buf)))
	if err != nil {
		return Status{}, err
	}
	if owned {
		defer freeType(dt)
	}
	var st C.MPI_Status
	if err := check(C.PMPI_Recv(bufPtr(buf), n, dt, C.int(source), C.int(tag), c.c, &st)); err != nil {
		return Status{}, err
	}
	return statusOf(&st)
}

// Probe blocks until a message from source with tag can be received, and
// describes it without receiving it.
func Probe(c Comm, source, tag int) (Status, error) {
	var st C.MPI_Status
	if err := check(C.PMPI_Probe(C.int(source), C.int(tag), c.c, &st)); err != nil {
		return Status{}, err
	}
	return statusOf(&st)
}

// Iprobe reports whether a message from source with tag is waiting, and
// describes it if so. It never blocks.
func Iprobe(c Comm, source, tag int) (Status, bool, error) {
	var st C.MPI_Status
	var flag C.int
	rc := C.PMPI_Iprobe(C.int(source), C.int(tag), c.c, &flag, &st)
	return probed(rc, flag, &st)
}

// Poll is Iprobe for a loop that sleeps between looks. It never gives the
// CPU away: when ranks outnumber cores Open MPI yields inside an idle
// progress call, and on a crowded core a yielding process waits behind
// whatever computes (a millisecond or more) with the message it came for
// already there. And it looks twice, because Open MPI matches before it
// progresses: a message that arrived while the caller slept is only pulled
// in by a look that misses. Open MPI's yield setting is process-wide, so
// calls of Poll from several threads must not overlap.
func Poll(c Comm, source, tag int) (Status, bool, error) {
	var st C.MPI_Status
	var flag C.int
	rc := C.h_poll(C.int(source), C.int(tag), c.c, &flag, &st)
	return probed(rc, flag, &st)
}

// probed turns the outcome of a probe into Iprobe's results.
func probed(rc, flag C.int, st *C.MPI_Status) (Status, bool, error) {
	if err := check(rc); err != nil {
		return Status{}, false, err
	}
	if flag == 0 {
		return Status{}, false, nil
	}
	s, err := statusOf(st)
	return s, err == nil, err
}
