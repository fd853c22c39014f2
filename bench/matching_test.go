package bench

import "testing"

// TestMeasureMatching checks the case-2 workload end to end at a small
// size: with any matcher count the schedule moves every read element
// exactly once.
func TestMeasureMatching(t *testing.T) {
	ws, rs, shape := BlockBoxes(4, 8)
	if len(ws) != 64 || len(rs) != 64 || shape[0] != 32 {
		t.Fatalf("BlockBoxes(4, 8): %d writes, %d reads, shape %v", len(ws), len(rs), shape)
	}
	var vol int64
	for _, r := range rs {
		vol += r.Box.Volume()
	}
	for _, m := range []int{1, 2, 4, 8} {
		p, err := MeasureMatching(4, m, 2)
		if err != nil {
			t.Fatalf("%d matchers: %v", m, err)
		}
		if p.Boxes != 64 || p.Critical.N != 2 || p.Critical.Median <= 0 || p.Total.Median < p.Critical.Median {
			t.Errorf("%d matchers: %+v", m, p)
		}
		if p.Transfers < 64 || p.Elements != vol {
			t.Errorf("%d matchers: %d transfers move %d elements, reads want %d", m, p.Transfers, p.Elements, vol)
		}
	}
}
