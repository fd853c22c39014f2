package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf/config"
	"github.com/couplet-hpc/couplet/examples/heat/heatfile"
	"github.com/couplet-hpc/couplet/internal/mpitest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

// testJob is a small run: 200 rows split 66/67/67 over the readers, 2×2
// writer blocks of uneven width, 4 step files.
func testJob(t *testing.T) job {
	return job{
		heat:    mpitest.Build(t, pkgs["heat"]),
		analyze: mpitest.Build(t, pkgs["analyze"]),
		writers: 4, readers: 3,
		nx: 150, ny: 200, steps: 40, every: 10,
		out: t.TempDir(),
	}
}

// analyzeLines returns what analyze's rank 0 printed: world rank writers in
// the coupled run, 0 when analyze ran alone.
func analyzeLines(j job, out string, alone bool) []string {
	if alone {
		return mpitest.RankLines(out, 0)
	}
	return mpitest.RankLines(out, j.writers)
}

// wantVerified checks analyze's per-step and final verification lines.
func wantVerified(t *testing.T, j job, out string, alone bool) {
	t.Helper()
	lines := strings.Join(analyzeLines(j, out, alone), "\n")
	steps := heatfile.OutputSteps(j.steps, j.every)
	for _, s := range steps {
		prefix := fmt.Sprintf("step %04d: mean=", s)
		i := strings.Index(lines, prefix)
		if i < 0 {
			t.Errorf("no line for step %d; analyze printed:\n%s", s, lines)
			continue
		}
		line, _, _ := strings.Cut(lines[i:], "\n")
		if !strings.Contains(line, " verification OK (") {
			t.Errorf("step %d not verified: %s", s, line)
		}
	}
	if want := fmt.Sprintf("verification OK: %d steps,", len(steps)); !strings.Contains(lines, want) {
		t.Errorf("no %q line; analyze printed:\n%s", want, lines)
	}
}

// TestCoupled runs heat and analyze under one MPMD mpirun in each coupling
// mode and checks analyze's verification and what each mode leaves behind.
func TestCoupled(t *testing.T) {
	cases := []struct {
		name     string
		mode     config.FileMode
		explicit bool
	}{
		{"transfer", config.ModeTransfer, false},
		{"transfer-explicit", config.ModeTransfer, true},
		{"file", config.ModeFile, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := testJob(t)
			j.explicit = c.explicit
			dir := t.TempDir()
			stats := ""
			if c.mode == config.ModeTransfer {
				stats = filepath.Join(dir, "stats.jsonl")
			}
			j.config = filepath.Join(dir, "couple.ini")
			if err := writeConfig(j.config, c.mode, stats); err != nil {
				t.Fatal(err)
			}
			out := launch(t, 2*time.Minute, j.apps()...)
			wantVerified(t, j, out, false)
			var report []string
			var err error
			if c.mode == config.ModeTransfer {
				report, err = checkTransfer(j, stats)
			} else {
				report, err = checkFiles(j)
			}
			t.Log(strings.Join(report, "\n"))
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestPlainFiles runs the two programs without any coupling, one after the
// other on real files, then corrupts one file so that only the weighted
// checksum can tell, and expects analyze to fail verification.
func TestPlainFiles(t *testing.T) {
	j := testJob(t)
	j.config = ""
	apps := j.apps()
	for i := range apps {
		apps[i].Args = withoutConfig(apps[i].Args)
	}
	launch(t, time.Minute, apps[0])
	out := launch(t, time.Minute, apps[1])
	wantVerified(t, j, out, true)

	// Swap two neighbouring values of T in the last file: sum, sum of
	// squares, min and max stay the same.
	files := stepFiles(j)
	last := files[len(files)-1]
	swapInT(t, last, int64(j.ny), int64(j.nx))
	out = mpitest.RunExpectFail(t, time.Minute, apps[1])
	lines := strings.Join(analyzeLines(j, out, true), "\n")
	for _, want := range []string{"verification FAILED", heatfile.AttWSum, fmt.Sprintf("verification FAILED: 1 of %d steps", len(files))} {
		if !strings.Contains(lines, want) {
			t.Errorf("analyze output lacks %q:\n%s", want, lines)
		}
	}
	if strings.Contains(lines, heatfile.AttSum+"=") {
		t.Errorf("a swap changed the plain sum:\n%s", lines)
	}
}

// launch runs apps under mpirun and fails the test with the whole output
// if the job fails: heat and analyze report errors as plain lines, which
// mpitest.Run does not pick out.
func launch(t *testing.T, timeout time.Duration, apps ...mpitest.App) string {
	t.Helper()
	r := mpitest.Launch(timeout, apps...)
	if r.Err != nil {
		t.Fatalf("%v after %v; output:\n%s", r.Err, r.Elapsed.Round(time.Millisecond), r.Output)
	}
	return r.Output
}

// withoutConfig drops the -config flag and its value from args.
func withoutConfig(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "-config" {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// swapInT swaps the two horizontally adjacent values of T that differ
// most, in a step file whose T (ny×nx doubles) precedes flux (floats) and
// step (one int64), which end the file.
func swapInT(t *testing.T, path string, ny, nx int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := ny * nx
	begin := int64(len(b)) - 4*n - 8 - 8*n
	if begin < 0 {
		t.Fatalf("%s: %d bytes is too short for %d elements", path, len(b), n)
	}
	val := func(k int64) float64 {
		return math.Float64frombits(binary.BigEndian.Uint64(b[begin+8*k:]))
	}
	best, bestDiff := int64(-1), 0.0
	for k := int64(0); k < n-1; k++ {
		if k%nx != nx-1 && math.Abs(val(k)-val(k+1)) > bestDiff {
			best, bestDiff = k, math.Abs(val(k)-val(k+1))
		}
	}
	if bestDiff < 1e-3 {
		t.Fatalf("%s: no two neighbouring values of T differ (largest difference %g)", path, bestDiff)
	}
	x, y := b[begin+8*best:begin+8*best+8], b[begin+8*best+8:begin+8*best+16]
	tmp := binary.BigEndian.Uint64(x)
	binary.BigEndian.PutUint64(x, binary.BigEndian.Uint64(y))
	binary.BigEndian.PutUint64(y, tmp)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCoupleIni keeps examples/heat/couple.ini the config the demo writes
// for transfer mode, and valid.
func TestCoupleIni(t *testing.T) {
	path := filepath.Join("..", "heat", "couple.ini")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := configText(config.ModeTransfer, ""); string(b) != want {
		t.Errorf("%s differs from the demo's transfer config:\n%s\nwant:\n%s", path, b, want)
	}
	cfg, err := config.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range heatfile.OutputSteps(100, 20) {
		p := heatfile.FileName("/some/run/dir", s)
		fc, ok := cfg.FileFor(p)
		if !ok || fc.Mode != config.ModeTransfer {
			t.Errorf("%s is not coupled in transfer mode by %s", p, path)
		}
	}
}
