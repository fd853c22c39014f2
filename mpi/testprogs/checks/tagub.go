package main

import (
	"strconv"

	"github.com/couplet-hpc/couplet/mpi"
)

// tagub checks MPI_TAG_UB against args[0], then that a message tagged with
// the bound itself goes through and one tagged past it is refused.
func tagub(w mpi.Comm, args []string) {
	ub, err := mpi.TagUB()
	must(err, "TagUB")
	want, _ := strconv.Atoi(args[0])
	if ub != want {
		failf("TagUB = %d, want %d", ub, want)
	}
	peer := w.Rank() ^ 1
	if peer >= w.Size() {
		return
	}
	got := make([]int32, 1)
	r, err := mpi.Irecv(w, got, peer, ub)
	must(err, "Irecv at the tag bound")
	must(mpi.Send(w, []int32{int32(w.Rank())}, peer, ub), "Send at the tag bound")
	_, err = r.Wait()
	must(err, "Wait at the tag bound")
	if got[0] != int32(peer) {
		failf("got %d at tag %d, want %d", got[0], ub, peer)
	}
	if ub < 1<<31-1 {
		if err := mpi.Send(w, []int32{1}, peer, ub+1); err == nil {
			failf("Send with tag %d past MPI_TAG_UB %d returned no error", ub+1, ub)
		}
	}
}
