package dtf_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf/stats"
	"github.com/couplet-hpc/couplet/internal/mpitest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

const prog = "github.com/couplet-hpc/couplet/dtf/testprogs/coupled"

// writeConfig writes a two-component config coupling every .nc file.
func writeConfig(t *testing.T, dir, mode string, extra ...string) string {
	t.Helper()
	cfg := fmt.Sprintf(`[INFO]
ncomp = 2
comp_name = w
comp_name = r
timeout = 60
%s

[FILE]
filename = %%.nc
comp1 = w
comp2 = r
mode = %s
`, strings.Join(extra, "\n"), mode)
	p := filepath.Join(dir, "couple.ini")
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// couple runs np writers and nr readers of one scenario.
func couple(t *testing.T, mode string, nw, nr int, args []string, extra ...string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, mode, extra...)
	bin := mpitest.Build(t, prog)
	a := append([]string{"-cfg", cfg, "-dir", dir}, args...)
	return mpitest.Run(t, 3*time.Minute, mpitest.App{NP: nw, Prog: bin, Args: a}, mpitest.App{NP: nr, Prog: bin, Args: a})
}

func TestDecompositions(t *testing.T) {
	cases := []struct {
		name         string
		nw, nr       int
		wgrid, rgrid string
		size         []string // -ny and -nx when not the defaults
	}{
		{"4to2", 4, 2, "4x1", "2x1", nil},
		{"2to3", 2, 3, "2x1", "1x3", nil},
		{"3to5 uneven", 3, 5, "3x1", "5x1", nil},
		{"2x2 to 3x1", 4, 3, "2x2", "3x1", nil},
		// 2 MiB per writer: the blocking put's copy is mapped memory (copyArena).
		{"2to2 mapped copies", 2, 2, "2x1", "1x2", []string{"-ny", "1024", "-nx", "512"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"-case", "decomp", "-wgrid", c.wgrid, "-rgrid", c.rgrid}, c.size...)
			couple(t, "transfer", c.nw, c.nr, args, "num_matchers = 2")
		})
	}
}

func TestScenarios(t *testing.T) {
	cases := []struct {
		name  string
		extra []string
	}{
		{"types", nil},
		{"families", nil},
		{"nonblocking", nil},
		{"record", nil},
		{"twofiles", nil},
		{"epochs", []string{"buffer_data = 0"}},
		{"pattern", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			couple(t, "transfer", 4, 3, []string{"-case", c.name, "-wgrid", "2x2", "-rgrid", "3x1"}, c.extra...)
		})
	}
}

func TestUncoveredReadFails(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "transfer")
	bin := mpitest.Build(t, prog)
	a := []string{"-cfg", cfg, "-dir", dir, "-case", "uncovered", "-wgrid", "2x1", "-rgrid", "2x1"}
	start := time.Now()
	out := mpitest.Run(t, 2*time.Minute, mpitest.App{NP: 2, Prog: bin, Args: a}, mpitest.App{NP: 2, Prog: bin, Args: a})
	if !strings.Contains(out, "UNCOVERED") || !strings.Contains(out, "never written") {
		t.Fatalf("no uncovered-read error reported:\n%s", out)
	}
	if time.Since(start) > 30*time.Second {
		t.Fatalf("the error took %v: it should come when the writer's epoch ends, not at the timeout", time.Since(start))
	}
}

func TestUnwrittenFill(t *testing.T) {
	dir := t.TempDir()
	statsPath := filepath.Join(dir, "stats.jsonl")
	cfg := writeConfig(t, dir, "transfer", "unwritten = fill", "stats_path = "+statsPath)
	bin := mpitest.Build(t, prog)
	a := []string{"-cfg", cfg, "-dir", dir, "-case", "uncovered", "-fill", "-wgrid", "2x1", "-rgrid", "3x1"}
	out := mpitest.Run(t, 2*time.Minute, mpitest.App{NP: 2, Prog: bin, Args: a}, mpitest.App{NP: 3, Prog: bin, Args: a})
	if strings.Count(out, "FILLED") != 3 {
		t.Fatalf("not every reader saw its data:\n%s", out)
	}
	f, err := os.Open(statsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := stats.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	var wbytes, rbytes int64
	roles := map[string]int{}
	for _, r := range recs {
		roles[r.Role]++
		if r.Role == "writer" {
			wbytes += r.Bytes
		} else {
			rbytes += r.Bytes
		}
	}
	// 12 written rows of 11 doubles reach the readers; the last row is filled.
	if roles["writer"] != 2 || roles["reader"] != 3 || wbytes != 12*11*8 || rbytes != wbytes {
		t.Fatalf("stats: roles %v, writers sent %d bytes, readers got %d", roles, wbytes, rbytes)
	}
}

var digestRE = regexp.MustCompile(`DIGEST \S+ rank \d+ [0-9a-f]+`)

// TestTransferAndFileModeAgree runs the same programs in both modes and
// compares what the readers received.
func TestTransferAndFileModeAgree(t *testing.T) {
	args := []string{"-case", "decomp", "-wgrid", "2x2", "-rgrid", "3x1", "-ny", "40", "-nx", "33"}
	digests := func(out string) []string {
		d := digestRE.FindAllString(out, -1)
		sort.Strings(d)
		return d
	}
	a := digests(couple(t, "transfer", 4, 3, args))
	b := digests(couple(t, "file", 4, 3, args))
	if len(a) != 3 || strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("transfer mode received\n%s\nfile mode received\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
}
