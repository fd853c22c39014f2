package dtf

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

var statsT0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func sampleStats() []EpochStats {
	return []EpochStats{
		{File: "out/a.nc", Section: 0, Session: 0, Epoch: 0, Role: "writer", Rank: 0, Comp: "sim", Bytes: 800, Requests: 2,
			MatchTime: 3 * time.Millisecond, TransferTime: 10 * time.Millisecond, MsgsSent: 4, MsgsRecv: 3, Replay: ReplayOff,
			Start: statsT0, End: statsT0.Add(13 * time.Millisecond)},
		{File: "out/a.nc", Section: 0, Session: 0, Epoch: 0, Role: "reader", Rank: 0, Comp: "ana", Bytes: 500, Requests: 1,
			MatchTime: 2 * time.Millisecond, WaitTime: time.Millisecond, TransferTime: 20 * time.Millisecond, MsgsSent: 1, MsgsRecv: 2, Replay: ReplayOff,
			Start: statsT0.Add(time.Millisecond), End: statsT0.Add(22 * time.Millisecond)},
		{File: "out/a.nc", Section: 0, Session: 0, Epoch: 0, Role: "reader", Rank: 1, Comp: "ana", Bytes: 300, Requests: 1,
			TransferTime: 5 * time.Millisecond, MsgsSent: 1, MsgsRecv: 1, Replay: ReplayOff, UserIOTime: time.Second,
			Start: statsT0.Add(time.Millisecond), End: statsT0.Add(7 * time.Millisecond)},
		{File: "out/a.nc", Section: 0, Session: 0, Epoch: 1, Role: "writer", Rank: 0, Comp: "sim", Bytes: 800,
			TransferTime: 8 * time.Millisecond, Replay: ReplayHit, Start: statsT0.Add(time.Second), End: statsT0.Add(time.Second + 8*time.Millisecond)},
		{File: "out/a.nc", Section: 0, Session: 0, Epoch: 1, Role: "writer", Rank: 1, Comp: "sim", Bytes: 0,
			Replay: ReplayMiss, Error: "boom", Start: statsT0.Add(time.Second), End: statsT0.Add(time.Second)},
	}
}

func TestStatsRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewStatsWriter(&buf)
	want := sampleStats()
	for _, r := range want {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(buf.String(), "\n"); n != len(want) {
		t.Fatalf("%d lines, want %d", n, len(want))
	}
	if !strings.Contains(buf.String(), `"transfer_ns":10000000`) || !strings.Contains(buf.String(), `"wait_ns":1000000`) {
		t.Errorf("durations not in ns: %s", buf.String())
	}
	got, err := ReadStats(strings.NewReader("\n" + buf.String() + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
}

func TestStatsWriterConcurrentFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	// Two writers on one file, as two ranks would have.
	var ws []*StatsWriter
	for range 2 {
		w, err := OpenStatsWriter(path)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	const per = 200
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				rec := EpochStats{File: strings.Repeat("x", 100), Rank: g, Epoch: i, Replay: ReplayOff, Start: statsT0}
				if err := ws[g%2].Write(rec); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, w := range ws {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := ReadStats(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 8*per {
		t.Fatalf("%d records, want %d", len(recs), 8*per)
	}
	seen := map[[2]int]bool{}
	for _, r := range recs {
		seen[[2]int{r.Rank, r.Epoch}] = true
	}
	if len(seen) != 8*per {
		t.Errorf("%d distinct records, want %d", len(seen), 8*per)
	}
}

func TestStatsOff(t *testing.T) {
	w, err := OpenStatsWriter("")
	if err != nil || w != nil {
		t.Fatalf("OpenStatsWriter(\"\") = %v, %v", w, err)
	}
	if err := w.Write(EpochStats{}); err != nil {
		t.Error(err)
	}
	if err := w.Close(); err != nil {
		t.Error(err)
	}
	if _, err := OpenStatsWriter(filepath.Join(t.TempDir(), "no", "such", "dir", "s.jsonl")); err == nil {
		t.Error("OpenStatsWriter in a missing directory succeeded")
	}
}

func TestReadStatsErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{`{"file":"a"}` + "\n" + `{"file":` + "\n", "stats line 2"},
		{`{"file":"a","replay":"maybe"}`, `line 1: bad replay value "maybe"`},
		{"\n\n" + `{"bytes":"many"}`, "stats line 3"},
	}
	for _, tt := range tests {
		_, err := ReadStats(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ReadStats(%q) = %v, want %q", tt.in, err, tt.msg)
		}
	}
}

func TestSummarizeStats(t *testing.T) {
	sums := SummarizeStats(sampleStats())
	if len(sums) != 2 {
		t.Fatalf("%d summaries, want 2", len(sums))
	}
	e0, e1 := sums[0], sums[1]
	if e0.Epoch != 0 || e0.Writers != 1 || e0.Readers != 2 || e0.Bytes != 800 || e0.Requests != 4 || e0.Msgs != 6 {
		t.Errorf("epoch 0: %+v", e0)
	}
	if e0.MaxTransfer != 20*time.Millisecond || e0.MaxMatch != 3*time.Millisecond || e0.MaxWait != time.Millisecond {
		t.Errorf("epoch 0 times: transfer %v match %v wait %v", e0.MaxTransfer, e0.MaxMatch, e0.MaxWait)
	}
	if got := e0.Throughput(); got != 800/0.02 {
		t.Errorf("throughput %v", got)
	}
	if !e0.Start.Equal(statsT0) || !e0.End.Equal(statsT0.Add(22*time.Millisecond)) || e0.Replay() != "off" {
		t.Errorf("epoch 0: start %v end %v replay %s", e0.Start, e0.End, e0.Replay())
	}
	// No reader records: bytes come from the writers.
	if e1.Epoch != 1 || e1.Bytes != 800 || e1.Replay() != "miss" || e1.Errors != 1 || e1.ReplayHits != 1 {
		t.Errorf("epoch 1: %+v replay %s", e1, e1.Replay())
	}
	if (EpochSummary{}).Throughput() != 0 {
		t.Error("throughput without time")
	}
	replay := []struct {
		hits, misses, recs int
		want               string
	}{{2, 0, 2, "hit"}, {1, 0, 2, "partial"}, {0, 0, 2, "off"}, {1, 1, 2, "miss"}}
	for _, r := range replay {
		s := EpochSummary{Writers: r.recs, ReplayHits: r.hits, ReplayMisses: r.misses}
		if s.Replay() != r.want {
			t.Errorf("Replay(%+v) = %s, want %s", r, s.Replay(), r.want)
		}
	}
}
