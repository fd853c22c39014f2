package ucxtransport

import (
	"fmt"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

// TestDrive runs driveprog as one component of 2 ranks over TCP and over
// shared memory: blocks completed by Drive with a budget and with none,
// and a receive that cannot complete.
func TestDrive(t *testing.T) {
	prog := mpitest.Build(t, "./driveprog")
	url, _ := startKVS(t)
	for _, tls := range []string{"tcp", "sm"} {
		t.Run(tls, func(t *testing.T) {
			ns := fmt.Sprintf("test/%s/%d", t.Name(), time.Now().UnixNano())
			r := mpitest.Launch(jobTimeout, mpitest.App{NP: 2, Prog: prog,
				Args: []string{"-kvs", url, "-ns", ns}, Env: []string{"UCX_TLS=" + tls}})
			check(t, "a", r)
			for rk := range 2 {
				want := fmt.Sprintf("ok drive rank %d", rk)
				found := false
				for _, l := range mpitest.RankLines(r.Output, rk) {
					found = found || l == want
				}
				if !found {
					t.Errorf("rank %d did not report %q; output:\n%s", rk, want, r.Output)
				}
			}
			t.Logf("%v\n%s", r.Elapsed.Round(time.Millisecond), r.Output)
		})
	}
}
