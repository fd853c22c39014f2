package mpitest

import (
	"fmt"
	"os"
	"sync/atomic"
)

// failed records whether this helper process reported a failure.
var failed atomic.Bool

// Fail reports a failure of this rank as a "FAIL rank N: ..." line on
// stderr, which Run lists under the rank, and lets the program continue.
func Fail(rank int, format string, args ...any) {
	failed.Store(true)
	fmt.Fprintf(os.Stderr, "FAIL rank %d: %s\n", rank, fmt.Sprintf(format, args...))
}

// Fatal reports a failure like Fail and exits at once with status 1;
// mpirun then ends the whole job.
func Fatal(rank int, format string, args ...any) {
	Fail(rank, format, args...)
	os.Exit(1)
}

// Failed reports whether Fail or Fatal was called in this process.
func Failed() bool { return failed.Load() }

// Exit ends a helper program: status 1 if it reported a failure, else 0.
// Call it after MPI is finalised.
func Exit() {
	if failed.Load() {
		os.Exit(1)
	}
	os.Exit(0)
}
