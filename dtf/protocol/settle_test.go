package protocol

import (
	"testing"

	"github.com/couplet-hpc/couplet/matcher"
)

// TestSettleOnlyForLaterRounds: a replaying reader's last round of an epoch
// waits for the matchers' drains (Settle) only when it recorded rounds after
// this one; a round that replays takes its own pushes by its recorded
// receives, so the writers' verdicts answer it without a matcher's reply.
func TestSettleOnlyForLaterRounds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		recorded int // rounds of the recorded epoch, the last one final
		finalAt  int // the replaying epoch's final round
		settle   bool
	}{
		{"one round, replayed", 1, 0, false},
		{"two rounds, both replayed", 2, 1, false},
		{"two rounds recorded, the first ends the epoch", 2, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			part, err := matcher.NewPartition(matcher.ModeRange, 1)
			if err != nil {
				t.Fatal(err)
			}
			if err := part.SetShape(0, []int64{8}); err != nil {
				t.Fatal(err)
			}
			recs := NewRecords()
			sess := func(session int) Session {
				return Session{Path: "f.nc", Session: session, Rank: 0, World: []int{1}, Peers: []int{0}, Part: part, Replay: true}
			}
			piece := func(round int) []Piece {
				return []Piece{{Var: 0, Type: 6, ID: int64(round + 1), Box: matcher.Box{Start: []int64{int64(round)}, Count: []int64{1}}}}
			}
			// The recorded session: every round answered by the matcher.
			r := NewReader(sess(0), recs)
			for n := range tc.recorded {
				r.StartRound(piece(n), n == tc.recorded-1, false, true, 0)
				box := piece(n)[0].Box
				sched := []Tagged{{T: matcher.Transfer{Writer: 0, Reader: 0, Var: 0, ReadID: int64(n + 1), Seq: 1, Box: box}, ID: int64(n), Peer: 0}}
				if _, err := r.Step(&Envelope{Kind: Expect, Path: "f.nc", Epoch: 0, Round: n, From: 0, Sched: sched, Record: true}); err != nil {
					t.Fatal(err)
				}
				if !r.Answered() {
					t.Fatalf("recorded round %d not answered by its EXPECT", n)
				}
				r.EndRound(nil)
			}
			// The replaying session, up to its final round.
			r = NewReader(sess(1), recs)
			for n := range tc.finalAt + 1 {
				final := n == tc.finalAt
				rd := r.StartRound(piece(n), final, false, true, 0)
				if len(rd.Sends) != 1 {
					t.Fatalf("round %d: %d sends, want one READ_REQS", n, len(rd.Sends))
				}
				m := rd.Sends[0].Msg
				if !m.Replay {
					t.Fatalf("round %d does not replay", n)
				}
				if want := final && tc.settle; m.Settle != want {
					t.Fatalf("round %d: Settle %v, want %v", n, m.Settle, want)
				}
				if n == 0 {
					if _, err := r.Step(&Envelope{Kind: Verdict, Path: "f.nc", Session: 1, Epoch: 0, From: 0}); err != nil {
						t.Fatal(err)
					}
				}
				if want := !m.Settle; r.Answered() != want {
					t.Fatalf("round %d: answered by the verdicts %v, want %v", n, r.Answered(), want)
				}
				if !r.Answered() {
					return // it waits for the matcher's drains, as wanted
				}
				r.EndRound(nil)
			}
		})
	}
}
