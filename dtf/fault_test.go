package dtf_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
)

const faultProg = "github.com/couplet-hpc/couplet/dtf/testprogs/fault"

// faultTimeout is the dtf timeout of the fault runs; faultMargin is how much
// later than the timeout the survivors may report (startup, polling backoff
// and 2 shared cores).
const (
	faultTimeout = 3 * time.Second
	faultMargin  = 6 * time.Second
)

var survivorRE = regexp.MustCompile(`SURVIVOR (\w+) rank (\d+) after ([0-9.]+)s: (.*)`)

// survivor is one line the fault helper printed for a failed dtf call.
type survivor struct {
	comp    string
	rank    int
	elapsed time.Duration
	err     string
}

func survivors(out string) []survivor {
	var s []survivor
	for _, m := range survivorRE.FindAllStringSubmatch(out, -1) {
		r, _ := strconv.Atoi(m[2])
		sec, _ := strconv.ParseFloat(m[3], 64)
		s = append(s, survivor{m[1], r, time.Duration(sec * float64(time.Second)), m[4]})
	}
	return s
}

// runFault runs one fault case with mpirun's recovery on, so a dead rank
// leaves the others running, and returns the survivors' reports.
func runFault(t *testing.T, nw, nr int, args ...string) ([]survivor, string) {
	t.Helper()
	// Without recovery Open MPI ends the whole job when one rank dies, and
	// nobody would see dtf's own error.
	t.Setenv("OMPI_MCA_orte_enable_recovery", "1")
	t.Setenv("FAULT_IDLE", (faultTimeout + 1500*time.Millisecond).String())
	dir := t.TempDir()
	cfg := fmt.Sprintf("[INFO]\nncomp = 2\ncomp_name = w\ncomp_name = r\ntimeout = %s\n\n[FILE]\nfilename = %%.nc\ncomp1 = w\ncomp2 = r\nmode = transfer\n", faultTimeout)
	p := filepath.Join(dir, "fault.ini")
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := mpitest.Build(t, faultProg)
	a := append([]string{"-cfg", p, "-dir", dir}, args...)
	r := mpitest.Launch(2*time.Minute, mpitest.App{NP: nw, Prog: bin, Args: a}, mpitest.App{NP: nr, Prog: bin, Args: a})
	if r.TimedOut {
		t.Fatalf("the job hung until the test's own limit (%v):\n%s", r.Elapsed, r.Output)
	}
	if fails := mpitest.Failures(r.Output); len(fails) > 0 {
		t.Fatalf("helper failures: %v\n%s", fails, r.Output)
	}
	if testing.Verbose() {
		t.Logf("output:\n%s", r.Output)
	}
	return survivors(r.Output), r.Output
}

// checkSurvivors asserts that exactly the expected ranks of comp reported an
// error containing every fragment, inside the timeout plus the margin.
func checkSurvivors(t *testing.T, got []survivor, out, comp string, n int, fragments ...string) {
	t.Helper()
	k := 0
	for _, s := range got {
		t.Logf("%s rank %d after %v: %s", s.comp, s.rank, s.elapsed, s.err)
		if s.comp != comp {
			t.Errorf("component %s rank %d failed too: %s", s.comp, s.rank, s.err)
			continue
		}
		k++
		for _, f := range fragments {
			if !strings.Contains(s.err, f) {
				t.Errorf("rank %d error %q lacks %q", s.rank, s.err, f)
			}
		}
		if s.elapsed < faultTimeout-500*time.Millisecond || s.elapsed > faultTimeout+faultMargin {
			t.Errorf("rank %d reported after %v; want about the %v timeout (margin %v)", s.rank, s.elapsed, faultTimeout, faultMargin)
		}
	}
	if k != n {
		t.Errorf("%d ranks of %s reported an error, want %d; output:\n%s", k, comp, n, out)
	}
}

func TestFaultKilledWriter(t *testing.T) {
	// Victim 0 is also the writer's only matcher; victim 1 is a plain writer.
	for _, c := range []struct{ nw, nr, victim int }{{1, 2, 0}, {2, 2, 0}, {2, 2, 1}} {
		t.Run(fmt.Sprintf("%dw%dr-victim%d", c.nw, c.nr, c.victim), func(t *testing.T) {
			got, out := runFault(t, c.nw, c.nr, "-case", "killwriter", "-victim", fmt.Sprint(c.victim))
			if !strings.Contains(out, "KILLED w") {
				t.Fatalf("the writer did not die:\n%s", out)
			}
			// Every survivor fails cleanly: the readers in their get, the
			// other writers in their close.
			var readers, writers []survivor
			for _, s := range got {
				if s.comp == "r" {
					readers = append(readers, s)
				} else {
					writers = append(writers, s)
				}
			}
			checkSurvivors(t, readers, out, "r", c.nr, "dtf: timeout after "+faultTimeout.String(), "fault.nc")
			checkSurvivors(t, writers, out, "w", c.nw-1, "dtf: timeout after "+faultTimeout.String(), "fault.nc")
		})
	}
}

func TestFaultKilledReader(t *testing.T) {
	got, out := runFault(t, 2, 1, "-case", "killreader")
	if !strings.Contains(out, "KILLED r") {
		t.Fatalf("the reader did not die:\n%s", out)
	}
	checkSurvivors(t, got, out, "w", 2, "dtf: timeout after "+faultTimeout.String(), "readers of", "fault.nc")
}

func TestFaultReaderNeverOpens(t *testing.T) {
	got, out := runFault(t, 2, 2, "-case", "noreader")
	checkSurvivors(t, got, out, "w", 2, "dtf: timeout after "+faultTimeout.String(), "fault.nc")
}

func TestFaultReaderNeverTransfers(t *testing.T) {
	got, out := runFault(t, 2, 2, "-case", "noepoch")
	checkSurvivors(t, got, out, "w", 2, "dtf: timeout after "+faultTimeout.String(), "fault.nc")
}

func TestFaultFileNeverCreated(t *testing.T) {
	got, out := runFault(t, 1, 2, "-case", "nocreate")
	checkSurvivors(t, got, out, "r", 2, "dtf: timeout after "+faultTimeout.String(), "the header of", "fault.nc", `component "w"`)
}

// TestFaultFinalizeAfterDeadPeer: a survivor that got dtf's timeout error
// and then calls Finalize, as a careful application would, must get an
// error too, not block forever on the dead peer.
func TestFaultFinalizeAfterDeadPeer(t *testing.T) {
	t.Setenv("OMPI_MCA_orte_enable_recovery", "1")
	dir := t.TempDir()
	cfg := fmt.Sprintf("[INFO]\nncomp = 2\ncomp_name = w\ncomp_name = r\ntimeout = %s\n\n[FILE]\nfilename = %%.nc\ncomp1 = w\ncomp2 = r\nmode = transfer\n", faultTimeout)
	p := filepath.Join(dir, "fault.ini")
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := mpitest.Build(t, faultProg)
	a := []string{"-cfg", p, "-dir", dir, "-case", "killreader", "-finalize"}
	r := mpitest.Launch(faultTimeout+30*time.Second, mpitest.App{NP: 2, Prog: bin, Args: a}, mpitest.App{NP: 1, Prog: bin, Args: a})
	t.Logf("output:\n%s", r.Output)
	if r.TimedOut {
		t.Fatalf("survivors hung in dtf.Finalize after the reader died")
	}
	if n := strings.Count(r.Output, "FINALIZED w"); n != 2 {
		t.Fatalf("%d writers returned from Finalize, want 2", n)
	}
}
