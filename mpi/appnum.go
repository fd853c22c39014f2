package mpi

/*
#include "helpers.h"
*/
import "C"

// AppNum reports MPI_APPNUM: the index of this process's application context
// in an MPMD launch (`mpirun -np 2 a : -np 2 b` gives 0 for a and 1 for b).
// set is false when the launcher did not define it.
func AppNum() (n int, set bool, err error) {
	var v, flag C.int
	if err := check(C.h_appnum(&v, &flag)); err != nil {
		return 0, false, err
	}
	if flag == 0 {
		return 0, false, nil
	}
	return int(v), true, nil
}
