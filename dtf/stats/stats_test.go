package stats

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

var statsT0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func sampleStats() []Record {
	return []Record{
		{File: "out/a.nc", Section: 0, Session: 0, Epoch: 0, Role: "writer", Rank: 0, Comp: "sim", Bytes: 800, Requests: 2,
			MatchTime: 3 * time.Millisecond, TransferTime: 10 * time.Millisecond, MsgsSent: 4, MsgsRecv: 3, Replay: Off,
			Start: statsT0, End: statsT0.Add(13 * time.Millisecond)},
		{File: "out/a.nc", Section: 0, Session: 0, Epoch: 0, Role: "reader", Rank: 0, Comp: "ana", Bytes: 500, Requests: 1,
			SchedTime: 2 * time.Millisecond, WaitTime: time.Millisecond, TransferTime: 20 * time.Millisecond, MsgsSent: 1, MsgsRecv: 2, Replay: Off,
			Start: statsT0.Add(time.Millisecond), End: statsT0.Add(22 * time.Millisecond)},
		{File: "out/a.nc", Section: 0, Session: 0, Epoch: 0, Role: "reader", Rank: 1, Comp: "ana", Bytes: 300, Requests: 1,
			TransferTime: 5 * time.Millisecond, MsgsSent: 1, MsgsRecv: 1, Replay: Off, UserIOTime: time.Second,
			Start: statsT0.Add(time.Millisecond), End: statsT0.Add(7 * time.Millisecond)},
		{File: "out/a.nc", Section: 0, Session: 0, Epoch: 1, Role: "writer", Rank: 0, Comp: "sim", Bytes: 800,
			TransferTime: 8 * time.Millisecond, Replay: Hit, Start: statsT0.Add(time.Second), End: statsT0.Add(time.Second + 8*time.Millisecond)},
		{File: "out/a.nc", Section: 0, Session: 0, Epoch: 1, Role: "writer", Rank: 1, Comp: "sim", Bytes: 0,
			Replay: Miss, Error: "boom", Start: statsT0.Add(time.Second), End: statsT0.Add(time.Second)},
	}
}

func TestStatsRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	want := sampleStats()
	for _, r := range want {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(buf.String(), "\n"); n != len(want) {
		t.Fatalf("%d lines, want %d", n, len(want))
	}
	if !strings.Contains(buf.String(), `"transfer_ns":10000000`) || !strings.Contains(buf.String(), `"wait_ns":1000000`) || !strings.Contains(buf.String(), `"sched_ns":2000000`) {
		t.Errorf("durations not in ns: %s", buf.String())
	}
	got, err := Read(strings.NewReader("\n" + buf.String() + "\n"))
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
	var ws []*Writer
	for range 2 {
		w, err := Open(path)
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
				rec := Record{File: strings.Repeat("x", 100), Rank: g, Epoch: i, Replay: Off, Start: statsT0}
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
	recs, err := Read(f)
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
	w, err := Open("")
	if err != nil || w != nil {
		t.Fatalf("Open(\"\") = %v, %v", w, err)
	}
	if err := w.Write(Record{}); err != nil {
		t.Error(err)
	}
	if err := w.Close(); err != nil {
		t.Error(err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "no", "such", "dir", "s.jsonl")); err == nil {
		t.Error("Open in a missing directory succeeded")
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{`{"file":"a"}` + "\n" + `{"file":` + "\n", "stats line 2"},
		{`{"file":"a","replay":"maybe"}`, `line 1: bad replay value "maybe"`},
		{"\n\n" + `{"bytes":"many"}`, "stats line 3"},
	}
	for _, tt := range tests {
		_, err := Read(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Read(%q) = %v, want %q", tt.in, err, tt.msg)
		}
	}
}

func TestSummarize(t *testing.T) {
	got := Summarize(sampleStats())
	want := []Summary{
		{File: "out/a.nc", Epoch: 0, Writers: 1, Readers: 2, Bytes: 800, Requests: 4, Msgs: 6,
			Match: 3 * time.Millisecond, Sched: 2 * time.Millisecond, Wait: time.Millisecond, Transfer: 20 * time.Millisecond,
			Start: statsT0, End: statsT0.Add(22 * time.Millisecond)},
		// No reader records: bytes and transfer time come from the writers.
		{File: "out/a.nc", Epoch: 1, Writers: 2, Bytes: 800, Transfer: 8 * time.Millisecond,
			Hits: 1, Misses: 1, Errors: 1, Start: statsT0.Add(time.Second), End: statsT0.Add(time.Second + 8*time.Millisecond)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Summarize:\n got %+v\nwant %+v", got, want)
	}
	if tp, gb := got[0].Throughput(), got[0].GBps(); tp != 800/0.02 || gb != 800/0.02/1e9 {
		t.Errorf("throughput %v B/s, %v GB/s; want %v, %v", tp, gb, 800/0.02, 800/0.02/1e9)
	}
	if r0, r1 := got[0].Replay(), got[1].Replay(); r0 != "off" || r1 != "miss" {
		t.Errorf("replay %s, %s; want off, miss", r0, r1)
	}
	if (Summary{}).Throughput() != 0 {
		t.Error("throughput without time")
	}
	tot := Total(got)
	wantTot := Summary{Writers: 3, Readers: 2, Bytes: 1600, Requests: 4, Msgs: 6, Match: 3 * time.Millisecond,
		Sched: 2 * time.Millisecond, Wait: time.Millisecond, Transfer: 28 * time.Millisecond, Hits: 1, Misses: 1, Errors: 1}
	if !reflect.DeepEqual(tot, wantTot) {
		t.Errorf("Total:\n got %+v\nwant %+v", tot, wantTot)
	}
	replay := []struct {
		hits, misses, recs int
		want               string
	}{{2, 0, 2, "hit"}, {1, 0, 2, "partial"}, {0, 0, 2, "off"}, {1, 1, 2, "miss"}}
	for _, r := range replay {
		s := Summary{Writers: r.recs, Hits: r.hits, Misses: r.misses}
		if s.Replay() != r.want {
			t.Errorf("Replay(%+v) = %s, want %s", r, s.Replay(), r.want)
		}
	}
}

// TestSummarizeOrder checks that epochs sort by their earliest start, and on
// equal starts by file, session and epoch, whatever the records' order.
func TestSummarizeOrder(t *testing.T) {
	recs := []Record{
		{File: "b", Epoch: 0, Start: statsT0},
		{File: "a", Session: 1, Epoch: 0, Start: statsT0},
		{File: "a", Session: 0, Epoch: 1, Start: statsT0},
		{File: "a", Session: 0, Epoch: 0, Start: statsT0},
		{File: "c", Epoch: 0, Start: statsT0.Add(-time.Second)},
		{File: "c", Epoch: 0, Start: statsT0.Add(time.Hour)}, // a later rank of the same epoch
	}
	var got []string
	for _, s := range Summarize(recs) {
		got = append(got, fmt.Sprintf("%s/%d/%d", s.File, s.Session, s.Epoch))
	}
	want := []string{"c/0/0", "a/0/0", "a/0/1", "a/1/0", "b/0/0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}
