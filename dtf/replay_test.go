package dtf_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf/stats"
	"github.com/couplet-hpc/couplet/internal/mpitest"
)

// runCycles runs the cycles scenario and returns the readers' digests, the
// per-cycle replay outcomes of each role (keyed cycle*10+session), and per
// cycle how many readers had rounds pushed and how many drained some.
func runCycles(t *testing.T, replayIO int, fileKeys string, args []string, extra ...string) (digests []string, outcomes map[int]map[string]int, pushes map[int][2]int) {
	t.Helper()
	dir := t.TempDir()
	statsPath := filepath.Join(dir, "stats.jsonl")
	cfg := writeConfig(t, dir, "transfer", append(extra, "stats_path = "+statsPath)...)
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(b, fmt.Sprintf("replay_io = %d\n%s\n", replayIO, fileKeys)...), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := mpitest.Build(t, prog)
	a := append([]string{"-cfg", cfg, "-dir", dir, "-case", "cycles"}, args...)
	out := mpitest.Run(t, 3*time.Minute, mpitest.App{NP: 4, Prog: bin, Args: a}, mpitest.App{NP: 3, Prog: bin, Args: a})
	digests = digestRE.FindAllString(out, -1)
	sort.Strings(digests)
	f, err := os.Open(statsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := stats.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	outcomes, pushes = map[int]map[string]int{}, map[int][2]int{}
	for _, r := range recs {
		var k int
		fmt.Sscanf(filepath.Base(r.File), "cycle_%d.nc", &k)
		key := k*10 + r.Session
		if outcomes[key] == nil {
			outcomes[key] = map[string]int{}
		}
		outcomes[key][r.Role+":"+string(r.Replay)]++
		p := pushes[key]
		if r.Pushed > 0 {
			p[0]++
		}
		if r.Drained > 0 {
			p[1]++
		}
		pushes[key] = p
	}
	return digests, outcomes, pushes
}

func TestReplayHitsAfterFirstCycle(t *testing.T) {
	args := []string{"-cycles", "4", "-wgrid", "2x2", "-rgrid", "3x1"}
	on, statsPath, _ := runCycles(t, 1, "", args, "num_matchers = 2")
	off, _, _ := runCycles(t, 0, "", args, "num_matchers = 2")
	if len(on) != 4*3 || strings.Join(on, "\n") != strings.Join(off, "\n") {
		t.Fatalf("replay changed the data:\non:\n%s\noff:\n%s", strings.Join(on, "\n"), strings.Join(off, "\n"))
	}
	for k := 0; k < 4; k++ {
		want := "hit"
		if k == 0 {
			want = "miss"
		}
		got := statsPath[k*10]
		if got["writer:"+want] != 4 || got["reader:"+want] != 3 {
			t.Errorf("cycle %d: outcomes %v, want every rank %s", k, got, want)
		}
	}
}

// Several pending gets ended by an explicit Transfer replay too: the order in
// which the engine batches them must not change the signature.
func TestReplayExplicitManyGets(t *testing.T) {
	_, statsPath, _ := runCycles(t, 1, "", []string{"-cycles", "4", "-nvars", "5", "-explicit", "-wgrid", "2x2", "-rgrid", "3x1"})
	for k := 1; k < 4; k++ {
		if got := statsPath[k*10]; got["writer:hit"] != 4 || got["reader:hit"] != 3 {
			t.Errorf("cycle %d: outcomes %v, want 4 writers and 3 readers to hit", k, got)
		}
	}
}

func TestReplayFallsBackWhenPatternChanges(t *testing.T) {
	_, statsPath, _ := runCycles(t, 1, "", []string{"-cycles", "5", "-change", "2", "-wgrid", "2x2", "-rgrid", "3x1", "-rgrid2", "1x3"})
	want := []string{"miss", "hit", "miss", "hit", "hit"}
	for k, w := range want {
		if got := statsPath[k*10]; got["reader:"+w] != 3 {
			t.Errorf("cycle %d: outcomes %v, want readers %s", k, got, w)
		}
	}
}

func TestReplayWithRolesFlipping(t *testing.T) {
	_, statsPath, _ := runCycles(t, 1, "num_sessions = 2", []string{"-cycles", "3", "-flip", "-wgrid", "2x2", "-rgrid", "3x1"})
	// Session 1 of each cycle's file is written by the original reader.
	for k := 1; k < 3; k++ {
		if got := statsPath[k*10]; got["writer:hit"] != 4 || got["reader:hit"] != 3 {
			t.Errorf("cycle %d session 0: outcomes %v, want 4 writers and 3 readers to hit", k, got)
		}
		if got := statsPath[k*10+1]; got["writer:hit"] != 3 || got["reader:hit"] != 4 {
			t.Errorf("cycle %d session 1: outcomes %v, want the 3 new writers and 4 new readers to hit", k, got)
		}
	}
}

// Readers late to the epoch find their rounds pushed: every writer replays
// and sends by its record at once, and the readers' recorded receives take
// the data on the writers' verdicts alone. It must equal a run without replay.
func TestReplayPushedToLateReaders(t *testing.T) {
	args := []string{"-cycles", "4", "-wgrid", "2x2", "-rgrid", "3x1", "-rdelay", "300ms"}
	on, statsPath, pushes := runCycles(t, 1, "", args, "num_matchers = 2")
	off, _, _ := runCycles(t, 0, "", args, "num_matchers = 2")
	if len(on) != 4*3 || strings.Join(on, "\n") != strings.Join(off, "\n") {
		t.Fatalf("replay changed the data:\non:\n%s\noff:\n%s", strings.Join(on, "\n"), strings.Join(off, "\n"))
	}
	for k := 1; k < 4; k++ {
		if got := statsPath[k*10]; got["writer:hit"] != 4 || got["reader:hit"] != 3 {
			t.Errorf("cycle %d: outcomes %v, want every rank to hit", k, got)
		}
		if got := pushes[k*10]; got != [2]int{3, 0} {
			t.Errorf("cycle %d: %d readers pushed, %d drained; want 3 and 0", k, got[0], got[1])
		}
	}
}

// What was pushed to a reader that no longer wants it is drained, so the
// writers' sends complete: a late reader changing its pattern (it asks
// afresh), and late readers ending the epoch with fewer rounds than they
// recorded (they drain at their last round). The program checks every value.
func TestReplayDrainsUnwantedPushes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		want    map[string]int
		drained int
	}{
		{"reader changes", []string{"-change", "2", "-split", "1"}, map[string]int{"writer:hit": 4, "reader:hit": 2, "reader:miss": 1}, 1},
		{"fewer rounds", []string{"-nvars", "3", "-twowaits", "2"}, map[string]int{"writer:hit": 4, "reader:miss": 3}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-cycles", "4", "-wgrid", "2x2", "-rgrid", "3x1", "-rdelay", "300ms"}, tc.args...)
			_, statsPath, pushes := runCycles(t, 1, "", args, "num_matchers = 2")
			if got := statsPath[20]; !maps.Equal(got, tc.want) {
				t.Errorf("cycle 2: outcomes %v, want %v", got, tc.want)
			}
			if got := pushes[20][1]; got != tc.drained {
				t.Errorf("cycle 2: %d readers drained, want %d", got, tc.drained)
			}
			if got := statsPath[30]; got["writer:hit"] != 4 || got["reader:hit"] != 3 {
				t.Errorf("cycle 3: outcomes %v, want every rank to hit again", got)
			}
		})
	}
}
