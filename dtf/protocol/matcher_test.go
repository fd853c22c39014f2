package protocol

import (
	"testing"

	"github.com/couplet-hpc/couplet/matcher"
)

func box(start, count int64) matcher.Box { return matcher.NewBox([]int64{start}, []int64{count}) }

// TestMatcherSteps drives one matcher through an epoch of one writer (rank
// 0, the matcher itself) and one reader (rank 5) and checks every action.
func TestMatcherSteps(t *testing.T) {
	mt := NewMatcher(MatcherConfig{Self: 0, IDs: 1 << 10, TagUB: 1<<31 - 1, Matchers: func(int) int { return 1 }, Slot: func(_, s int) int { return s }})
	read := &Envelope{Kind: ReadReqs, Path: "a.nc", From: 5, Ranks: []int{0, 1}, Final: true,
		Reads: []matcher.Read{{Rank: 0, Var: 0, ID: 1, Box: box(2, 6)}}}
	r, err := mt.Step(read)
	if err != nil || len(r.Sends) != 0 || len(r.Done) != 0 {
		t.Fatalf("a read before the writes: %+v, %v; want it queued, nothing sent", r, err)
	}
	write := &Envelope{Kind: WriteReqs, Path: "a.nc", From: 0, Ranks: []int{0, 1}, Final: true, NumRecs: 3,
		Writes: []matcher.Write{{Rank: 0, Var: 0, Seq: 1, Box: box(0, 4)}}}
	r, err = mt.Step(write)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []Kind{}
	for _, s := range r.Sends {
		kinds = append(kinds, s.Msg.Kind)
	}
	if len(r.Sends) != 3 || r.Sends[0].To != 0 || r.Sends[0].Msg.Kind != Schedule || r.Sends[1].To != 5 || r.Sends[1].Msg.Kind != Expect || r.Sends[2].To != 0 || r.Sends[2].Msg.Kind != EpochDone {
		t.Fatalf("sends %v, want SCHEDULE to 0, EXPECT to 5, EPOCH_DONE to 0", kinds)
	}
	sched, exp := r.Sends[0].Msg.Sched, r.Sends[1].Msg
	if len(sched) != 1 || !sched[0].T.Box.Equal(box(2, 2)) || sched[0].Peer != 5 || len(exp.Sched) != 1 || exp.Sched[0].Peer != 0 || exp.Sched[0].ID != sched[0].ID {
		t.Fatalf("schedule %+v, expect %+v: want box [2,4) from 0 to 5 on one id", sched, exp.Sched)
	}
	if len(exp.Missing) != 1 || len(exp.Missing[0].Missing) != 1 || !exp.Missing[0].Missing[0].Equal(box(4, 4)) || exp.NumRecs != 3 {
		t.Fatalf("missing %+v, numrecs %d: want [4,8) and 3", exp.Missing, exp.NumRecs)
	}
	if len(r.Done) != 1 || r.Done[0] != (EpochEnd{"a.nc", 0, 0}) || mt.Sessions() != 0 {
		t.Fatalf("done %v with %d sessions, want epoch 0 of a.nc, and the session dropped (the writer closed it)", r.Done, mt.Sessions())
	}
	for _, bad := range []*Envelope{
		{Kind: Expect, Path: "a.nc", Ranks: []int{0, 1}},
		{Kind: ReadReqs, Path: "a.nc", Ranks: []int{1, 1}},
		{Kind: WriteReqs, Path: "b.nc", Ranks: []int{2, 3}}, // after b.nc's writer group said 2 ranks
	} {
		if bad.Path == "b.nc" {
			if _, err := mt.Step(&Envelope{Kind: WriteReqs, Path: "b.nc", Ranks: []int{0, 2}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := mt.Step(bad); err == nil {
			t.Errorf("%s with ranks %v: no error", bad.Kind, bad.Ranks)
		}
	}
}
