package mpi

/*
#include "helpers.h"
*/
import "C"

import "fmt"

// TagUB reports MPI_TAG_UB: the largest tag this MPI accepts in point-to-point
// calls. It differs between MPIs and PMLs (2^31-1 under Open MPI's ob1,
// 2^23-1 under its UCX PML, 524287 under Intel MPI); the standard promises
// at least 32767.
func TagUB() (int, error) {
	var v, flag C.int
	if err := check(C.h_tag_ub(&v, &flag)); err != nil {
		return 0, err
	}
	if flag == 0 {
		return 0, fmt.Errorf("mpi: MPI_TAG_UB is not set on MPI_COMM_WORLD")
	}
	return int(v), nil
}
