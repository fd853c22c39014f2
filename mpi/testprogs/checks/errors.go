package main

import (
	"errors"
	"strings"

	"github.com/couplet-hpc/couplet/mpi"
)

// errorsCase checks that invalid arguments come back as Go errors carrying
// MPI's text, and that the job carries on afterwards.
func errorsCase(w mpi.Comm, _ []string) {
	size := w.Size()
	err := mpi.Send(w, []int32{1}, size, 0)
	var me *mpi.Error
	if !errors.As(err, &me) {
		failf("Send to rank %d: got %v (%T), want *mpi.Error", size, err, err)
	} else if !strings.Contains(me.Msg, "MPI_ERR_RANK") || me.Code == 0 {
		failf("Send to rank %d: error %q code %d, want MPI_ERR_RANK", size, me.Msg, me.Code)
	}
	if _, err := mpi.Recv(w, make([]int32, 1), -7, 0); err == nil {
		failf("Recv from rank -7 returned no error")
	}
	if _, err := mpi.Isend(w, []int8{1}, size+3, 0); err == nil {
		failf("Isend to rank %d returned no error", size+3)
	}
	if err := mpi.Bcast(w, []int8{1}, size); err == nil {
		failf("Bcast from root %d returned no error", size)
	}
	if err := mpi.Send(w, []int8{1}, 0, -5); err == nil {
		failf("Send with tag -5 returned no error")
	}
	// The job still works.
	got := make([]int64, 1)
	must(mpi.AllreduceInt64(w, []int64{1}, got, mpi.Sum), "Allreduce after errors")
	if got[0] != int64(size) {
		failf("Allreduce after errors = %d, want %d", got[0], size)
	}
}
