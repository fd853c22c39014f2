package mpi_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

const checks = "./testprogs/checks"

// TestRanks runs each helper case under a real mpirun with 2 and 4 ranks.
func TestRanks(t *testing.T) {
	prog := mpitest.Build(t, checks)
	lowLimit := []string{"COUPLET_MPI_MAX_COUNT=1000"}
	for _, c := range []struct {
		name string
		np   []int
		env  []string
	}{
		{name: "p2p", np: []int{2, 4}},
		{name: "nonblocking", np: []int{2, 4}},
		{name: "subarray", np: []int{2, 4}},
		{name: "collectives", np: []int{2, 4}},
		{name: "errors", np: []int{2}},
		{name: "large", np: []int{2, 3}, env: lowLimit},
	} {
		for _, np := range c.np {
			t.Run(c.name+"/np"+strconv.Itoa(np), func(t *testing.T) {
				out := mpitest.Run(t, 30*time.Second, mpitest.App{NP: np, Prog: prog, Args: []string{c.name}, Env: c.env})
				checkAllOK(t, out, c.name, np)
			})
		}
	}
}

// TestMPMD launches two applications in one mpirun: MPI_APPNUM must tell
// them apart and they must reach each other through World.
func TestMPMD(t *testing.T) {
	prog := mpitest.Build(t, checks)
	out := mpitest.Run(t, 30*time.Second,
		mpitest.App{NP: 2, Prog: prog, Args: []string{"appnum", "0"}},
		mpitest.App{NP: 2, Prog: prog, Args: []string{"appnum", "1"}})
	checkAllOK(t, out, "appnum", 4)
}

// TestTagUB reads MPI_TAG_UB under both of Open MPI's PMLs and sends a
// message tagged with the bound itself.
func TestTagUB(t *testing.T) {
	prog := mpitest.Build(t, checks)
	for _, c := range []struct {
		name string
		env  []string
		want int
	}{
		{name: "ob1", env: []string{"OMPI_MCA_pml=ob1"}, want: 1<<31 - 1},
		{name: "ucx", env: mpitest.UCXPML, want: 1<<23 - 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "ucx" && !mpitest.HasUCXPML() {
				t.Skip("this Open MPI has no UCX PML (ompi_info lists no \"MCA pml: ucx\")")
			}
			out := mpitest.Run(t, 60*time.Second, mpitest.App{NP: 2, Prog: prog, Args: []string{"tagub", strconv.Itoa(c.want)}, Env: c.env})
			checkAllOK(t, out, "tagub", 2)
		})
	}
}

// TestAppNumMismatchFails makes sure the appnum check can fail: the second
// application is told to expect the wrong number, and the parent must see
// failures from exactly its ranks.
func TestAppNumMismatchFails(t *testing.T) {
	prog := mpitest.Build(t, checks)
	out := mpitest.RunExpectFail(t, 30*time.Second,
		mpitest.App{NP: 1, Prog: prog, Args: []string{"appnum", "0"}},
		mpitest.App{NP: 1, Prog: prog, Args: []string{"appnum", "0"}})
	fails := mpitest.Failures(out)
	if len(fails) == 0 {
		t.Fatalf("no failures reported; output:\n%s", out)
	}
	for _, f := range fails {
		if f.Rank != 1 || !strings.Contains(f.Msg, "want 0") {
			t.Errorf("unexpected failure %+v", f)
		}
	}
}

// TestHuge sends one message of more than 2^31 bytes for real. It needs
// 4 GiB of memory and tens of seconds on a loaded 2-core machine, so it runs
// only with COUPLET_TEST_HUGE=1; the "large" case covers the same code paths
// with a lowered count limit on every run.
func TestHuge(t *testing.T) {
	if os.Getenv("COUPLET_TEST_HUGE") != "1" {
		t.Skip("moves 2 GiB; set COUPLET_TEST_HUGE=1 to run")
	}
	if avail := memAvailable(); avail < 8<<30 {
		t.Skipf("needs 8 GiB of free memory, have %d MiB", avail>>20)
	}
	prog := mpitest.Build(t, checks)
	out := mpitest.Run(t, 120*time.Second, mpitest.App{NP: 2, Prog: prog, Args: []string{"huge"}})
	checkAllOK(t, out, "huge", 2)
}

// checkAllOK checks that every rank reached the end of the case.
func checkAllOK(t *testing.T, out, name string, np int) {
	t.Helper()
	for r := range np {
		want := "ok " + name + " rank " + strconv.Itoa(r)
		found := false
		for _, l := range mpitest.RankLines(out, r) {
			found = found || l == want
		}
		if !found {
			t.Errorf("rank %d did not report %q; output:\n%s", r, want, out)
		}
	}
}

// memAvailable reads MemAvailable from /proc/meminfo, in bytes.
func memAvailable() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
