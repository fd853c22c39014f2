package bench

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf/stats"
)

func TestParseExchange(t *testing.T) {
	const mib = 4
	line := func(mode, secs string) string {
		return "[1,0]<stdout>:EXCH mode=" + mode + " rep=1 bytes=4194304 seconds=" + secs + " ok=1\n"
	}
	for _, c := range []struct {
		name    string
		out     string
		wantErr string
		vsMPI   float64
		vsFile  float64
	}{
		{"all modes", line("mpi", "0.001") + line("coupled", "0.002") + line("file", "0.008") +
			line("mpi", "0.003") + line("coupled", "0.002") + line("file", "0.008"), "", 1, 4},
		{"no lines", "[1,0]<stdout>:hello\n", "no EXCH lines", 0, 0},
		{"wrong size", "EXCH mode=mpi rep=1 bytes=7 seconds=0.1 ok=1\n", "moved 7 bytes", 0, 0},
		{"unverified rounds are ignored", "EXCH mode=mpi rep=1 bytes=4194304 seconds=0.1 ok=0\n", "no EXCH lines", 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParseExchange(c.out, mib)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Reps != 2 || p.CoupledVsMPI != c.vsMPI || p.CoupledVsFile != c.vsFile {
				t.Errorf("reps %d, vs MPI %v, vs file %v; want 2, %v, %v", p.Reps, p.CoupledVsMPI, p.CoupledVsFile, c.vsMPI, c.vsFile)
			}
			if g := p.GBps[ModeCoupled].Median; g < 2.09 || g > 2.1 {
				t.Errorf("coupled GB/s %v, want 4 MiB / 2 ms = 2.097", g)
			}
		})
	}
}

// TestRunExchange runs the real helper under MPMD mpirun at a small size:
// every mode must deliver verified data in every round.
func TestRunExchange(t *testing.T) {
	if testing.Short() {
		t.Skip("launches mpirun")
	}
	bin, err := BuildProgram(ExchangeProg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	statsPath := filepath.Join(t.TempDir(), "stats.jsonl")
	p, err := RunExchange(bin, 4, 2, []string{"COUPLET_STATS=" + statsPath}, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ExchangeModes {
		if s := p.Seconds[m]; s.N != 2 || s.Min <= 0 {
			t.Errorf("mode %s: %+v, want 2 positive times", m, s)
		}
	}
	// The replay mode's first session (the warm-up round) records; each timed
	// round's session must replay it on every rank.
	recs, err := stats.ReadFile(statsPath)
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[int][]string{} // by round, in record order
	for _, r := range recs {
		var round int
		if _, err := fmt.Sscanf(filepath.Base(r.File), "replay-%d.nc", &round); err == nil {
			outcomes[round] = append(outcomes[round], fmt.Sprintf("%s %d %s", r.Role, r.Rank, r.Replay))
		}
	}
	rounds := slices.Sorted(maps.Keys(outcomes))
	if len(rounds) != 3 {
		t.Fatalf("replay sessions of rounds %v, want the warm-up's and 2 timed ones", rounds)
	}
	for _, round := range rounds[1:] {
		got := slices.Sorted(slices.Values(outcomes[round]))
		want := []string{"reader 0 hit", "reader 1 hit", "writer 0 hit", "writer 1 hit", "writer 2 hit", "writer 3 hit"}
		if !slices.Equal(got, want) {
			t.Errorf("replay session of round %d: %v, want %v", round, got, want)
		}
	}
}
