package mpi_test

import (
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
