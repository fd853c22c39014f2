package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/couplet-hpc/couplet/bench"
)

// resetBenchFlags puts every bench flag back to its default: flag values
// persist between in-process runs.
func resetBenchFlags(t *testing.T) {
	t.Helper()
	benchCmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "mca" {
			if err := f.Value.Set(f.DefValue); err != nil {
				t.Fatal(err)
			}
		}
		f.Changed = false
	})
	benchMCA = nil
}

// TestBenchHelp checks that `couplet bench --help`, `-help` and `couplet
// help bench` print the same help, and that it lists the cobra flags.
func TestBenchHelp(t *testing.T) {
	var outs []string
	defer resetBenchFlags(t)
	for _, args := range [][]string{{"bench", "--help"}, {"bench", "-help"}, {"help", "bench"}} {
		resetBenchFlags(t)
		out, _, err := runCouplet(t, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		outs = append(outs, out)
	}
	for i := 1; i < len(outs); i++ {
		if outs[i] != outs[0] {
			t.Errorf("help output %d differs from `bench --help`:\n%s\n---\n%s", i, outs[i], outs[0])
		}
	}
	for _, want := range []string{"--launches int", "--cases string", "--reps int", "median of the launch medians"} {
		if !strings.Contains(outs[0], want) {
			t.Errorf("help lacks %q:\n%s", want, outs[0])
		}
	}
}

// TestBenchDoubleDash checks the single-dash spelling of long flags.
func TestBenchDoubleDash(t *testing.T) {
	fs := benchCmd.Flags()
	for _, c := range []struct{ in, want []string }{
		{[]string{"-cases", "1,4,6", "-reps", "7"}, []string{"--cases", "1,4,6", "--reps", "7"}},
		{[]string{"-quick", "--out=x", "-launches=3"}, []string{"--quick", "--out=x", "--launches=3"}},
		{[]string{"-h", "-nosuch", "--", "-cases"}, []string{"-h", "-nosuch", "--", "-cases"}},
	} {
		if got := doubleDash(fs, c.in); !slices.Equal(got, c.want) {
			t.Errorf("doubleDash(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestBenchBadFlags checks that bad bench arguments fail before measuring.
func TestBenchBadFlags(t *testing.T) {
	defer resetBenchFlags(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "-cases", "9"}, "no case 9"},
		{[]string{"bench", "--launches", "0"}, "--launches 0"},
		{[]string{"bench", "--nosuch"}, "unknown flag"},
	} {
		resetBenchFlags(t)
		_, _, err := runCouplet(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}

// TestBenchRender writes the report from the results of a run without
// measuring, and refuses what would not apply or is no run's results.
func TestBenchRender(t *testing.T) {
	defer resetBenchFlags(t)
	dir := t.TempDir()
	res := &bench.Results{Command: "make bench", Machine: bench.Machine{Cores: 2}, Memcpy: bench.Summarize([]float64{10}),
		Cases:    []bench.CaseStatus{{ID: 2, Title: "matching", Status: "measured"}},
		Matching: []bench.MatchPoint{{Boxes: 1000000, Matchers: 1, Critical: bench.Summarize([]float64{0.2})}}}
	js := filepath.Join(dir, "results.json")
	if err := res.WriteJSON(js); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "docs")
	resetBenchFlags(t)
	if _, _, err := runCouplet(t, "bench", "--render", js, "--out", out); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "PERFORMANCE.md"))
	if err != nil || !strings.Contains(string(md), "| 2 | 1000000 x 1000000 boxes | one matcher's time on one core | < 0.3 s | 0.200 s") {
		t.Errorf("rendered report (%v) lacks the matching target:\n%s", err, md)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--render", js, "--out", out, "--reps", "7"}, "--reps would not apply"},
		{[]string{"bench", "--render", empty, "--out", out}, "lists no cases"},
		{[]string{"bench", "--render", filepath.Join(dir, "nosuch.json"), "--out", out}, "no such file"},
	} {
		resetBenchFlags(t)
		_, _, err := runCouplet(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(out, "PERFORMANCE.md")); string(after) != string(md) {
		t.Error("a refused render changed the report")
	}
}
