package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteOutputs renders a small hand-made result set (the report layer
// only: the numbers are inputs, not measurements) and checks the files.
func TestWriteOutputs(t *testing.T) {
	ex, err := ParseExchange(
		"EXCH mode=mpi rep=1 bytes=67108864 seconds=0.01 ok=1\n"+
			"EXCH mode=coupled rep=1 bytes=67108864 seconds=0.02 ok=1\n"+
			"EXCH mode=file rep=1 bytes=67108864 seconds=0.1 ok=1\n", 64)
	if err != nil {
		t.Fatal(err)
	}
	r := &Results{Command: "make bench", Machine: Machine{Cores: 2, DAMON: []string{"paddr, sampling every 500ms, pageout"}, DAMONPaused: true}, Memcpy: Summarize([]float64{20, 21}), MemcpyBytes: 256 << 20,
		Exchange: []ExchangePoint{ex},
		Matching: []MatchPoint{
			{Boxes: 1000, Matchers: 1, Critical: Summarize([]float64{0.001})},
			{Boxes: 10648, Matchers: 1, Critical: Summarize([]float64{0.01})},
		},
		Replay: &ReplayResult{Workload: ReplayWorkload{Cycles: 3, NVars: 2, NZ: 4, NY: 8, NX: 8, WBlocks: 2}, Measured: 2,
			Seconds:  map[string]Summary{ReplayOn: Summarize([]float64{1, 1}), ReplayOff: Summarize([]float64{2, 2})},
			Match:    map[string]Summary{ReplayOn: Summarize([]float64{0.1}), ReplayOff: Summarize([]float64{0.5})},
			Transfer: map[string]Summary{ReplayOn: Summarize([]float64{0.2}), ReplayOff: Summarize([]float64{0.2})},
			Hits:     map[string]int{"on/writer": 8, "on/reader": 4}, Misses: map[string]int{}, OffVsOn: 2},
		Staging: []StagingPoint{{MiB: 1024, Reps: 5, RPCvsTCP: 0.9, RPCvsCp: 2, UCXvsRPC: map[string]float64{StageUCXSM: 1.5, StageUCXTCP: 0.8},
			GBps: map[string]Summary{StageRPC: Summarize([]float64{1}), StageRawTCP: Summarize([]float64{1.1}), StageCp: Summarize([]float64{0.5}),
				StageUCXSM: Summarize([]float64{1.5}), StageUCXTCP: Summarize([]float64{0.8})},
			Seconds: map[string]Summary{StageRPC: Summarize([]float64{1}), StageRPCNoHash: Summarize([]float64{0.75}), StageRawTCP: Summarize([]float64{0.9})}}},
		Locator: []LocatorPoint{{Level: "local", Lookups: 10, Reps: 5, Median: Summarize([]float64{10})},
			{Level: "agent", Lookups: 10, Reps: 5, Median: Summarize([]float64{40})}},
		UCXExchange: []UCXExchangePoint{{MiB: 64, Reps: 5, VsMPI: map[string]float64{SysUCXSM: 0.9, SysUCXTCP: 0.4},
			GBps: map[string]Summary{SysCoupledMPI: Summarize([]float64{3}), SysUCXSM: Summarize([]float64{2.7}), SysUCXTCP: Summarize([]float64{1.2})}}},
		LoadStart: "1.00 2.00 3.00", LoadEnd: "2.00 2.00 3.00",
	}
	for _, id := range AllCases {
		cs := CaseStatus{ID: id, Title: caseTitles[id], Status: "measured"}
		if why, ok := missingReason[id]; ok {
			cs.Status, cs.Note = "missing", why
		}
		r.Cases = append(r.Cases, cs)
	}
	dir := t.TempDir()
	paths, err := WriteOutputs(r, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 7 {
		t.Errorf("wrote %v, want PERFORMANCE.md, results.json and five plots", paths)
	}
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "PERFORMANCE.md"))
	for _, want := range []string{"| 64 MiB | 1 x 1 | 20.50 |", "0.50 (**not met**)", "Case 3: Replay",
		"make bench", "perf/exchange.png", "| on | 2 | 1.0000 (1.0000–1.0000)", "Cycle time off / on: **2.00**",
		"| 1 GiB | 1 x 5 | 20.50 | 1.00 (1.00–1.00) | 1.10 (1.10–1.10) | 0.50 (0.50–0.50) | 0.90 | 1.20 | 2.00 |",
		"| 4 | 1 GiB | rpc DTL / raw TCP | >= 0.80 | 0.90 (met) |", "| 6 | 1 GiB | ucx DTL (sm) / rpc DTL | >= 1.00 | 1.50 (met) |",
		"| 6 | 64 MiB | UCX sm / couplet over MPI | >= 0.90 | 0.90 (met) |", "Discarded runs: none.", "| agent | 10 | 40.0 (40.0–40.0) | – | x 4.0 |",
		"| 64 MiB | 1 x 5 | 20.50 | 3.00 (3.00–3.00) | 2.70 (2.70–2.70) | 1.20 (1.20–1.20) | – | 0.90 | 0.40 | 0.00 |",
		"perf/ucx-staging.png", "1.00 2.00 3.00 at the start", "| Memory access monitoring (DAMON) | paddr, sampling every 500ms, pageout: paused for the measurements (",
		"| 1 | 64 MiB | couplet / raw MPI (replay on) | >= 0.95 | not measured in this run (**not met**: not measured) |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("PERFORMANCE.md lacks %q:\n%s", want, md)
		}
	}
	back, err := ReadResults(filepath.Join(dir, "perf", "results.json"))
	if err != nil || len(back.Exchange) != 1 || back.Exchange[0].CoupledVsMPI != 0.5 {
		t.Errorf("results.json round trip: %+v, %v", back, err)
	}
}

// TestMergeLaunches checks that launches combine as the median of the
// launch medians with the spread across them, and that ratios come from
// those medians.
func TestMergeLaunches(t *testing.T) {
	line := func(mode string, secs ...string) string {
		var b strings.Builder
		for i, s := range secs {
			b.WriteString("EXCH mode=" + mode + " rep=" + string(rune('1'+i)) + " bytes=4194304 seconds=" + s + " ok=1\n")
		}
		return b.String()
	}
	var ps []ExchangePoint
	for _, out := range []string{
		line("mpi", "1", "2", "3") + line("coupled", "2", "2", "9"), // medians 2, 2
		line("mpi", "4", "4", "4") + line("coupled", "1", "1", "1"), // medians 4, 1
		line("mpi", "1", "1", "1") + line("coupled", "8", "4", "4"), // medians 1, 4
	} {
		p, err := ParseExchange(out, 4)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	m := mergeExchange(ps)
	if m.Launches != 3 || len(m.LaunchSeconds) != 3 {
		t.Fatalf("launches %d, %d launch summaries; want 3, 3", m.Launches, len(m.LaunchSeconds))
	}
	for _, c := range []struct {
		mode          string
		med, min, max float64
	}{{ModeMPI, 2, 1, 4}, {ModeCoupled, 2, 1, 4}} {
		if s := m.Seconds[c.mode]; s.N != 3 || s.Median != c.med || s.Min != c.min || s.Max != c.max {
			t.Errorf("%s seconds %+v, want median %v (min %v max %v) of the launch medians", c.mode, s, c.med, c.min, c.max)
		}
	}
	if m.CoupledVsMPI != 1 {
		t.Errorf("couplet/MPI %v, want 2/2 = 1 from the merged medians", m.CoupledVsMPI)
	}
	if g := m.GBps[ModeMPI]; g.Median != float64(4<<20)/2*1e-9 {
		t.Errorf("MPI GB/s median %v, want %v", g.Median, float64(4<<20)/2*1e-9)
	}
}

// TestHashShareTarget: the hash's added share is met when every launch's share is
// below 0.10, whatever their median; a negative median (both ways stage on the same
// agents, so the hash cost less than the rounds differ by) says so.
func TestHashShareTarget(t *testing.T) {
	for _, c := range []struct {
		added    Summary // seconds; the rpc staging takes 1 s
		launches int
		share    float64
		met      bool
		measured string
	}{
		{Summarize([]float64{0.05}), 1, 0.05, true, "0.050 (hash alone: 0.600; left after the last byte: 0.001)"},
		{Summarize([]float64{0.176}), 1, 0.176, false, "0.176 (hash alone: 0.600; left after the last byte: 0.001)"},
		{Summarize([]float64{-0.204}), 1, -0.204, true, "-0.204 (hash alone: 0.600; left after the last byte: 0.001), below zero: within the rounds' noise"},
		{Summary{N: 3, Median: 0.02, Min: -0.05, Max: 0.12}, 3, 0.02, false, "0.020 (launches -0.050–0.120; hash alone: 0.600; left after the last byte: 0.001)"},
		{Summary{N: 3, Median: -0.01, Min: -0.09, Max: 0.08}, 3, -0.01, true, "-0.010 (launches -0.090–0.080; hash alone: 0.600; left after the last byte: 0.001), below zero: within the rounds' noise"},
	} {
		r := &Results{Staging: []StagingPoint{{MiB: 1024, Launches: c.launches, HashAdded: c.added, HashAddedShare: c.share, HashShare: 0.6, HashWaitShare: 0.001,
			Seconds: map[string]Summary{StageRPC: Summarize([]float64{1}), StageRPCNoHash: Summarize([]float64{1})}}}}
		var got *target
		for _, tg := range targets(r) {
			if strings.HasPrefix(tg.what, "content hash's added time") {
				got = &tg
			}
		}
		if got == nil || got.met != c.met || got.measured != c.measured {
			t.Errorf("added %+v over %d launches: %+v, want met %v, measured %q", c.added, c.launches, got, c.met, c.measured)
		}
	}
}

// TestRatioText: a ratio prints with two decimals unless they would put it on
// the other side of its target.
func TestRatioText(t *testing.T) {
	for _, c := range []struct {
		got, want float64
		text      string
	}{
		{0.8996, 0.9, "0.8996"},
		{0.89, 0.9, "0.89"},
		{0.9, 0.9, "0.90"},
		{0.9004, 0.9, "0.90"},
		{0.94999, 0.95, "0.94999"},
		{1.2345, 1.3, "1.23"},
		{0.9499999999, 0.95, "0.9499999999"},
	} {
		if got := ratioText(c.got, c.want); got != c.text {
			t.Errorf("ratioText(%v, %v) = %q, want %q", c.got, c.want, got, c.text)
		}
	}
}

// TestLaunchRange: the ratio within each launch, its least and greatest, each with the
// decimals that put it on its side of the target, and nothing for one launch or a
// launch that lacks a system.
func TestLaunchRange(t *testing.T) {
	l := func(base, sys float64) map[string]Summary {
		return map[string]Summary{"base": Summarize([]float64{base}), "sys": Summarize([]float64{sys})}
	}
	three := []map[string]Summary{l(1, 1.25), l(2, 2), l(0.9, 1)}
	for _, c := range []struct {
		name string
		ls   []map[string]Summary
		goal float64
		want string
	}{
		{"three", three, 0.95, " (launches 0.80–1.00)"},
		{"just under the target", []map[string]Summary{l(0.946, 1), l(0.948, 1)}, 0.95, " (launches 0.946–0.948)"},
		{"one", three[:1], 0.95, ""},
		{"missing", []map[string]Summary{l(1, 1), {"base": Summarize([]float64{1})}}, 0.95, ""},
	} {
		if got := launchRange(c.ls, "base", "sys", c.goal); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
