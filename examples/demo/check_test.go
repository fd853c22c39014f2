package main

import (
	"strings"
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf/stats"
)

// TestCheckReplay feeds checkReplay the epochs of three step files: the
// first must miss replay and record matching time, the later ones hit with
// none, each file one epoch.
func TestCheckReplay(t *testing.T) {
	files := []string{"/o/heat_0010.nc", "/o/heat_0020.nc", "/o/heat_0030.nc"}
	ep := func(file string, outcome stats.Outcome, match time.Duration) stats.Summary {
		s := stats.Summary{File: file, Writers: 2, Readers: 1, Match: match}
		switch outcome {
		case stats.Hit:
			s.Hits = 3
		case stats.Miss:
			s.Misses = 3
		}
		return s
	}
	good := func() []stats.Summary {
		return []stats.Summary{ep(files[0], stats.Miss, time.Millisecond), ep(files[1], stats.Hit, 0), ep(files[2], stats.Hit, 0)}
	}
	tests := []struct {
		name string
		edit func([]stats.Summary) []stats.Summary
		want string // error text; "" for none
	}{
		{"miss then hits", func(s []stats.Summary) []stats.Summary { return s }, ""},
		{"first hits", func(s []stats.Summary) []stats.Summary { s[0] = ep(files[0], stats.Hit, 0); return s },
			"heat_0010.nc: replay hit (3 hit, 0 miss of 3 ranks), want miss"},
		{"a later one misses", func(s []stats.Summary) []stats.Summary { s[2] = ep(files[2], stats.Miss, time.Millisecond); return s },
			"heat_0030.nc: replay miss (0 hit, 3 miss of 3 ranks), want hit"},
		{"replay off", func(s []stats.Summary) []stats.Summary { s[1] = ep(files[1], stats.Off, time.Millisecond); return s },
			"heat_0020.nc: replay off (0 hit, 0 miss of 3 ranks), want hit"},
		{"a hit that matched", func(s []stats.Summary) []stats.Summary { s[1].Match = time.Microsecond; return s },
			"heat_0020.nc hit replay but records 1µs of matching"},
		{"a miss without matching", func(s []stats.Summary) []stats.Summary { s[0].Match = 0; return s },
			"heat_0010.nc missed replay but records no matching time"},
		{"a file without statistics", func(s []stats.Summary) []stats.Summary { return s[:2] },
			"/o/heat_0030.nc has 0 epochs, want 1"},
		{"a file with two epochs", func(s []stats.Summary) []stats.Summary { return append(s, ep(files[2], stats.Hit, 0)) },
			"/o/heat_0030.nc has 2 epochs, want 1"},
	}
	for _, tt := range tests {
		line, err := checkReplay(files, tt.edit(good()))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want == "" && line != "replay: heat_0010.nc was matched (miss, 1.000 ms matching); the 2 later step files replayed its schedule (hit, no matching)":
			t.Errorf("%s: line %q", tt.name, line)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}
