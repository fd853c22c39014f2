package dtf_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf/stats"
	"github.com/couplet-hpc/couplet/internal/mpitest"
)

// TestReaderWaitForLateWriters has the writers sleep before ending each
// epoch while the readers already wait for their data: the readers' wait_ns
// must hold that sleep, sched_ns only the protocol's own cost, and match_ns
// nothing (readers do not match). Replay is on, so cycle 0 matches and cycle 1
// serves by the record: both paths report the wait.
func TestReaderWaitForLateWriters(t *testing.T) {
	const delay = 400 * time.Millisecond
	dir := t.TempDir()
	statsPath := filepath.Join(dir, "stats.jsonl")
	cfg := writeConfig(t, dir, "transfer", "num_matchers = 2", "stats_path = "+statsPath)
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(b, "replay_io = 1\n"...), 0o644); err != nil { // a [FILE] key
		t.Fatal(err)
	}
	bin := mpitest.Build(t, prog)
	a := []string{"-cfg", cfg, "-dir", dir, "-case", "cycles", "-cycles", "2", "-wgrid", "2x1", "-rgrid", "1x2",
		"-wdelay", delay.String()}
	mpitest.Run(t, 2*time.Minute, mpitest.App{NP: 2, Prog: bin, Args: a}, mpitest.App{NP: 2, Prog: bin, Args: a})
	f, err := os.Open(statsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := stats.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	readers := 0
	for _, r := range recs {
		if r.Role != "reader" {
			if r.WaitTime != 0 {
				t.Errorf("%s rank %d: writer record with wait_ns %v", r.File, r.Rank, r.WaitTime)
			}
			continue
		}
		readers++
		t.Logf("%s reader %d: match %v, sched %v, wait %v, replay %s", filepath.Base(r.File), r.Rank, r.MatchTime, r.SchedTime, r.WaitTime, r.Replay)
		// Readers do no matching: their wait for the schedules is the wait
		// for the writers plus the round trip to the matchers.
		if r.MatchTime != 0 {
			t.Errorf("%s reader %d: match_ns %v, want 0 (readers do not match)", r.File, r.Rank, r.MatchTime)
		}
		// The rounds start once the header is in, which the writers send
		// before their puts and sleep: nearly all of the sleep is waited.
		// The wait counts from the matcher receiving the round, which its
		// background goroutine may do tens of ms late: hence the margin.
		if lo := delay - 100*time.Millisecond; r.WaitTime < lo {
			t.Errorf("%s reader %d: wait_ns %v, want at least %v", r.File, r.Rank, r.WaitTime, lo)
		}
		if r.SchedTime >= 200*time.Millisecond {
			t.Errorf("%s reader %d: sched_ns %v of coordination beyond the wait, want < 200ms", r.File, r.Rank, r.SchedTime)
		}
	}
	if readers != 2*2 {
		t.Fatalf("%d reader records, want 4 (2 ranks x 2 cycles)", readers)
	}
}
