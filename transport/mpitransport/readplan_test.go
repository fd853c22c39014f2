package mpitransport

import (
	"fmt"
	"testing"
)

func TestReadWays(t *testing.T) {
	cases := []struct{ cores, ranks, want int }{
		{2, 6, 2},  // 4 writers + 2 readers on 2 cores: both cores each
		{2, 2, 2},  // one writer, one reader on 2 cores
		{2, 1, 2},  // no peer on the node (never reads)
		{12, 6, 4}, // 12 cores, 6 ranks: 4 each
		{12, 24, 2},
		{1, 3, 1}, // one core: one thread
		{2, 0, 2},
	}
	for _, c := range cases {
		if got := readWays(c.cores, c.ranks); got != c.want {
			t.Errorf("readWays(%d cores, %d ranks) = %d, want %d", c.cores, c.ranks, got, c.want)
		}
	}
}

func TestReadPlan(t *testing.T) {
	const p = readPiece
	cases := []struct {
		name  string
		sizes []int64
		ways  int
		want  string
	}{
		{"one way reads whole blocks", []int64{3 * p, 100, 5 * p}, 1, fmt.Sprintf("[{0 0 %d} {1 0 100} {2 0 %d}]", 3*p, 5*p)},
		{"two ways halve big blocks", []int64{4 * p, p}, 2, fmt.Sprintf("[{0 0 %d} {0 %d %d} {1 0 %d}]", 2*p, 2*p, 2*p, p)},
		{"small blocks stay whole", []int64{p - 1, 10}, 4, fmt.Sprintf("[{0 0 %d} {1 0 10}]", p-1)},
		{"uneven split covers every byte", []int64{3*p + 1}, 3, fmt.Sprintf("[{0 0 %d} {0 %d %d} {0 %d %d}]", p, p, p, 2*p, p+1)},
		{"nothing", nil, 2, "[]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := fmt.Sprint(readPlan(c.sizes, c.ways)); got != c.want {
				t.Errorf("readPlan(%v, %d) = %s, want %s", c.sizes, c.ways, got, c.want)
			}
		})
	}
}
