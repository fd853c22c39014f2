package main

import (
	"runtime"
	"time"

	"github.com/couplet-hpc/couplet/mpi"
)

// nonblocking exchanges a message between every pair of ranks with Isend and
// Irecv, completing them with Waitall, Test and WaitTimeout, while the
// garbage collector runs (the buffers must stay pinned and intact).
func nonblocking(w mpi.Comm, _ []string) {
	size := w.Size()
	const n = 1 << 15 // above the eager limit: rendezvous protocol
	sends := make([][]float64, size)
	recvs := make([][]float64, size)
	var reqs []*mpi.Request
	for p := range size {
		if p == rank {
			continue
		}
		recvs[p] = make([]float64, n)
		r, err := mpi.Irecv(w, recvs[p], p, 30)
		must(err, "Irecv")
		reqs = append(reqs, r)
	}
	for p := range size {
		if p == rank {
			continue
		}
		sends[p] = make([]float64, n)
		for i := range sends[p] {
			sends[p][i] = float64(rank*1000000 + p*1000 + i)
		}
		r, err := mpi.Isend(w, sends[p], p, 30)
		must(err, "Isend")
		reqs = append(reqs, r)
	}
	runtime.GC()
	must(mpi.Waitall(reqs), "Waitall")
	for _, r := range reqs[:size-1] { // the receives: status kept after Waitall
		st, err := r.Wait()
		if err != nil || st.Elems(8) != n || st.Tag != 30 {
			failf("status after Waitall: %+v, %v", st, err)
		}
	}
	for p := range size {
		if p == rank {
			continue
		}
		for i, v := range recvs[p] {
			if want := float64(p*1000000 + rank*1000 + i); v != want {
				failf("from %d: element %d = %v, want %v", p, i, v, want)
				break
			}
		}
	}

	// Test until done (with sleeps), then WaitTimeout on the reverse pair.
	next, prev := (rank+1)%size, (rank+size-1)%size
	in := make([]int32, 1000)
	rr, err := mpi.Irecv(w, in, prev, 31)
	must(err, "Irecv")
	sr, err := mpi.Isend(w, []int32{int32(rank), 1, 2, 3}, next, 31)
	must(err, "Isend")
	deadline := time.Now().Add(20 * time.Second)
	for {
		done, st, err := rr.Test()
		must(err, "Test")
		if done {
			if st.Source != prev || st.Elems(4) != 4 || in[0] != int32(prev) || in[3] != 3 {
				failf("Test status %+v data %v", st, in[:4])
			}
			break
		}
		if time.Now().After(deadline) {
			fatalf("Irecv from %d did not complete", prev)
		}
		time.Sleep(100 * time.Microsecond)
	}
	if _, err := sr.WaitTimeout(20 * time.Second); err != nil {
		failf("WaitTimeout on Isend: %v", err)
	}

	// A receive nobody sends to times out, stays pending, and can be cancelled.
	orphan, err := mpi.Irecv(w, make([]int8, 4), next, 999)
	must(err, "Irecv")
	if _, err := orphan.WaitTimeout(20 * time.Millisecond); err == nil {
		failf("WaitTimeout on an unmatched receive returned no error")
	}
	must(orphan.Cancel(), "Cancel")
}
