package mpitransport_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

// TestDrive runs the helper under mpirun with 2 ranks: contiguous and
// strided 3-D blocks (some MiB, so rendezvous) completed by Drive with a
// budget and with none, a set that cannot complete, a foreign Pending.
func TestDrive(t *testing.T) {
	prog := mpitest.Build(t, "./testprog")
	out := mpitest.Run(t, 90*time.Second, mpitest.App{NP: 2, Prog: prog})
	for r := range 2 {
		want := "ok drive rank " + strconv.Itoa(r)
		found := false
		for _, l := range mpitest.RankLines(out, r) {
			found = found || strings.TrimSpace(l) == want
		}
		if !found {
			t.Errorf("rank %d did not report %q; output:\n%s", r, want, out)
		}
	}
	t.Log(out)
}
