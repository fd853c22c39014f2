package letkf_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf/stats"
)

// TestSoak200 runs 200 cycles of a small ensemble with replay on and checks
// that resident memory stays flat: the largest VmRSS of any rank of each
// component grows less than 5% from cycle 10 (after warm-up: recording,
// first-touch of buffers, MPI and UCX pools) to cycle 200. It also checks
// that replay served every cycle after the first, so the soak exercised the
// replay path (whose records must be freed per num_sessions), not matching.
func TestSoak200(t *testing.T) {
	if testing.Short() || os.Getenv("COUPLET_RELIABILITY") == "" {
		t.Skip("slow soak: run with make reliability (COUPLET_RELIABILITY=1)")
	}
	const cycles, warm, limit = 200, 10, 0.05
	l := launch{nsim: 4, nda: 2, members: 2, cycles: cycles, replayIO: "1", mem: true, timeout: 15 * time.Minute,
		simArgs: []string{"-nvars", "8", "-imax", "4", "-jmax", "4", "-kmax", "4", "-prc", "1x2"}}
	start := time.Now()
	r := l.run(t)
	t.Logf("%d cycles in %v", cycles, time.Since(start).Round(time.Millisecond))
	for _, comp := range []string{"sim", "da"} {
		at := func(c int) uint64 { return r.rss[fmt.Sprintf("%s %d", comp, c)] }
		base, end := at(warm), at(cycles-1)
		var peak uint64
		for c := warm; c < cycles; c++ {
			if at(c) == 0 {
				t.Fatalf("%s reported no resident set in cycle %d:\n%s", comp, c, r.output)
			}
			peak = max(peak, at(c))
		}
		growth := float64(end)/float64(base) - 1
		t.Logf("%s: largest VmRSS of any rank: cycle 0 %d KiB, cycle %d %d KiB, cycle %d %d KiB (growth %+.2f%%), peak after warm-up %d KiB",
			comp, at(0), warm, base, cycles, end, 100*growth, peak)
		if growth >= limit {
			t.Errorf("%s: resident memory grew %.2f%% from cycle %d to cycle %d (%d to %d KiB), want under %.0f%%",
				comp, 100*growth, warm, cycles, base, end, 100*limit)
		}
	}
	// Every writer and reader rank hit replay in every cycle after the
	// first (each cycle: history, first guess, analysis written back).
	got := tally(t, r.recs)
	for k, outcomes := range got {
		want := stats.Hit
		if k.cycle == 0 {
			want = stats.Miss
		}
		if len(outcomes) != 1 || outcomes[want] == 0 {
			t.Errorf("cycle %d %s session %d %s (%s): replay outcomes %v, want all %s", k.cycle, k.kind, k.session, k.role, k.comp, outcomes, want)
		}
	}
	if len(got) != cycles*6 {
		t.Errorf("%d kinds of epoch records, want %d (6 per cycle)", len(got), cycles*6)
	}
}
