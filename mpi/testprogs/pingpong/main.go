// Command pingpong times MPI ping-pong between ranks 0 and 1 and prints
//
//	PINGPONG bytes=B iters=N seconds=S
//
// where N one-way messages of B bytes took S seconds in total (half the
// round trips). It runs at least -iters round trips and at least -min time.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/mpi"
)

func main() {
	size := flag.Int("size", 1<<20, "message size in bytes")
	iters := flag.Int("iters", 1, "minimum number of round trips")
	minTime := flag.Duration("min", 200*time.Millisecond, "minimum timed duration")
	flag.Parse()
	if err := mpi.Init(); err != nil {
		mpitest.Fatal(-1, "Init: %v", err)
	}
	w := mpi.World()
	rank := w.Rank()
	if w.Size() != 2 {
		mpitest.Fatal(rank, "pingpong needs 2 ranks, got %d", w.Size())
	}
	must := func(err error) {
		if err != nil {
			mpitest.Fatal(rank, "%v", err)
		}
	}
	buf := make([]byte, *size)
	for i := range buf {
		buf[i] = byte(i) // touch every page before timing
	}
	peer := 1 - rank
	trip := func(n int) {
		for range n {
			if rank == 0 {
				must(mpi.Send(w, buf, peer, 1))
				_, err := mpi.Recv(w, buf, peer, 1)
				must(err)
			} else {
				_, err := mpi.Recv(w, buf, peer, 1)
				must(err)
				must(mpi.Send(w, buf, peer, 1))
			}
		}
	}
	// Warm up, then let rank 0 size the timed loop from the warm-up.
	start := time.Now()
	trip(3)
	per := time.Since(start) / 3
	n := []int64{int64(*iters)}
	if rank == 0 && per > 0 {
		n[0] = max(n[0], int64(*minTime/per)+1)
	}
	must(mpi.Bcast(w, n, 0))
	must(mpi.Barrier(w))
	start = time.Now()
	trip(int(n[0]))
	elapsed := time.Since(start)
	if rank == 0 {
		fmt.Printf("PINGPONG bytes=%d iters=%d seconds=%.9f\n", *size, 2*n[0], elapsed.Seconds())
	}
	must(mpi.Finalize())
	os.Exit(0)
}
