package mpitransport_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

var singleRE = regexp.MustCompile(`single rank (\d) readfrom=(\d+) readby=(\d+) reads=(\d+) refused=(\d+)`)

// TestDrive runs the helper under mpirun with 2 ranks on this node:
// contiguous and strided 3-D blocks (some MiB) completed by Drive with a
// budget and with none, a set that cannot complete, a foreign Pending. Each
// case checks every element and how the blocks moved: by single-copy reads
// when SingleCopyEnv turns them on and the kernel allows them, by MPI by default,
// when the probe at Join is refused (ranks without CAP_SYS_PTRACE that are
// not dumpable), and when the reads are refused after Join (every read
// falls back to MPI, and a receive canceled after its refusal still takes
// the block the sender then sends by MPI).
func TestDrive(t *testing.T) {
	prog := mpitest.Build(t, "./testprog")
	// setpriv drops CAP_SYS_PTRACE, so the ranks (root) may read each
	// other only while dumpable.
	noPtrace := []string{"--bounding-set=-sys_ptrace", prog}
	on := []string{"COUPLET_SINGLE_COPY=1"}
	cases := []struct {
		name     string
		app      mpitest.App
		from, by int  // single-copy peers
		reads    bool // blocks read by single copy (> 0) or none
		refused  bool // reads refused after Join (> 0) or none
	}{
		{"single copy", mpitest.App{NP: 2, Prog: prog, Env: on}, 1, 1, true, false},
		{"off by default", mpitest.App{NP: 2, Prog: prog}, 0, 0, false, false},
		{"refused at join", mpitest.App{NP: 2, Prog: "setpriv", Args: append(noPtrace, "-undumpable=before"), Env: on}, 0, 0, false, false},
		{"refused after join", mpitest.App{NP: 2, Prog: "setpriv", Args: append(noPtrace, "-undumpable=after"), Env: on}, 1, 1, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := mpitest.Run(t, 90*time.Second, c.app)
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
			seen := 0
			for _, m := range singleRE.FindAllStringSubmatch(out, -1) {
				seen++
				n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
				got := fmt.Sprintf("from=%d by=%d reads>0=%v refused>0=%v", n(2), n(3), n(4) > 0, n(5) > 0)
				want := fmt.Sprintf("from=%d by=%d reads>0=%v refused>0=%v", c.from, c.by, c.reads, c.refused)
				if got != want {
					t.Errorf("rank %s: %s, want %s", m[1], got, want)
				}
			}
			if seen != 2 {
				t.Errorf("%d ranks reported how blocks moved, want 2; output:\n%s", seen, out)
			}
		})
	}
}
