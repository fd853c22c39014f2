package mpi

/*
#include "helpers.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
)

// Datatype is a committed derived MPI datatype describing where one message's
// bytes lie in a buffer.
type Datatype struct {
	t      C.MPI_Datatype
	size   int64 // bytes of data the type carries
	extent int64 // bytes a buffer must span: the upper bound (a subarray's whole array)
}

// Size returns how many bytes of data one instance of the type carries.
func (d *Datatype) Size() int64 { return d.size }

// Extent returns how many bytes a buffer must span to hold one instance.
func (d *Datatype) Extent() int64 { return d.extent }

// Free releases the datatype. Operations already started with it still complete.
func (d *Datatype) Free() error {
	if d == nil || d.t == C.h_datatype_null() {
		return nil
	}
	return check(C.PMPI_Type_free(&d.t))
}

// NewSubarray describes the C-order sub-block subsizes at starts of an array
// of shape sizes whose elements are elemSize bytes each, ready for SendType
// and RecvType on a byte view of that array. Any dimension may exceed 2^31.
func NewSubarray(elemSize int, sizes, subsizes, starts []int64) (*Datatype, error) {
	nd := len(sizes)
	if elemSize <= 0 {
		return nil, fmt.Errorf("mpi: NewSubarray: element size %d", elemSize)
	}
	if nd == 0 || len(subsizes) != nd || len(starts) != nd {
		return nil, fmt.Errorf("mpi: NewSubarray: %d sizes, %d subsizes, %d starts", nd, len(subsizes), len(starts))
	}
	total := int64(elemSize)
	fits := true // whether MPI_Type_create_subarray's int arguments can hold it
	for i := range nd {
		if sizes[i] < 1 || subsizes[i] < 1 || starts[i] < 0 || starts[i] > sizes[i]-subsizes[i] {
			return nil, fmt.Errorf("mpi: NewSubarray: dim %d: start %d count %d outside size %d", i, starts[i], subsizes[i], sizes[i])
		}
		if total > math.MaxInt64/sizes[i] {
			return nil, errors.New("mpi: NewSubarray: array larger than 2^63 bytes")
		}
		total *= sizes[i]
		fits = fits && sizes[i] <= maxCount
	}
	elem, err := byteBlock(elemSize)
	if err != nil {
		return nil, err
	}
	defer freeType(elem)
	var t C.MPI_Datatype
	if fits {
		cs, csub, cst := make([]C.int, nd), make([]C.int, nd), make([]C.int, nd)
		for i := range nd {
			cs[i], csub[i], cst[i] = C.int(sizes[i]), C.int(subsizes[i]), C.int(starts[i])
		}
		err = check(C.PMPI_Type_create_subarray(C.int(nd), &cs[0], &csub[0], &cst[0], C.h_order_c(), elem, &t))
	} else {
		t, err = bigSubarray(elem, int64(elemSize), sizes, subsizes, starts, total)
	}
	if err != nil {
		return nil, err
	}
	return commitType(t)
}

// byteBlock returns a contiguous type of n bytes: one element of any type.
func byteBlock(n int) (C.MPI_Datatype, error) {
	var t C.MPI_Datatype
	err := check(C.PMPI_Type_contiguous(C.int(n), C.h_byte(), &t))
	return t, err
}

// bigSubarray builds the subarray type from nested strided vectors whose
// counts are split to fit an int, then places it at its start offset and
// resizes it to the whole array, as MPI_Type_create_subarray would.
func bigSubarray(elem C.MPI_Datatype, esize int64, sizes, subsizes, starts []int64, total int64) (C.MPI_Datatype, error) {
	nd := len(sizes)
	var null C.MPI_Datatype
	stride := esize
	offset := int64(0)
	cur, owned := elem, false
	for i := nd - 1; i >= 0; i-- {
		next, err := repeatType(subsizes[i], stride, cur)
		if owned {
			freeType(cur)
		}
		if err != nil {
			return null, err
		}
		cur, owned = next, true
		offset += starts[i] * stride
		stride *= sizes[i]
	}
	defer freeType(cur)
	lens := []C.int{1}
	displs := []C.MPI_Aint{C.MPI_Aint(offset)}
	var placed C.MPI_Datatype
	if err := check(C.PMPI_Type_create_hindexed(1, &lens[0], &displs[0], cur, &placed)); err != nil {
		return null, err
	}
	defer freeType(placed)
	var t C.MPI_Datatype
	err := check(C.PMPI_Type_create_resized(placed, 0, C.MPI_Aint(total), &t))
	return t, err
}

// commitType commits t and records its size and true extent.
func commitType(t C.MPI_Datatype) (*Datatype, error) {
	if err := check(C.PMPI_Type_commit(&t)); err != nil {
		freeType(t)
		return nil, err
	}
	var size, lb, ext, tlb, text C.MPI_Count
	err := check(C.PMPI_Type_size_x(t, &size))
	if err == nil {
		err = check(C.PMPI_Type_get_extent_x(t, &lb, &ext))
	}
	if err == nil {
		err = check(C.PMPI_Type_get_true_extent_x(t, &tlb, &text))
	}
	if err == nil && (lb < 0 || tlb < 0) {
		err = fmt.Errorf("mpi: datatype starts %d bytes before its buffer", int64(min(lb, tlb)))
	}
	if err != nil {
		freeType(t)
		return nil, err
	}
	// The buffer must cover the declared extent (for a subarray, the whole
	// array, which catches shape mismatches) and every byte actually moved.
	return &Datatype{t: t, size: int64(size), extent: int64(max(lb+ext, tlb+text))}, nil
}

// fitsIn checks that buf spans the datatype, so MPI never touches memory
// outside it.
func (d *Datatype) fitsIn(buf []byte) error {
	if d == nil || d.t == C.h_datatype_null() {
		return errors.New("mpi: nil or freed datatype")
	}
	if int64(len(buf)) < d.extent {
		return fmt.Errorf("mpi: buffer of %d bytes is smaller than the datatype's extent of %d bytes", len(buf), d.extent)
	}
	return nil
}

// SendType sends one instance of dt straight out of buf (a byte view of the
// caller's array) to dest with tag.
func SendType(c Comm, buf []byte, dt *Datatype, dest, tag int) error {
	if err := dt.fitsIn(buf); err != nil {
		return err
	}
	return check(C.PMPI_Send(bufPtr(buf), 1, dt.t, C.int(dest), C.int(tag), c.c))
}

// RecvType receives one instance of dt from source with tag straight into buf.
func RecvType(c Comm, buf []byte, dt *Datatype, source, tag int) (Status, error) {
	if err := dt.fitsIn(buf); err != nil {
		return Status{}, err
	}
	var st C.MPI_Status
	if err := check(C.PMPI_Recv(bufPtr(buf), 1, dt.t, C.int(source), C.int(tag), c.c, &st)); err != nil {
		return Status{}, err
	}
	return statusOf(&st)
}

// IsendType starts sending one instance of dt out of buf; buf stays pinned
// and must not change until the request completes.
func IsendType(c Comm, buf []byte, dt *Datatype, dest, tag int) (*Request, error) {
	if err := dt.fitsIn(buf); err != nil {
		return nil, err
	}
	q := newRequest(bufPtr(buf), false)
	if err := check(C.PMPI_Isend(bufPtr(buf), 1, dt.t, C.int(dest), C.int(tag), c.c, q.r)); err != nil {
		q.abandon()
		return nil, err
	}
	return q, nil
}

// IrecvType starts receiving one instance of dt into buf.
func IrecvType(c Comm, buf []byte, dt *Datatype, source, tag int) (*Request, error) {
	if err := dt.fitsIn(buf); err != nil {
		return nil, err
	}
	q := newRequest(bufPtr(buf), true)
	if err := check(C.PMPI_Irecv(bufPtr(buf), 1, dt.t, C.int(source), C.int(tag), c.c, q.r)); err != nil {
		q.abandon()
		return nil, err
	}
	return q, nil
}
