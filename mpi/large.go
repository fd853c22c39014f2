package mpi

/*
#include "helpers.h"
*/
import "C"

import (
	"math"
	"os"
	"strconv"
)

// maxCount is the largest count passed in one int argument of an MPI call.
// Longer runs of elements are described by derived datatypes built from
// blocks of maxCount, so a single message can carry more than 2^31 elements.
// COUPLET_MPI_MAX_COUNT lowers it, which lets tests exercise the large-count
// paths with small buffers.
var maxCount int64 = loadMaxCount()

func loadMaxCount() int64 {
	if s := os.Getenv("COUPLET_MPI_MAX_COUNT"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 && n <= math.MaxInt32 {
			return n
		}
	}
	return math.MaxInt32
}

// msgType describes n consecutive elements of base (extent ext bytes) as a
// (datatype, count) pair. For n above maxCount it builds a committed derived
// type with count 1; owned reports that the caller must free it.
func msgType(base C.MPI_Datatype, ext, n int64) (dt C.MPI_Datatype, count C.int, owned bool, err error) {
	if n <= maxCount {
		return base, C.int(n), false, nil
	}
	t, err := repeatType(n, ext, base)
	if err != nil {
		return dt, 0, false, err
	}
	if err := check(C.PMPI_Type_commit(&t)); err != nil {
		C.PMPI_Type_free(&t)
		return dt, 0, false, err
	}
	return t, 1, true, nil
}

// freeType releases a derived type; pending operations that use it still
// complete, as MPI guarantees.
func freeType(t C.MPI_Datatype) {
	C.PMPI_Type_free(&t)
}

// repeatType builds an uncommitted type of n copies of inner placed stride
// bytes apart, splitting n into blocks of maxCount so every count fits an int.
func repeatType(n, stride int64, inner C.MPI_Datatype) (C.MPI_Datatype, error) {
	var t C.MPI_Datatype
	var lb, ext C.MPI_Count
	if err := check(C.PMPI_Type_get_extent_x(inner, &lb, &ext)); err != nil {
		return t, err
	}
	// Dense runs are contiguous types, which Open MPI copies as one block;
	// a strided vector of the same bytes would be walked element by element.
	dense := lb == 0 && int64(ext) == stride
	run := func(k int64, out *C.MPI_Datatype) error {
		if dense {
			return check(C.PMPI_Type_contiguous(C.int(k), inner, out))
		}
		return check(C.PMPI_Type_create_hvector(C.int(k), 1, C.MPI_Aint(stride), inner, out))
	}
	if n <= maxCount {
		err := run(n, &t)
		return t, err
	}
	q, r := n/maxCount, n%maxCount
	var blk C.MPI_Datatype
	if err := run(maxCount, &blk); err != nil {
		return t, err
	}
	defer freeType(blk)
	rep, err := repeatType(q, maxCount*stride, blk)
	if err != nil || r == 0 {
		return rep, err
	}
	defer freeType(rep)
	var rem C.MPI_Datatype
	if err := run(r, &rem); err != nil {
		return t, err
	}
	defer freeType(rem)
	lens := []C.int{1, 1}
	displs := []C.MPI_Aint{0, C.MPI_Aint(q * maxCount * stride)}
	types := []C.MPI_Datatype{rep, rem}
	err = check(C.PMPI_Type_create_struct(2, &lens[0], &displs[0], &types[0], &t))
	return t, err
}
