package main

import (
	"strconv"

	"github.com/couplet-hpc/couplet/mpi"
)

// appnum checks MPI_APPNUM against args[0],
// splits World by it, and exchanges a message across applications.
func appnum(w mpi.Comm, args []string) {
	n, set, err := mpi.AppNum()
	must(err, "AppNum")
	want, _ := strconv.Atoi(args[0])
	if !set || n != want {
		failf("AppNum = %d (set %v), want %d", n, set, want)
	}
	comp, err := w.Split(n, w.Rank())
	must(err, "Split")
	defer comp.Free()
	// Every application has the same size here; gather the appnums of the
	// whole world and check each block of ranks names one application.
	all := make([]int32, w.Size())
	must(mpi.Allgather(w, []int32{int32(n)}, all), "Allgather")
	per := w.Size() / comp.Size()
	for r, a := range all {
		if int(a) != r/comp.Size() || int(a) >= per {
			failf("rank %d has appnum %d; world %d, component size %d", r, a, w.Size(), comp.Size())
		}
	}
	// Across applications: rank r of app 0 talks to rank r of app 1.
	peer := (w.Rank() + comp.Size()) % w.Size()
	got := make([]int64, 1)
	if n == 0 {
		must(mpi.Send(w, []int64{int64(100 + w.Rank())}, peer, 7), "Send")
		_, err = mpi.Recv(w, got, peer, 7)
	} else {
		_, err = mpi.Recv(w, got, peer, 7)
		if err == nil {
			err = mpi.Send(w, []int64{int64(100 + w.Rank())}, peer, 7)
		}
	}
	must(err, "cross-application exchange")
	if got[0] != int64(100+peer) {
		failf("got %d from rank %d, want %d", got[0], peer, 100+peer)
	}
}
