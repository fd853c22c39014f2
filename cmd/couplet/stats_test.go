package main

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf/stats"
)

// writeStatsFixture writes 3 epochs of 2 writers and 2 readers: epoch 0
// misses replay (the matchers match for 4 ms), epochs 1 and 2 hit (no
// matching). Readers 0 and 1 wait for schedules 1 and 2 ms beyond waiting
// 5 and 3 ms for the writers, and transfer for 50 and 60 ms.
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
		replay, match := stats.Hit, time.Duration(0)
		if epoch == 0 {
			replay, match = stats.Miss, 4*time.Millisecond
		}
		for rank := range 2 {
			recs := []stats.Record{
				{File: "/run/out/step.nc", Epoch: epoch, Role: "writer", Rank: rank, Comp: "sim", Bytes: 4 << 20,
					MatchTime: match * time.Duration(rank), TransferTime: 40 * time.Millisecond,
					MsgsSent: 3, Replay: replay, Start: start, End: start.Add(50 * time.Millisecond)},
				{File: "/run/out/step.nc", Epoch: epoch, Role: "reader", Rank: rank, Comp: "ana", Bytes: 4 << 20,
					SchedTime: time.Duration(1+rank) * time.Millisecond, WaitTime: time.Duration(5-2*rank) * time.Millisecond,
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

// statsRowRE is a row of the table: #, file, session, epoch, replay,
// writers, readers, bytes, match, sched, wait, transfer, GB/s, msgs, errors.
var statsRowRE = regexp.MustCompile(`(?m)^\s*(\d+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(hit|miss|off|partial)\s+(\d+)\s+(\d+)\s+(\S+ \S?B)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+|-)\s+(\d+)\s+(\d+)\s*$`)

func TestStatsCommand(t *testing.T) {
	path := writeStatsFixture(t)
	dir := filepath.Join(t.TempDir(), "plots")
	out, errOut, err := runCouplet(t, "stats", path, "-o", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	// 8 MiB read per epoch, slowest transfer 60 ms: 8 MiB / 0.06 s = 0.140 GB/s (SI).
	want := [][]string{
		{"0", "step.nc", "0", "0", "miss", "2", "2", "8.4 MB", "4.000", "2.000", "5.000", "60.000", "0.140", "8", "0"},
		{"1", "step.nc", "0", "1", "hit", "2", "2", "8.4 MB", "0.000", "2.000", "5.000", "60.000", "0.140", "8", "0"},
		{"2", "step.nc", "0", "2", "hit", "2", "2", "8.4 MB", "0.000", "2.000", "5.000", "60.000", "0.140", "8", "0"},
	}
	rows := statsRowRE.FindAllStringSubmatch(out, -1)
	if len(rows) != len(want) {
		t.Fatalf("want %d epoch rows, got %d:\n%s", len(want), len(rows), out)
	}
	for i, r := range rows {
		if !reflect.DeepEqual(r[1:], want[i]) {
			t.Errorf("row %d = %q, want %q", i, r[1:], want[i])
		}
	}
	for _, line := range []string{
		"files in /run/out\n",
		"3 epoch(s), 25 MB moved, 0.140 GB/s over the summed slowest transfer times\n",
		"replay: 2 hit epoch(s), MATCH at most 0.000 ms; 1 miss epoch(s), MATCH at least 4.000 ms\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("no line %q:\n%s", line, out)
		}
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

// TestStatsPlotsAgreeWithTable checks that every plotted point is a row of
// the table: x is the row's #, y the number the row prints, and the x axis
// labels each row with its # and replay outcome.
func TestStatsPlotsAgreeWithTable(t *testing.T) {
	recs, err := stats.ReadFile(writeStatsFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	dir, rows := statsRows(stats.Summarize(recs))
	var buf strings.Builder
	writeStatsTable(&buf, dir, rows)
	table := statsRowRE.FindAllStringSubmatch(buf.String(), -1)
	series := statsSeries(rows)
	ticks := statsTicks(rows)
	if len(table) != 3 || len(ticks) != 3 {
		t.Fatalf("%d table rows, %d ticks; want 3:\n%s", len(table), len(ticks), buf.String())
	}
	columns := map[string]int{"match": 9, "sched": 10, "wait": 11, "transfer": 12, "throughput": 13}
	for name, col := range columns {
		pts := series[name]
		if len(pts) != len(table) {
			t.Fatalf("%s: %d points for %d rows", name, len(pts), len(table))
		}
		for i, row := range table {
			y, err := strconv.ParseFloat(row[col], 64)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := strconv.Atoi(row[1]); pts[i].X != float64(n) || math.Abs(pts[i].Y-y) > 0.0005 {
				t.Errorf("%s point %d = (%g, %g), table row # %s shows %s", name, i, pts[i].X, pts[i].Y, row[1], row[col])
			}
		}
	}
	for i, row := range table {
		if want := row[1] + "\n" + row[5]; ticks[i].Label != want || ticks[i].Value != float64(i) {
			t.Errorf("tick %d = %v %q, want %d %q", i, ticks[i].Value, ticks[i].Label, i, want)
		}
	}
}

func TestCommonDir(t *testing.T) {
	tests := []struct {
		files []string
		want  string
	}{
		{[]string{"/tmp/run/out/a.nc"}, "/tmp/run/out"},
		{[]string{"/tmp/run/out/a.nc", "/tmp/run/out/b.nc"}, "/tmp/run/out"},
		{[]string{"/tmp/run/out/a.nc", "/tmp/run/in/b.nc"}, "/tmp/run"},
		{[]string{"/tmp/run/a.nc", "/tmp/running/b.nc"}, "/tmp"},
		{[]string{"/a/x.nc", "/b/y.nc"}, "/"},
		{[]string{"out/a.nc", "out/b.nc"}, "out"},
		{[]string{"a.nc", "out/b.nc"}, ""},
		{[]string{"a/x.nc", "b/y.nc"}, ""},
	}
	for _, tt := range tests {
		if got := commonDir(tt.files); got != tt.want {
			t.Errorf("commonDir(%q) = %q, want %q", tt.files, got, tt.want)
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
