package main

import (
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf/stats"
)

func writeStatsFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.jsonl")
	w, err := stats.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for epoch := range 3 {
		start := t0.Add(time.Duration(epoch) * time.Second)
		replay := stats.Hit
		if epoch == 0 {
			replay = stats.Off
		}
		for rank := range 2 {
			recs := []stats.Record{
				{File: "out/step.nc", Epoch: epoch, Role: "writer", Rank: rank, Comp: "sim", Bytes: 4 << 20,
					MatchTime: time.Duration(4-epoch) * time.Millisecond, TransferTime: 40 * time.Millisecond,
					MsgsSent: 3, Replay: replay, Start: start, End: start.Add(50 * time.Millisecond)},
				{File: "out/step.nc", Epoch: epoch, Role: "reader", Rank: rank, Comp: "ana", Bytes: 4 << 20,
					TransferTime: time.Duration(50+10*rank) * time.Millisecond, MsgsSent: 1, Replay: replay,
					Start: start, End: start.Add(60 * time.Millisecond)},
			}
			for _, r := range recs {
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStatsCommand(t *testing.T) {
	path := writeStatsFixture(t)
	dir := filepath.Join(t.TempDir(), "plots")
	out, errOut, err := runCouplet(t, "stats", path, "-o", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	// 8 MiB read per epoch, slowest transfer 60 ms: 8 MiB / 0.06 s = 0.140 GB/s (SI).
	rows := regexp.MustCompile(`(?m)^\s*out/step\.nc\s+0\s+(\d)\s+2\s+2\s+8\.4 MB\s+(\S+)\s+60ms\s+0\.140 GB/s\s+8\s+(\w+)\s+0\s*$`).FindAllStringSubmatch(out, -1)
	if len(rows) != 3 {
		t.Fatalf("want 3 epoch rows, got %d:\n%s", len(rows), out)
	}
	for i, r := range rows {
		wantMatch := []string{"4ms", "3ms", "2ms"}[i]
		wantReplay := []string{"off", "hit", "hit"}[i]
		if r[1] != string(rune('0'+i)) || r[2] != wantMatch || r[3] != wantReplay {
			t.Errorf("row %d = %q, want epoch %d match %s replay %s", i, r[0], i, wantMatch, wantReplay)
		}
	}
	if !strings.Contains(out, "3 epoch(s), 25 MB moved, 0.140 GB/s") {
		t.Errorf("no total line:\n%s", out)
	}
	for _, name := range []string{"throughput.png", "times.png"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
			t.Errorf("%s is %v", name, b)
		}
	}
}

func TestStatsCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(bad, []byte("{\"file\":\"a\"}\nnot json\n"), 0o644)
	os.WriteFile(empty, nil, 0o644)
	tests := []struct{ path, msg string }{
		{bad, "stats line 2"},
		{empty, "no statistics records"},
		{filepath.Join(dir, "missing.jsonl"), "missing.jsonl"},
	}
	for _, tt := range tests {
		_, _, err := runCouplet(t, "stats", tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("stats %s: err = %v, want %q", tt.path, err, tt.msg)
		}
	}
}
