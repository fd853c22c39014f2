package mpitest

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests launch real mpirun jobs of shell commands: fast, and enough to
// check tagging, per-application environment, failure reports and timeouts.

func TestLaunchMPMDTagsAndEnv(t *testing.T) {
	out := Run(t, 30*time.Second,
		App{NP: 2, Prog: "sh", Args: []string{"-c", "echo A$K"}, Env: []string{"K=1"}},
		App{NP: 1, Prog: "sh", Args: []string{"-c", "echo B$K"}})
	for r, want := range []string{"A1", "A1", "B"} {
		if got := RankLines(out, r); len(got) != 1 || got[0] != want {
			t.Errorf("rank %d printed %q, want %q; output:\n%s", r, got, want, out)
		}
	}
}

func TestLaunchReportsRankFailures(t *testing.T) {
	r := Launch(30*time.Second,
		App{NP: 1, Prog: "sh", Args: []string{"-c", "echo fine"}},
		App{NP: 1, Prog: "sh", Args: []string{"-c", "echo 'FAIL rank 1: broken' >&2; exit 3"}})
	if r.Err == nil || r.TimedOut {
		t.Fatalf("Launch: err %v timedOut %v, want a failure", r.Err, r.TimedOut)
	}
	msg := describe(r)
	if !strings.Contains(msg, "rank 1: broken") {
		t.Errorf("describe does not list the rank's failure:\n%s", msg)
	}
}

func TestLaunchTimeoutKillsJob(t *testing.T) {
	dir := t.TempDir()
	// Each rank records its pid, then sleeps far past the timeout.
	script := "echo $$ > " + dir + "/pid.$OMPI_COMM_WORLD_RANK; exec sleep 300"
	start := time.Now()
	r := Launch(3*time.Second, App{NP: 2, Prog: "sh", Args: []string{"-c", script}})
	if !r.TimedOut || r.Err == nil {
		t.Fatalf("Launch: timedOut %v err %v, want a timeout", r.TimedOut, r.Err)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("timeout took %v to end the job", el)
	}
	if !strings.Contains(describe(r), "timed out") {
		t.Errorf("describe does not say it timed out: %s", describe(r))
	}
	for _, rank := range []string{"0", "1"} {
		b, err := os.ReadFile(dir + "/pid." + rank)
		if err != nil {
			t.Fatalf("rank %s never started: %v", rank, err)
		}
		pid := 0
		for _, c := range strings.TrimSpace(string(b)) {
			pid = pid*10 + int(c-'0')
		}
		// Signal 0 probes for the process; a zombie would still answer,
		// but the rank's parent (mpirun) is gone and reaped it.
		deadline := time.Now().Add(5 * time.Second)
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("rank %s (pid %d) still alive after the timeout", rank, pid)
		}
	}
}

func TestUCXWarnings(t *testing.T) {
	out := "[1:0] ok\n[1700000000.1] [h:12:0]  ucp_worker.c:2345 UCX  WARN  unexpected tag-receive descriptor 0x1 was not matched\n[1:1] UCX WARN short\nWARNING: not ucx\n"
	got := UCXWarnings(out)
	if len(got) != 2 || !strings.Contains(got[0], "was not matched") || got[1] != "[1:1] UCX WARN short" {
		t.Fatalf("UCXWarnings = %q", got)
	}
	if w := UCXWarnings("UCX  INFO fine\n"); len(w) != 0 {
		t.Fatalf("UCXWarnings on an info line = %q", w)
	}
}
