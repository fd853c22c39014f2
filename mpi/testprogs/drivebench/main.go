// Command drivebench times three ways of completing one large exchange in
// one run, side by side: rank 2k sends -size bytes to rank 2k+1 as -msgs
// messages, and both complete them with
//
//   - waitall: MPI_Waitall;
//   - testallfor: mpi.TestallFor with -budget, then sched_yield, repeated;
//   - watched: mpi.TestallFor with a 5 ms budget and a watch on a tag
//     nobody sends, repeated without yielding, as the transports drive data;
//   - testloop: MPI_Test on each open request per round, with sched_yield
//     every -yield rounds (the Go polling loop TestallFor replaces).
//
// The modes take turns within every round, in rotating order, and rank 0
// prints for each mode
//
//	DRIVE mode=M bytes=B rounds=N seconds=S
//
// where S sums, over N rounds, the slowest rank's time for that mode.
package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/mpi"
)

var (
	size   = flag.Int("size", 256<<20, "bytes each sender moves per round")
	msgs   = flag.Int("msgs", 16, "messages the bytes are split into")
	rounds = flag.Int("rounds", 5, "rounds; each times every mode once")
	budget = flag.Duration("budget", time.Millisecond, "TestallFor budget")
	every  = flag.Int("yield", 8, "testloop: rounds of Tests between yields")
)

var rank int

func must(err error) {
	if err != nil {
		mpitest.Fatal(rank, "%v", err)
	}
}

func yield() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }

// watchTag is a tag no message of the benchmark carries.
const watchTag = 1 << 20

// modes complete reqs, each its own way.
var modes = []struct {
	name     string
	complete func(reqs []*mpi.Request)
}{
	{"waitall", func(reqs []*mpi.Request) { must(mpi.Waitall(reqs)) }},
	{"testallfor", func(reqs []*mpi.Request) {
		for {
			done, err := mpi.TestallFor(reqs, *budget, nil)
			must(err)
			if done {
				return
			}
			yield()
		}
	}},
	{"watched", func(reqs []*mpi.Request) {
		// As the transports drive data: long budgets, returning early
		// when a control message (here none ever comes) is waiting.
		for {
			done, err := mpi.TestallFor(reqs, 5*time.Millisecond, &mpi.Watch{Comm: mpi.World(), Tag: watchTag})
			must(err)
			if done {
				return
			}
		}
	}},
	{"testloop", func(reqs []*mpi.Request) {
		open := append([]*mpi.Request(nil), reqs...)
		for polls := 1; len(open) > 0; polls++ {
			live := open[:0]
			for _, q := range open {
				done, _, err := q.Test()
				must(err)
				if !done {
					live = append(live, q)
				}
			}
			open = live
			if polls%*every == 0 {
				yield()
			}
		}
	}},
}

func main() {
	flag.Parse()
	must(mpi.Init())
	w := mpi.World()
	rank = w.Rank()
	if w.Size()%2 != 0 {
		mpitest.Fatal(rank, "needs an even number of ranks, got %d", w.Size())
	}
	if *msgs <= 0 || *size%*msgs != 0 {
		mpitest.Fatal(rank, "-size %d is not a multiple of -msgs %d", *size, *msgs)
	}
	buf := make([]byte, *size)
	for i := range buf {
		buf[i] = byte(i) // touch every page before timing
	}
	sender := rank%2 == 0
	peer := rank ^ 1
	part := *size / *msgs
	total := make([]time.Duration, len(modes))
	for r := range *rounds {
		for k := range modes {
			m := (r + k) % len(modes)
			reqs := make([]*mpi.Request, *msgs)
			if !sender { // receives posted before the clock starts
				for i := range reqs {
					var err error
					reqs[i], err = mpi.Irecv(w, buf[i*part:(i+1)*part], peer, i)
					must(err)
				}
			}
			must(mpi.Barrier(w))
			start := time.Now()
			if sender {
				for i := range reqs {
					var err error
					reqs[i], err = mpi.Isend(w, buf[i*part:(i+1)*part], peer, i)
					must(err)
				}
			}
			modes[m].complete(reqs)
			slowest := []int64{0}
			must(mpi.AllreduceInt64(w, []int64{int64(time.Since(start))}, slowest, mpi.Max))
			total[m] += time.Duration(slowest[0])
		}
	}
	if rank == 0 {
		for m, md := range modes {
			fmt.Printf("DRIVE mode=%s bytes=%d rounds=%d seconds=%.9f\n", md.name, *size, *rounds, total[m].Seconds())
		}
	}
	must(mpi.Finalize())
	os.Exit(0)
}
