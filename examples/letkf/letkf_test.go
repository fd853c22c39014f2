package letkf_test

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
	"github.com/couplet-hpc/couplet/examples/letkf"
	"github.com/couplet-hpc/couplet/internal/mpitest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

const (
	simPkg = "github.com/couplet-hpc/couplet/examples/letkf/sim"
	daPkg  = "github.com/couplet-hpc/couplet/examples/letkf/da"
)

// launch is one run of the example.
type launch struct {
	nsim, nda, members, cycles int
	replayIO                   string        // replay_io written into the config
	env                        []string      // extra environment of both components
	simArgs                    []string      // sizes
	mem                        bool          // -mem: report heap and resident set per cycle
	timeout                    time.Duration // of the whole mpirun; 2 minutes if zero
}

// result is what a run printed and recorded.
type result struct {
	sums   map[string]string // "sim 3" -> checksum of cycle 3
	simMS  map[int]float64   // sim rank 0's wall time per cycle
	simIO  map[int]float64   // of which in coupled I/O calls
	rss    map[string]uint64 // "da 3" -> largest VmRSS of any da rank in cycle 3, KiB (with mem)
	recs   []stats.Record
	output string
}

var (
	lineRE = regexp.MustCompile(`letkf (sim|da) cycle (\d+): verified .*, checksum ([0-9a-f]{16}), ([0-9.]+) ms(.*)`)
	ioRE   = regexp.MustCompile(`coupled I/O ([0-9.]+) ms`)
	rssRE  = regexp.MustCompile(`, rss (\d+) KiB`)
)

// run launches sim and da under one mpirun with the shipped letkf.ini,
// changed only in stats_path and replay_io.
func (l launch) run(t testing.TB) result {
	t.Helper()
	dir := t.TempDir()
	statsPath := filepath.Join(dir, "stats.jsonl")
	cfg := config(t, dir, statsPath, l.replayIO)
	sim, da := mpitest.Build(t, simPkg), mpitest.Build(t, daPkg)
	common := []string{"-cfg", cfg, "-dir", dir, "-member", strconv.Itoa(l.members), "-cycles", strconv.Itoa(l.cycles)}
	if l.mem {
		common = append(common, "-mem")
	}
	timeout := l.timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	out := mpitest.Run(t, timeout,
		mpitest.App{NP: l.nsim, Prog: sim, Args: append(slices.Clone(common), l.simArgs...), Env: l.env},
		mpitest.App{NP: l.nda, Prog: da, Args: common, Env: l.env})
	r := result{sums: map[string]string{}, simMS: map[int]float64{}, simIO: map[int]float64{}, rss: map[string]uint64{}, output: out}
	for _, m := range lineRE.FindAllStringSubmatch(out, -1) {
		key := m[1] + " " + m[2]
		if _, dup := r.sums[key]; dup {
			t.Fatalf("two lines for %s:\n%s", key, out)
		}
		r.sums[key] = m[3]
		if rss := rssRE.FindStringSubmatch(m[5]); rss != nil {
			r.rss[key], _ = strconv.ParseUint(rss[1], 10, 64)
		}
		if m[1] == "sim" {
			c, _ := strconv.Atoi(m[2])
			r.simMS[c], _ = strconv.ParseFloat(m[4], 64)
			if io := ioRE.FindStringSubmatch(m[0]); io != nil {
				r.simIO[c], _ = strconv.ParseFloat(io[1], 64)
			}
		}
	}
	for c := 0; c < l.cycles; c++ {
		for _, comp := range []string{"sim", "da"} {
			if r.sums[fmt.Sprintf("%s %d", comp, c)] == "" {
				t.Fatalf("%s did not verify cycle %d:\n%s", comp, c, out)
			}
		}
	}
	f, err := os.Open(statsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r.recs, err = stats.Read(f); err != nil {
		t.Fatal(err)
	}
	return r
}

// config writes the shipped letkf.ini into dir with stats_path and
// replay_io replaced.
func config(t testing.TB, dir, statsPath, replayIO string) string {
	t.Helper()
	b, err := os.ReadFile("letkf.ini")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, ln := range strings.Split(string(b), "\n") {
		switch k, _, _ := strings.Cut(ln, "="); strings.TrimSpace(k) {
		case "stats_path":
			ln = "stats_path = " + statsPath
		case "replay_io":
			ln = "replay_io = " + replayIO
		}
		lines = append(lines, ln)
	}
	p := filepath.Join(dir, "letkf.ini")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var pathRE = regexp.MustCompile(`m(\d{3})/c(\d{4})\.(hist|anal)\.nc$`)

// epochKey names a role's records of one kind of file and session in a cycle.
type epochKey struct {
	cycle   int
	kind    string // hist | anal
	session int
	role    string // writer | reader
	comp    string
}

// tally counts records per epochKey and replay outcome, failing on records
// with errors or of unknown files.
func tally(t *testing.T, recs []stats.Record) map[epochKey]map[stats.Outcome]int {
	t.Helper()
	out := map[epochKey]map[stats.Outcome]int{}
	for _, r := range recs {
		m := pathRE.FindStringSubmatch(r.File)
		if m == nil || r.Error != "" || r.Epoch != 0 {
			t.Fatalf("unexpected record %+v", r)
		}
		c, _ := strconv.Atoi(m[2])
		k := epochKey{c, m[3], r.Session, r.Role, r.Comp}
		if out[k] == nil {
			out[k] = map[stats.Outcome]int{}
		}
		out[k][r.Replay]++
	}
	return out
}

// TestReplayEveryCycleAfterTheFirst runs the workflow with replay on (from
// the config alone) and off (by the config and by COUPLET_REPLAY_IO=0): with
// replay on, every rank hits on every cycle after the first, in both files and
// both sessions of the analysis file (whose roles flip), and every run
// delivers the same verified data.
func TestReplayEveryCycleAfterTheFirst(t *testing.T) {
	const nsim, nda, members, cycles = 4, 2, 2, 4
	base := launch{nsim: nsim, nda: nda, members: members, cycles: cycles, simArgs: []string{"-nvars", "24", "-prc", "1x2"}}
	runs := []struct {
		name     string
		replayIO string
		env      []string
		want     stats.Outcome // after cycle 0
	}{
		{"config on", "1", nil, stats.Hit},
		{"env off", "1", []string{"COUPLET_REPLAY_IO=0"}, stats.Off},
		{"config off", "0", nil, stats.Off},
	}
	var first result
	for i, rc := range runs {
		l := base
		l.replayIO, l.env = rc.replayIO, rc.env
		r := l.run(t)
		// Who takes which role: sim writes the history and the first guess,
		// da writes the analysis back in the second session.
		roles := []struct {
			kind    string
			session int
			role    string
			comp    string
			n       int
		}{
			{"hist", 0, "writer", "sim", nsim}, {"hist", 0, "reader", "da", nda},
			{"anal", 0, "writer", "sim", nsim}, {"anal", 0, "reader", "da", nda},
			{"anal", 1, "writer", "da", nda}, {"anal", 1, "reader", "sim", nsim},
		}
		got := tally(t, r.recs)
		if len(got) != cycles*len(roles) {
			t.Errorf("%s: %d kinds of records, want %d: %v", rc.name, len(got), cycles*len(roles), got)
		}
		for c := 0; c < cycles; c++ {
			want := rc.want
			if c == 0 && want == stats.Hit {
				want = stats.Miss // the recording cycle
			}
			for _, ro := range roles {
				k := epochKey{c, ro.kind, ro.session, ro.role, ro.comp}
				if g := got[k]; g[want] != ro.n || len(g) != 1 {
					t.Errorf("%s: cycle %d %s session %d %s (%s): outcomes %v, want all %d %s", rc.name, c, ro.kind, ro.session, ro.role, ro.comp, g, ro.n, want)
				}
			}
		}
		if i == 0 {
			first = r
			continue
		}
		for k, s := range first.sums {
			if r.sums[k] != s {
				t.Errorf("%s: %s checksum %s, but %s gave %s", rc.name, k, r.sums[k], runs[0].name, s)
			}
		}
	}
	if t.Failed() {
		t.Logf("output of the replay-on run:\n%s", first.output)
	}
}

// TestGridHelpers pins the decomposition helpers the programs share.
func TestGridHelpers(t *testing.T) {
	for _, c := range []struct {
		size   int
		spec   string
		py, px int
		bad    bool
	}{
		{1, "", 1, 1, false}, {2, "", 1, 2, false}, {4, "", 2, 2, false}, {6, "", 2, 3, false},
		{4, "4x1", 4, 1, false}, {4, "3x1", 0, 0, true}, {4, "x", 0, 0, true},
	} {
		py, px, err := letkf.Grid(c.size, c.spec)
		if (err != nil) != c.bad || py != c.py || px != c.px {
			t.Errorf("Grid(%d, %q) = %d, %d, %v; want %d, %d, error %v", c.size, c.spec, py, px, err, c.py, c.px, c.bad)
		}
	}
	dom := letkf.Domain(2, 3, 4, 5, 6)
	if dom != [3]int64{6, 10, 12} {
		t.Fatalf("Domain = %v", dom)
	}
	// Blocks of a 2x3 grid and slabs of 3 ranks each tile the domain once.
	for _, parts := range [][]letkf.Box{
		{letkf.SimBlock(0, 3, 4, 5, 6), letkf.SimBlock(1, 3, 4, 5, 6), letkf.SimBlock(2, 3, 4, 5, 6),
			letkf.SimBlock(3, 3, 4, 5, 6), letkf.SimBlock(4, 3, 4, 5, 6), letkf.SimBlock(5, 3, 4, 5, 6)},
		{letkf.Slab(0, 3, dom), letkf.Slab(1, 3, dom), letkf.Slab(2, 3, dom)},
	} {
		seen := map[[3]int64]int{}
		for _, b := range parts {
			b.Each(func(n int, k, j, i int64) {
				if pk, pj, pi := b.Point(n); pk != k || pj != j || pi != i {
					t.Fatalf("%v: Point(%d) = %d,%d,%d, Each gave %d,%d,%d", b, n, pk, pj, pi, k, j, i)
				}
				seen[[3]int64{k, j, i}]++
			})
		}
		if int64(len(seen)) != dom[0]*dom[1]*dom[2] {
			t.Errorf("%v cover %d of %d points", parts, len(seen), dom[0]*dom[1]*dom[2])
		}
		for p, n := range seen {
			if n != 1 {
				t.Errorf("point %v covered %d times by %v", p, n, parts)
			}
		}
	}
}

// TestRelaxIsTheMeanUpdate checks the update on exact values.
func TestRelaxIsTheMeanUpdate(t *testing.T) {
	got := letkf.Relax([]float32{8, 0}, [][]float32{{4, 2}, {8, 6}})
	// means 6 and 4; 8 + 0.25*(6-8) = 7.5, 0 + 0.25*4 = 1
	if got[0] != 7.5 || got[1] != 1 {
		t.Fatalf("Relax = %v, want [7.5 1]", got)
	}
	b := letkf.Box{Count: [3]int64{1, 1, 2}}
	if err := letkf.Compare("x", b, []float32{1, 2}, []float32{1, 3}); err == nil || !strings.Contains(err.Error(), "(0,0,1)") {
		t.Fatalf("Compare missed or misplaced a difference: %v", err)
	}
}
