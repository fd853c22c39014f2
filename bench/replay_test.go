package bench

import (
	"testing"
	"time"
)

// TestRunReplay runs case 3 small: both modes deliver verified data in every
// cycle, and the statistics account for every measured cycle.
func TestRunReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("launches mpirun")
	}
	bin, err := BuildProgram(CyclesProg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := ReplayWorkload{Cycles: 3, NVars: 2, NZ: 4, NY: 8, NX: 8, WBlocks: 2}
	r, err := RunReplay(bin, w, nil, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ReplayModes {
		if r.Seconds[m].N != 2 || r.Match[m].N != 2 || r.Transfer[m].N != 2 {
			t.Errorf("%s: %d cycle times, %d match, %d transfer; want 2 each", m, r.Seconds[m].N, r.Match[m].N, r.Transfer[m].N)
		}
	}
	// Replay off never hits; replay on records writer outcomes every cycle.
	if r.Hits["off/writer"]+r.Hits["off/reader"] != 0 || r.Hits["on/writer"]+r.Misses["on/writer"] != 2*Writers {
		t.Errorf("hits %v, misses %v", r.Hits, r.Misses)
	}
	t.Logf("hits %v misses %v; cycle on %s off %s s", r.Hits, r.Misses, r.Seconds[ReplayOn].Format("%.4f"), r.Seconds[ReplayOff].Format("%.4f"))
}
