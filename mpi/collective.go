package mpi

/*
#include "helpers.h"
*/
import "C"

import (
	"fmt"
	"math"
)

// Barrier blocks until every process of c has called it.
func Barrier(c Comm) error { return check(C.PMPI_Barrier(c.c)) }

// Bcast copies buf on root into buf on every other process of c.
func Bcast[T Elem](c Comm, buf []T, root int) error {
	dt, n, owned, err := msgType(elemType[T](), int64(elemSize[T]()), int64(len(buf)))
	if err != nil {
		return err
	}
	if owned {
		defer freeType(dt)
	}
	return check(C.PMPI_Bcast(bufPtr(buf), n, dt, C.int(root), c.c))
}

// Gather collects every process's send (all of the same length) into recv on
// root, in rank order. recv must hold Size()*len(send) elements on root and is
// ignored elsewhere.
func Gather[T Elem](c Comm, send, recv []T, root int) error {
	if c.Rank() == root && int64(len(recv)) < int64(c.Size())*int64(len(send)) {
		return fmt.Errorf("mpi: Gather: recv holds %d elements, need %d", len(recv), c.Size()*len(send))
	}
	// A large send is one element of a derived type whose extent is the
	// whole block, so rank i's block lands at i*len(send) either way.
	dt, n, owned, err := msgType(elemType[T](), int64(elemSize[T]()), int64(len(send)))
	if err != nil {
		return err
	}
	if owned {
		defer freeType(dt)
	}
	return check(C.PMPI_Gather(bufPtr(send), n, dt, bufPtr(recv), n, dt, C.int(root), c.c))
}

// Allgather collects every process's send (all of the same length) into recv
// on every process, in rank order. recv must hold Size()*len(send) elements.
func Allgather[T Elem](c Comm, send, recv []T) error {
	if int64(len(recv)) < int64(c.Size())*int64(len(send)) {
		return fmt.Errorf("mpi: Allgather: recv holds %d elements, need %d", len(recv), c.Size()*len(send))
	}
	dt, n, owned, err := msgType(elemType[T](), int64(elemSize[T]()), int64(len(send)))
	if err != nil {
		return err
	}
	if owned {
		defer freeType(dt)
	}
	return check(C.PMPI_Allgather(bufPtr(send), n, dt, bufPtr(recv), n, dt, c.c))
}

// Allgatherv collects send from every process into recv on every process:
// rank r contributes counts[r] elements, placed after those of lower ranks.
func Allgatherv[T Elem](c Comm, send, recv []T, counts []int) error {
	size, rank := c.Size(), c.Rank()
	if len(counts) != size {
		return fmt.Errorf("mpi: Allgatherv: %d counts for %d processes", len(counts), size)
	}
	if counts[rank] != len(send) {
		return fmt.Errorf("mpi: Allgatherv: counts[%d]=%d but send holds %d", rank, counts[rank], len(send))
	}
	displs := make([]int64, size)
	var total int64
	large := false
	for r, n := range counts {
		if n < 0 {
			return fmt.Errorf("mpi: Allgatherv: negative count %d for rank %d", n, r)
		}
		displs[r] = total
		total += int64(n)
		large = large || int64(n) > maxCount || displs[r] > maxCount
	}
	if int64(len(recv)) < total {
		return fmt.Errorf("mpi: Allgatherv: recv holds %d elements, need %d", len(recv), total)
	}
	if large {
		// Counts and displacements are ints in MPI-3: broadcast each block
		// with its own large-count type instead.
		copy(recv[displs[rank]:], send)
		for r := range size {
			if err := Bcast(c, recv[displs[r]:displs[r]+int64(counts[r])], r); err != nil {
				return err
			}
		}
		return nil
	}
	cc := make([]C.int, size)
	cd := make([]C.int, size)
	for r := range size {
		cc[r], cd[r] = C.int(counts[r]), C.int(displs[r])
	}
	return check(C.PMPI_Allgatherv(bufPtr(send), C.int(len(send)), elemType[T](),
		bufPtr(recv), &cc[0], &cd[0], elemType[T](), c.c))
}

// Op is a reduction operation.
type Op int

// Reduction operations.
const (
	Sum Op = iota // element-wise sum
	Min           // element-wise minimum
	Max           // element-wise maximum
)

func (o Op) c() (C.MPI_Op, error) {
	switch o {
	case Sum:
		return C.h_op_sum(), nil
	case Min:
		return C.h_op_min(), nil
	case Max:
		return C.h_op_max(), nil
	}
	return nil, fmt.Errorf("mpi: unknown reduction op %d", int(o))
}

// Allreduce combines send element-wise across c with op and leaves the result
// in recv (same length) on every process. Long vectors are reduced in pieces
// of at most 2^31-1 elements, since reductions need predefined types.
func Allreduce[T Elem](c Comm, send, recv []T, op Op) error {
	if len(recv) != len(send) {
		return fmt.Errorf("mpi: Allreduce: send holds %d elements, recv %d", len(send), len(recv))
	}
	mop, err := op.c()
	if err != nil {
		return err
	}
	step := int(min(maxCount, math.MaxInt32))
	for lo := 0; lo < len(send) || lo == 0; lo += step {
		hi := min(lo+step, len(send))
		s, r := send[lo:hi], recv[lo:hi]
		if err := check(C.PMPI_Allreduce(bufPtr(s), bufPtr(r), C.int(len(s)), elemType[T](), mop, c.c)); err != nil {
			return err
		}
		if hi == len(send) {
			break
		}
	}
	return nil
}

// AllreduceInt64 is Allreduce over int64 values.
func AllreduceInt64(c Comm, send, recv []int64, op Op) error { return Allreduce(c, send, recv, op) }

// AllreduceFloat64 is Allreduce over float64 values.
func AllreduceFloat64(c Comm, send, recv []float64, op Op) error {
	return Allreduce(c, send, recv, op)
}
