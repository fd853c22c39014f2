package protocol

import (
	"testing"

	"github.com/couplet-hpc/couplet/matcher"
)

// BenchmarkMatcherEpoch drives the matcher through one epoch of case 1 of
// couplet bench at 64 MiB: four writers (world ranks 0-3) holding 2x2 blocks
// over (y,x) of T[32][512][512], two readers (ranks 4, 5) reading slabs along
// z, one session, every epoch matched afresh.
func BenchmarkMatcherEpoch(b *testing.B) {
	mt := NewMatcher(MatcherConfig{Self: 0, IDs: 1 << 16, TagUB: 1<<31 - 1, Matchers: func(int) int { return 1 }, Slot: func(_, s int) int { return s }})
	const path = "/tmp/run/coupled.nc"
	epoch := 0
	for b.Loop() {
		for w := range 4 {
			bx := matcher.NewBox([]int64{0, int64(w/2) * 256, int64(w%2) * 256}, []int64{32, 256, 256})
			m := &Envelope{Kind: WriteReqs, Path: path, Epoch: epoch, From: w, Ranks: []int{w, 4},
				Writes: []matcher.Write{{Rank: w, Seq: int64(epoch + 1), Box: bx}}}
			if _, err := mt.Step(m); err != nil {
				b.Fatal(err)
			}
		}
		for r := range 2 {
			bx := matcher.NewBox([]int64{int64(r) * 16, 0, 0}, []int64{16, 512, 512})
			m := &Envelope{Kind: ReadReqs, Path: path, Epoch: epoch, From: 4 + r, Ranks: []int{r, 2}, Final: true,
				Reads: []matcher.Read{{Rank: r, ID: int64(epoch + 1), Box: bx}}}
			if _, err := mt.Step(m); err != nil {
				b.Fatal(err)
			}
		}
		epoch++
	}
}
