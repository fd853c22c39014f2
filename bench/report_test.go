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
	r := &Results{Command: "make bench", Machine: Machine{Cores: 2}, Memcpy: Summarize([]float64{20, 21}), MemcpyBytes: 256 << 20,
		Exchange: []ExchangePoint{ex},
		Matching: []MatchPoint{
			{Boxes: 1000, Matchers: 1, Critical: Summarize([]float64{0.001})},
			{Boxes: 10648, Matchers: 1, Critical: Summarize([]float64{0.01})},
		}}
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
	if len(paths) != 4 {
		t.Errorf("wrote %v, want PERFORMANCE.md, results.json and two plots", paths)
	}
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "PERFORMANCE.md"))
	for _, want := range []string{"| 64 MiB | 1 | 20.50 |", "0.50 (**not met**)", "Case 3: Replay", "**missing.**", "make bench", "perf/exchange.png"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("PERFORMANCE.md lacks %q:\n%s", want, md)
		}
	}
	back, err := ReadResults(filepath.Join(dir, "perf", "results.json"))
	if err != nil || len(back.Exchange) != 1 || back.Exchange[0].CoupledVsMPI != 0.5 {
		t.Errorf("results.json round trip: %+v, %v", back, err)
	}
}
