package matcher

import (
	"fmt"
	"math/rand/v2"
)

// point is an element position in up to 4 dimensions.
type point [4]int64

// elemKey names one element of one read.
type elemKey struct {
	reader int
	v      int
	id     int64
	p      point
}

// forEach calls fn for every element of b (b has at most 4 dimensions).
func forEach(b Box, fn func(point)) {
	if b.Empty() {
		return
	}
	var p point
	var rec func(k int)
	rec = func(k int) {
		if k == b.Dims() {
			fn(p)
			return
		}
		for x := b.Start[k]; x < b.End(k); x++ {
			p[k] = x
			rec(k + 1)
		}
	}
	rec(0)
}

func (p point) in(b Box) bool {
	for k := range b.Start {
		if p[k] < b.Start[k] || p[k] >= b.End(k) {
			return false
		}
	}
	return true
}

// checkSchedule verifies s against per-element brute force: every element
// of every read is sent exactly once by the winning write, or reported
// uncovered exactly once if nobody wrote it. Reads must have unique
// (Rank, Var, ID).
func checkSchedule(writes []Write, reads []Read, s Schedule) error {
	return checkTransfers(writes, reads, s.Transfers(), s.Uncovered)
}

// checkTransfers is checkSchedule over transfers grouped by writer and the
// uncovered reads, e.g. of several matchers together.
func checkTransfers(writes []Write, reads []Read, ts []Transfer, uncovered []Uncovered) error {
	// Expected owner of every element of every read: index of winning write, -1 if none.
	want := map[elemKey]int{}
	for _, r := range reads {
		forEach(r.Box, func(p point) {
			best := -1
			for i, w := range writes {
				if w.Var != r.Var || w.Box.Dims() != r.Box.Dims() || !p.in(w.Box) {
					continue
				}
				if best < 0 || w.Seq > writes[best].Seq ||
					(w.Seq == writes[best].Seq && (w.Rank > writes[best].Rank || w.Rank == writes[best].Rank)) {
					best = i
				}
			}
			want[elemKey{r.Rank, r.Var, r.ID, p}] = best
		})
	}
	readBox := map[elemKey]Box{}
	for _, r := range reads {
		readBox[elemKey{reader: r.Rank, v: r.Var, id: r.ID}] = r.Box
	}
	got := map[elemKey]bool{}
	for i, t := range ts {
		if i > 0 && ts[i-1].Writer > t.Writer {
			return fmt.Errorf("transfers not grouped by writer at %d", i)
		}
		rb, ok := readBox[elemKey{reader: t.Reader, v: t.Var, id: t.ReadID}]
		if !ok {
			return fmt.Errorf("transfer %+v for an unknown read", t)
		}
		if !rb.Contains(t.Box) || t.Box.Empty() {
			return fmt.Errorf("transfer box %v empty or outside read %v", t.Box, rb)
		}
		var err error
		forEach(t.Box, func(p point) {
			k := elemKey{t.Reader, t.Var, t.ReadID, p}
			if got[k] && err == nil {
				err = fmt.Errorf("element %v of read %d/%d/%d sent twice", p, t.Reader, t.Var, t.ReadID)
			}
			got[k] = true
			w := want[k]
			if err == nil && (w < 0 || writes[w].Rank != t.Writer || writes[w].Seq != t.Seq) {
				err = fmt.Errorf("element %v of read %d/%d/%d sent by rank %d seq %d, want write %d", p, t.Reader, t.Var, t.ReadID, t.Writer, t.Seq, w)
			}
		})
		if err != nil {
			return err
		}
	}
	for _, u := range uncovered {
		rb := readBox[elemKey{reader: u.Reader, v: u.Var, id: u.ReadID}]
		for _, m := range u.Missing {
			if !rb.Contains(m) || m.Empty() {
				return fmt.Errorf("missing box %v empty or outside read %v", m, rb)
			}
			var err error
			forEach(m, func(p point) {
				k := elemKey{u.Reader, u.Var, u.ReadID, p}
				if got[k] && err == nil {
					err = fmt.Errorf("element %v of read %d/%d/%d both sent and uncovered (or uncovered twice)", p, u.Reader, u.Var, u.ReadID)
				}
				got[k] = true
				if w := want[k]; w >= 0 && err == nil {
					err = fmt.Errorf("element %v reported uncovered but write %d covers it", p, w)
				}
			})
			if err != nil {
				return err
			}
		}
	}
	for k := range want {
		if !got[k] {
			return fmt.Errorf("element %v of read %d/%d/%d neither sent nor uncovered", k.p, k.reader, k.v, k.id)
		}
	}
	return nil
}

// randomCase builds random writes and reads in d dimensions over [0,l) per
// dimension, with small sequence ranges so ties happen.
func randomCase(rng *rand.Rand, d int, l int64, nw, nr, nvars int) ([]Write, []Read) {
	rbox := func() Box {
		b := Box{Start: make([]int64, d), Count: make([]int64, d)}
		for k := range d {
			b.Start[k] = rng.Int64N(l)
			b.Count[k] = rng.Int64N(l-b.Start[k]) + 1
			if rng.IntN(20) == 0 {
				b.Count[k] = 0
			}
		}
		return b
	}
	var ws []Write
	for range nw {
		ws = append(ws, Write{Rank: rng.IntN(4), Var: rng.IntN(nvars), Seq: rng.Int64N(6), Box: rbox()})
	}
	var rs []Read
	for i := range nr {
		rs = append(rs, Read{Rank: rng.IntN(3), Var: rng.IntN(nvars), ID: int64(i), Box: rbox()})
	}
	return ws, rs
}
