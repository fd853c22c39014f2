package protocol

import (
	"testing"

	"github.com/couplet-hpc/couplet/matcher"
)

// TestMatcherCountsMatchedRounds checks Ready.Matched, which the engine uses
// to tell matching work from bookkeeping in its statistics: one session of a
// recorded section matches its round, a session where the writer and the
// reader both replay matches none, and one where only the writer replays
// matches the reader's new round.
func TestMatcherCountsMatchedRounds(t *testing.T) {
	// Every session of section 0 shares record slot 0.
	mt := NewMatcher(MatcherConfig{Self: 0, IDs: 1 << 10, TagUB: 1<<31 - 1, Matchers: func(int) int { return 1 }, Slot: func(int, int) int { return 0 }})
	reads := []matcher.Read{{Rank: 0, Var: 0, ID: 1, Box: box(0, 4)}}
	tests := []struct {
		name                   string
		writerReplay, rdReplay bool
		wantMatched            int
	}{
		{"recording", false, false, 1},
		{"both replay", true, true, 0},
		{"writer replays, reader reads afresh", true, false, 1},
	}
	for session, tt := range tests {
		w := &Envelope{Kind: WriteReqs, Path: "a.nc", Session: session, From: 0, Ranks: []int{0, 1}, Final: true,
			Record: true, Replay: tt.writerReplay}
		if !tt.writerReplay {
			w.Writes = []matcher.Write{{Rank: 0, Var: 0, Seq: 1, Box: box(0, 8)}}
		}
		r := &Envelope{Kind: ReadReqs, Path: "a.nc", Session: session, From: 5, Ranks: []int{0, 1}, Final: true, Replay: tt.rdReplay}
		if !tt.rdReplay {
			r.Reads = reads
		}
		matched, done := 0, 0
		for _, m := range []*Envelope{w, r} {
			ready, err := mt.Step(m)
			if err != nil {
				t.Fatalf("%s: %s: %v", tt.name, m.Kind, err)
			}
			matched += ready.Matched
			done += len(ready.Done)
		}
		if matched != tt.wantMatched || done != 1 {
			t.Errorf("%s: matched %d rounds, %d epochs done; want %d and 1", tt.name, matched, done, tt.wantMatched)
		}
	}
}
