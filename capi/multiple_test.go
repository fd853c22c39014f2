package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/kvs/etcdkv/embedded"
)

// multipleIni writes the config of cprogs/multiple.c with the given dtf
// timeout and returns its DTF_INI_FILE setting.
func multipleIni(t *testing.T, timeout time.Duration) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "multiple.ini")
	cfg := fmt.Sprintf("[INFO]\nncomp = 2\ncomp_name = writer\ncomp_name = reader\ntimeout = %s\n\n[FILE]\nfilename = multi.nc\ncomp1 = writer\ncomp2 = reader\nmode = transfer\n", timeout)
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return "DTF_INI_FILE=" + p
}

// multipleValues is what each reader rank of multiple.c verifies with nr
// reader ranks: its column block, its row block (NX-2 columns), its strided
// slab, and the whole array of the ordinary epoch after the multiple one.
func multipleValues(nr, rank int) int {
	const ny, nx = 12, 10
	blk := func(n int) int { return n/nr + map[bool]int{true: 1}[rank < n%nr] }
	strided := (ny - rank + nr - 1) / nr * ((nx - rank%3 + 2) / 3)
	return ny*blk(nx) + blk(ny)*(nx-2) + strided + ny*nx
}

// TestMultipleMPMD: one dtf_transfer_multiple of the writer serves three
// dtf_transfers of the reader, each with other hyperslabs, ended by
// dtf_complete_multiple; an ordinary epoch with new values follows. One
// mpirun, the world split by component.
func TestMultipleMPMD(t *testing.T) {
	for _, c := range []struct{ nw, nr int }{{3, 2}, {1, 1}} {
		t.Run(fmt.Sprintf("%dw%dr", c.nw, c.nr), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "multi.nc")
			env := []string{multipleIni(t, 60*time.Second)}
			prog := cprog(t, "multiple", linkCouplet)
			out := mpitest.Run(t, runTimeout,
				mpitest.App{NP: c.nw, Prog: prog, Env: env, Args: []string{"writer", path, "ok"}},
				mpitest.App{NP: c.nr, Prog: prog, Env: env, Args: []string{"reader", path, "ok"}})
			for r := 0; r < c.nr; r++ {
				want := fmt.Sprintf("reader rank %d: verified %d values in 4 transfers", r, multipleValues(c.nr, r))
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			expectVerified(t, out, ": served", c.nw)
		})
	}
}

// TestMultipleSeparateLaunches is TestMultipleMPMD with the writer and the
// reader started as two mpiruns, over UCX, the reader preloading libcouplet
// into the program built against the real libpnetcdf.
func TestMultipleSeparateLaunches(t *testing.T) {
	etcd, err := embedded.Start(embedded.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer etcd.Close()
	path := filepath.Join(t.TempDir(), "multi.nc")
	env := []string{multipleIni(t, 60*time.Second), "COUPLET_TRANSPORT=ucx", "COUPLET_KVS=" + etcd.Endpoint(),
		"UCX_TLS=tcp", "COUPLET_JOB=" + t.Name()}
	apps := []mpitest.App{
		{NP: 2, Prog: cprog(t, "multiple", linkReal), Env: append(env, "COUPLET_COMPONENT=reader", "LD_PRELOAD="+libPath(t)),
			Args: []string{"reader", path, "ok"}},
		{NP: 2, Prog: cprog(t, "multiple", linkCouplet), Env: append(env, "COUPLET_COMPONENT=writer"),
			Args: []string{"writer", path, "ok"}},
	}
	res := mpitest.LaunchApart(runTimeout, time.Second, apps...)
	for i, r := range res {
		if r.Err != nil {
			t.Fatalf("%s: %v\n%s", apps[i].Args[0], r.Err, r.Output)
		}
	}
	for r := 0; r < 2; r++ {
		want := fmt.Sprintf("reader rank %d: verified %d values in 4 transfers", r, multipleValues(2, r))
		if !strings.Contains(res[0].Output, want) {
			t.Errorf("reader output lacks %q:\n%s", want, res[0].Output)
		}
	}
}

// The fault runs' dtf timeout, and how much later than it a survivor may
// report (start-up, polling backoff and 2 shared cores).
const (
	multiTimeout = 3 * time.Second
	multiMargin  = 6 * time.Second
)

var multiSurvivorRE = regexp.MustCompile(`SURVIVOR (\w+) rank (\d+) after ([0-9.]+)s`)

// runMultipleFault runs multiple.c in a fault mode with mpirun's recovery on
// (a dead rank leaves the others running) and checks that exactly n ranks of
// role survived with an error mentioning every fragment, about one timeout
// after the fault.
func runMultipleFault(t *testing.T, mode string, nw, nr int, role string, n int, fragments ...string) string {
	t.Helper()
	t.Setenv("OMPI_MCA_orte_enable_recovery", "1")
	dir := t.TempDir()
	path := filepath.Join(dir, "multi.nc")
	args := []string{path, mode, filepath.Join(dir, "dead"), filepath.Join(dir, "kill")}
	for _, f := range args[2:] {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if mode != "writerdies" {
		args = args[:3]
	}
	env := []string{multipleIni(t, multiTimeout)}
	prog := cprog(t, "multiple", linkCouplet)
	r := mpitest.Launch(2*time.Minute,
		mpitest.App{NP: nw, Prog: prog, Env: env, Args: append([]string{"writer"}, args...)},
		mpitest.App{NP: nr, Prog: prog, Env: env, Args: append([]string{"reader"}, args...)})
	if r.TimedOut {
		t.Fatalf("the job hung until the test's own limit (%v):\n%s", r.Elapsed, r.Output)
	}
	if fails := mpitest.Failures(r.Output); len(fails) > 0 {
		t.Fatalf("program failures: %v\n%s", fails, r.Output)
	}
	got := 0
	for _, m := range multiSurvivorRE.FindAllStringSubmatch(r.Output, -1) {
		sec, _ := strconv.ParseFloat(m[3], 64)
		d := time.Duration(sec * float64(time.Second))
		if m[1] != role {
			t.Errorf("%s rank %s failed too", m[1], m[2])
			continue
		}
		got++
		if d < multiTimeout-500*time.Millisecond || d > multiTimeout+multiMargin {
			t.Errorf("%s rank %s reported after %v; want about the %v timeout (margin %v)", m[1], m[2], d, multiTimeout, multiMargin)
		}
	}
	if got != n {
		t.Errorf("%d %s ranks reported an error, want %d", got, role, n)
	}
	for _, f := range fragments {
		if c := strings.Count(r.Output, f); c != n {
			t.Errorf("%d error messages contain %q, want %d", c, f, n)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("output:\n%s", r.Output)
	}
	return r.Output
}

// TestMultipleReaderNeverCompletes: the reader makes its transfers but never
// calls dtf_complete_multiple (nor closes); every writer rank's
// dtf_transfer_multiple ends with a timeout error that says what it awaited.
func TestMultipleReaderNeverCompletes(t *testing.T) {
	out := runMultipleFault(t, "nocomplete", 2, 1, "writer", 2,
		"couplet: dtf_transfer_multiple: ", "dtf: timeout after "+multiTimeout.String()+" waiting for readers of")
	if c := strings.Count(out, "a multiple transfer that each reader ends with dtf_complete_multiple"); c != 2 {
		t.Errorf("%d timeout errors name the multiple transfer, want 2", c)
	}
	if !strings.Contains(out, "reader rank 0: writer gone") {
		t.Errorf("the reader did not see the writer end")
	}
}

// TestMultipleWriterDies: the writer dies in its multiple epoch after serving
// the reader's first transfer; the reader's next request in the epoch fails
// with a timeout error on every reader rank.
func TestMultipleWriterDies(t *testing.T) {
	out := runMultipleFault(t, "writerdies", 1, 2, "reader", 2,
		"get in the multiple epoch: ")
	if !strings.Contains(out, "KILLED writer rank 0") {
		t.Fatalf("the writer did not die:\n%s", out)
	}
	if c := strings.Count(out, "dtf: timeout after "+multiTimeout.String()+" waiting for schedules for"); c != 2 {
		t.Errorf("%d reader errors say what timed out, want 2:\n%s", c, out)
	}
}
