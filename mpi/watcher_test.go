package mpi_test

import (
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

// TestWatcher runs the watch case of the checks helper: a watcher's thread
// sees a waiting message, stays out of MPI while the MPI-IO exclusion is
// held, looks again after Pause and Resume, and Close ends a Wait.
func TestWatcher(t *testing.T) {
	prog := mpitest.Build(t, checks)
	out := mpitest.Run(t, 60*time.Second, mpitest.App{NP: 2, Prog: prog, Args: []string{"watch"}})
	checkAllOK(t, out, "watch", 2)
}
