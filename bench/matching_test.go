package bench

import (
	"testing"

	"github.com/couplet-hpc/couplet/matcher"
)

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

// TestBoxStore checks that stored boxes are copies that keep their values
// across chunk boundaries, whatever happens to the originals.
func TestBoxStore(t *testing.T) {
	var s boxStore
	var kept, want []matcher.Box
	for i := range int64(2*storeChunk/6 + 5) { // crosses a chunk boundary
		b := matcher.NewBox([]int64{i, -i, 2 * i}, []int64{1, i % 7, 3})
		kept = append(kept, s.add(b))
		want = append(want, b.Clone())
		b.Start[0], b.Count[2] = -99, -99 // the store holds copies
	}
	kept = append(kept, s.add(matcher.Box{Start: []int64{}, Count: []int64{}}))
	want = append(want, matcher.Box{Start: []int64{}, Count: []int64{}})
	for i := range kept {
		if !kept[i].Equal(want[i]) || cap(kept[i].Start) != len(want[i].Start) || cap(kept[i].Count) != len(want[i].Count) {
			t.Fatalf("box %d: stored %v (caps %d, %d), want %v", i, kept[i], cap(kept[i].Start), cap(kept[i].Count), want[i])
		}
	}
}
