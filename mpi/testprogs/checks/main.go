// Command checks is the multi-rank helper of the mpi package tests: it runs
// the named case under mpirun and reports failures through mpitest.
//
// Usage: checks CASE [ARG...]
package main

import (
	"fmt"
	"os"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/mpi"
)

// rank is this process's rank in World, for failure reports.
var rank int

// failf reports a failure of this rank and carries on.
func failf(format string, args ...any) { mpitest.Fail(rank, format, args...) }

// fatalf reports a failure of this rank and ends the job.
func fatalf(format string, args ...any) { mpitest.Fatal(rank, format, args...) }

// must ends the job when an MPI call that the rest depends on fails.
func must(err error, what string) {
	if err != nil {
		fatalf("%s: %v", what, err)
	}
}

var cases = map[string]func(w mpi.Comm, args []string){
	"appnum":      appnum,
	"p2p":         p2p,
	"nonblocking": nonblocking,
	"subarray":    subarray,
	"collectives": collectives,
	"errors":      errorsCase,
	"large":       large,
	"drive":       drive,
	"huge":        huge,
	"poll":        poll,
	"tagub":       tagub,
	"watch":       watch,
}

// multiple lists the cases whose MPI must provide MPI_THREAD_MULTIPLE.
var multiple = map[string]bool{"watch": true}

func main() {
	if len(os.Args) < 2 || cases[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: checks CASE [ARG...]")
		os.Exit(2)
	}
	if multiple[os.Args[1]] {
		got, err := mpi.InitThread(mpi.ThreadMultiple)
		if err != nil {
			fatalf("InitThread: %v", err)
		}
		if got != mpi.ThreadMultiple {
			fatalf("InitThread: MPI provides thread level %v, the case needs MPI_THREAD_MULTIPLE", got)
		}
	} else if err := mpi.Init(); err != nil {
		fatalf("Init: %v", err)
	}
	w := mpi.World()
	rank = w.Rank()
	cases[os.Args[1]](w, os.Args[2:])
	must(mpi.Barrier(w), "final Barrier")
	must(mpi.Finalize(), "Finalize")
	if !mpitest.Failed() {
		fmt.Printf("ok %s rank %d\n", os.Args[1], rank)
	}
	mpitest.Exit()
}
