package mpi_test

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

// TestTestallFor runs the drive case of the checks helper under mpirun:
// exchanges completed by TestallFor with a budget and with none, a set that
// cannot complete, and a truncated receive that must come back as an error.
func TestTestallFor(t *testing.T) {
	prog := mpitest.Build(t, checks)
	for _, np := range []int{2, 3} {
		t.Run("np"+strconv.Itoa(np), func(t *testing.T) {
			out := mpitest.Run(t, 60*time.Second, mpitest.App{NP: np, Prog: prog, Args: []string{"drive"}})
			checkAllOK(t, out, "drive", np)
		})
	}
}

// TestPollNeverYields runs the poll case of the checks helper on more ranks
// than cores, so that Open MPI yields in idle calls: Poll must not, Iprobe
// must still do so after it, and Poll must find a message that arrived
// while its rank slept.
func TestPollNeverYields(t *testing.T) {
	np := max(3, runtime.NumCPU()+1)
	if np > 9 {
		t.Skipf("needs more ranks than the %d cores", runtime.NumCPU())
	}
	prog := mpitest.Build(t, checks)
	out := mpitest.Run(t, 60*time.Second, mpitest.App{NP: np, Prog: prog, Args: []string{"poll"}})
	checkAllOK(t, out, "poll", np)
}
