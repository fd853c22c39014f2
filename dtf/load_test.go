package dtf_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf/stats"
	"github.com/couplet-hpc/couplet/internal/mpitest"
)

const loadProg = "github.com/couplet-hpc/couplet/dtf/testprogs/load"

// loadConfig writes a two-component config with the given [INFO] and [FILE]
// extras.
func loadConfig(t *testing.T, dir string, info, file []string) string {
	t.Helper()
	cfg := fmt.Sprintf("[INFO]\nncomp = 2\ncomp_name = w\ncomp_name = r\ntimeout = 120\n%s\n\n[FILE]\nfilename = %%.nc\ncomp1 = w\ncomp2 = r\nmode = transfer\n%s\n",
		strings.Join(info, "\n"), strings.Join(file, "\n"))
	p := filepath.Join(dir, "load.ini")
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var boxesRE = regexp.MustCompile(`BOXES (\w) rank \d+ (\d+)`)

// TestLoadManyRanksOneMatcher puts 8 writers and 4 readers on one matcher,
// writing rows and reading columns element by element: the matcher
// intersects 4096 read boxes with 4096 write boxes and every value is checked.
func TestLoadManyRanksOneMatcher(t *testing.T) {
	dir := t.TempDir()
	cfg := loadConfig(t, dir, []string{"num_matchers = 1"}, nil)
	bin := mpitest.Build(t, loadProg)
	a := []string{"-cfg", cfg, "-dir", dir, "-case", "boxes", "-ny", "64", "-nx", "64", "-tile", "1"}
	start := time.Now()
	out := mpitest.Run(t, 3*time.Minute, mpitest.App{NP: 8, Prog: bin, Args: a}, mpitest.App{NP: 4, Prog: bin, Args: a})
	boxes := map[string]int{}
	ranks := map[string]int{}
	for _, m := range boxesRE.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		boxes[m[1]] += n
		ranks[m[1]]++
	}
	if ranks["w"] != 8 || ranks["r"] != 4 || boxes["w"] != 4096 || boxes["r"] != 4096 {
		t.Fatalf("ranks %v boxes %v, want 8 writers and 4 readers with 4096 boxes each side:\n%s", ranks, boxes, out)
	}
	t.Logf("8 writers, 1 matcher, 4 readers: %d write boxes, %d read boxes, all values checked, %v", boxes["w"], boxes["r"], time.Since(start).Round(time.Millisecond))
}

// TestLoadReplaySoak runs many cycles of one file per cycle with replay on
// and checks that every rank's resident memory stays flat after warm-up.
func TestLoadReplaySoak(t *testing.T) {
	if testing.Short() || os.Getenv("COUPLET_RELIABILITY") == "" {
		t.Skip("slow soak: run with make reliability (COUPLET_RELIABILITY=1)")
	}
	cycles := 200
	if s := os.Getenv("SOAK_CYCLES"); s != "" {
		cycles, _ = strconv.Atoi(s)
	}
	dir := t.TempDir()
	statsPath := filepath.Join(dir, "stats.jsonl")
	cfg := loadConfig(t, dir, []string{"num_matchers = 1", "stats_path = " + statsPath}, []string{"replay_io = 1"})
	bin := mpitest.Build(t, loadProg)
	a := []string{"-cfg", cfg, "-dir", dir, "-case", "soak", "-ny", "64", "-nx", "64", "-tile", "8", "-cycles", strconv.Itoa(cycles)}
	start := time.Now()
	mpitest.Run(t, 20*time.Minute, mpitest.App{NP: 2, Prog: bin, Args: a}, mpitest.App{NP: 2, Prog: bin, Args: a})
	elapsed := time.Since(start)
	samples := map[string][]int64{}
	files, _ := filepath.Glob(filepath.Join(dir, "rss_*.txt"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var kb []int64
		for _, line := range strings.Fields(string(b)) {
			v, err := strconv.ParseInt(line, 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			kb = append(kb, v)
		}
		samples[strings.TrimSuffix(filepath.Base(f), ".txt")] = kb
	}
	if len(samples) != 4 {
		t.Fatalf("%d ranks reported memory, want 4", len(samples))
	}
	warm := cycles / 5
	for key, kb := range samples {
		if len(kb) != cycles {
			t.Fatalf("%s: %d samples, want %d", key, len(kb), cycles)
		}
		base := slices.Max(kb[warm : 2*warm])
		end := slices.Max(kb[cycles-warm:])
		growth := end - base
		t.Logf("%s: VmRSS cycle 0 %d KiB, after warm-up (max of cycles %d-%d) %d KiB, last %d cycles max %d KiB, growth %d KiB",
			key, kb[0], warm, 2*warm-1, base, warm, end, growth)
		// Flat: allow 2 MiB of allocator and GC noise, and 5% on top.
		if growth > 2048+base/20 {
			t.Errorf("%s: resident memory grew %d KiB from %d KiB over %d cycles after warm-up", key, growth, base, cycles-2*warm)
		}
	}
	t.Logf("%d cycles in %v (%.1f ms/cycle)", cycles, elapsed.Round(time.Millisecond), float64(elapsed.Milliseconds())/float64(cycles))
	// Replay served every cycle after the first: the soak exercised the
	// replay path, not full matching.
	f, err := os.Open(statsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := stats.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	hits := map[stats.Outcome]int{}
	for _, r := range recs {
		if r.Role == "writer" {
			hits[r.Replay]++
		}
	}
	if hits[stats.Hit] != 2*(cycles-1) {
		t.Errorf("writer replay outcomes %v, want %d hits (2 writers, every cycle after the first)", hits, 2*(cycles-1))
	}
}
