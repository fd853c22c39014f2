package stats

import (
	"testing"
	"time"
)

func TestCompareReplay(t *testing.T) {
	ms := time.Millisecond
	hit := func(m time.Duration) Summary { return Summary{Writers: 1, Readers: 1, Hits: 2, Match: m} }
	miss := func(m time.Duration) Summary { return Summary{Writers: 1, Readers: 1, Hits: 1, Misses: 1, Match: m} }
	off := Summary{Writers: 1, Readers: 1, Match: 9 * ms}
	partial := Summary{Writers: 1, Readers: 1, Hits: 1, Match: 9 * ms}
	tests := []struct {
		name   string
		sums   []Summary
		want   ReplayGap
		faster bool
	}{
		{"miss then hits", []Summary{miss(3 * ms), hit(0), hit(0)}, ReplayGap{Hits: 2, Misses: 1, MissMatchMin: 3 * ms}, true},
		{"smallest miss, largest hit", []Summary{miss(5 * ms), hit(ms), miss(2 * ms), hit(0)}, ReplayGap{Hits: 2, Misses: 2, HitMatchMax: ms, MissMatchMin: 2 * ms}, true},
		{"a hit as slow as a miss", []Summary{miss(2 * ms), hit(2 * ms)}, ReplayGap{Hits: 1, Misses: 1, HitMatchMax: 2 * ms, MissMatchMin: 2 * ms}, false},
		{"a miss that matched nothing", []Summary{miss(0), hit(0)}, ReplayGap{Hits: 1, Misses: 1}, false},
		{"off and partial left out", []Summary{off, partial, miss(ms)}, ReplayGap{Misses: 1, MissMatchMin: ms}, false},
		{"no misses", []Summary{hit(0)}, ReplayGap{Hits: 1}, false},
		{"nothing", nil, ReplayGap{}, false},
	}
	for _, tt := range tests {
		g := CompareReplay(tt.sums)
		if g != tt.want || g.HitsFaster() != tt.faster {
			t.Errorf("%s: %+v, faster %v; want %+v, %v", tt.name, g, g.HitsFaster(), tt.want, tt.faster)
		}
	}
}
