package bench

import (
	"slices"
	"testing"
)

// TestStaging stages a small file with every system (four agent pairs and
// the two baselines, each copy checked) and looks it up at every locator
// level.
func TestStaging(t *testing.T) {
	if testing.Short() {
		t.Skip("starts agents and etcd")
	}
	s, err := StartStaging()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, mib := range []int64{1, 3} {
		p, err := s.Measure(mib, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, sys := range StagingSystems {
			if g := p.GBps[sys]; g.N != 2 || g.Min <= 0 {
				t.Errorf("%d MiB, %s: %+v, want 2 positive rates", mib, sys, g)
			}
		}
		if p.HashSeconds.N != 2 || p.HashSeconds.Min <= 0 || p.HashWait.N != 2 || p.HashAdded.N != 2 {
			t.Errorf("%d MiB: content hash %+v, hash left after the last byte %+v, hash added %+v, want 2 samples each",
				mib, p.HashSeconds, p.HashWait, p.HashAdded)
		}
		t.Logf("%d MiB: rpc %s, tcp %s, cp %s, ucx-sm %s, ucx-tcp %s GB/s", mib, p.GBps[StageRPC].Format("%.2f"),
			p.GBps[StageRawTCP].Format("%.2f"), p.GBps[StageCp].Format("%.2f"), p.GBps[StageUCXSM].Format("%.2f"), p.GBps[StageUCXTCP].Format("%.2f"))
	}
	loc, err := s.MeasureLocator(50, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range loc {
		if l.Median.N != 2 || l.Median.Min <= 0 {
			t.Errorf("locator %s: %+v", l.Level, l.Median)
		}
		t.Logf("locator %s: median %s us", l.Level, l.Median.Format("%.1f"))
	}
}

// TestStagingOrder: every round measures every system once, the warm-up round in
// StagingSystems' order, the hash-off staging next to rpc, before it in some rounds and
// after it in others; over the seven measured rounds of a report, each system follows at
// least three different ones.
func TestStagingOrder(t *testing.T) {
	if got := stagingOrder(0); !slices.Equal(got, StagingSystems) {
		t.Errorf("warm-up round: %v, want %v", got, StagingSystems)
	}
	preds := map[string]map[string]bool{}
	first := map[bool]bool{} // whether rpc came first, in some round
	for rep := 1; rep <= 7; rep++ {
		got := stagingOrder(rep)
		if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(StagingSystems))) {
			t.Fatalf("round %d: %v is not a permutation of %v", rep, got, StagingSystems)
		}
		i, j := slices.Index(got, StageRPC), slices.Index(got, StageRPCNoHash)
		if i-j != 1 && j-i != 1 {
			t.Errorf("round %d: %v, the hash-off staging not next to rpc", rep, got)
		}
		first[i < j] = true
		for i := 1; i < len(got); i++ {
			if preds[got[i]] == nil {
				preds[got[i]] = map[string]bool{}
			}
			preds[got[i]][got[i-1]] = true
		}
	}
	for _, sys := range StagingSystems {
		if len(preds[sys]) < 3 {
			t.Errorf("%s follows only %v over seven rounds", sys, preds[sys])
		}
	}
	if !first[true] || !first[false] {
		t.Errorf("rpc came first in its pair: %v over seven rounds, want both ways", first)
	}
}
