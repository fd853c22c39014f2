package matcher

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"strings"
)

// Schedule is the output of matching. Its transfers are ordered by Writer
// (ascending); within one writer by the read they serve (Reader, Var, ReadID
// ascending), and within one read in a fixed order. Uncovered lists reads, in
// (Reader, Var, ReadID) order, that writes do not fully cover.
//
// Transfers are held compactly and materialised by At: a transfer is a pair
// of request indices, its box their intersection unless later writes cut it
// into pieces, whose boxes live in pointer-free storage. So a schedule of
// millions of transfers is small and costs the garbage collector nothing to
// scan. A
// Schedule refers to the requests it was matched from: do not modify them
// while the schedule is in use.
type Schedule struct {
	writes []Write
	reads  []Read
	// segs hold the records in schedule order, in chunks (grouped by
	// writer); ends[i] is the number of records up to the end of segs[i].
	segs   [][]rec
	ends   []int
	pieces []piece
	coords *arena
	// Uncovered are the parts of reads that no write covers.
	Uncovered []Uncovered
}

// Len returns the number of transfers.
func (s *Schedule) Len() int {
	if len(s.ends) == 0 {
		return 0
	}
	return s.ends[len(s.ends)-1]
}

// rec returns record i.
func (s *Schedule) rec(i int) rec {
	if i < 0 || i >= s.Len() {
		panic("matcher: transfer index out of range")
	}
	j, _ := slices.BinarySearch(s.ends, i+1) // the first chunk ending after i
	return s.segs[j][i-s.start(j)]
}

// start returns the number of records before chunk j.
func (s *Schedule) start(j int) int {
	if j == 0 {
		return 0
	}
	return s.ends[j-1]
}

// At returns transfer i. Its box may share memory with s: do not modify it.
func (s *Schedule) At(i int) Transfer { return s.transfer(s.rec(i)) }

// transfer materialises record r.
func (s *Schedule) transfer(r rec) Transfer {
	w, rd := &s.writes[writeOf(r, s.pieces)], &s.reads[r.read]
	t := Transfer{Writer: w.Rank, Reader: rd.Rank, Var: rd.Var, ReadID: rd.ID, Seq: w.Seq}
	if r.write >= 0 { // the whole overlap of the read and the write
		t.Box, _ = Intersect(rd.Box, w.Box)
		return t
	}
	p := s.pieces[^r.write]
	d := rd.Box.Dims() // 0 for a scalar, matched as a unit box
	c := s.coords.at(p.chunk, p.off, 2*d)
	t.Box = Box{Start: c[:d:d], Count: c[d:]}
	return t
}

// All yields the transfers in schedule order.
func (s *Schedule) All() iter.Seq[Transfer] {
	return func(yield func(Transfer) bool) {
		for _, seg := range s.segs {
			for _, r := range seg {
				if !yield(s.transfer(r)) {
					return
				}
			}
		}
	}
}

// Transfers returns every transfer in schedule order as a new slice.
func (s *Schedule) Transfers() []Transfer { return slices.Collect(s.All()) }

// Writers returns the distinct writer ranks of s in ascending order.
func (s *Schedule) Writers() []int {
	return distinct(s.All(), func(t Transfer) int { return t.Writer })
}

// Readers returns the distinct reader ranks of s in ascending order.
func (s *Schedule) Readers() []int {
	return distinct(s.All(), func(t Transfer) int { return t.Reader })
}

func distinct(ts iter.Seq[Transfer], key func(Transfer) int) []int {
	seen := map[int]bool{}
	var out []int
	for t := range ts {
		if k := key(t); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// ForWriter returns what writer rank w must send, in schedule order.
func (s *Schedule) ForWriter(w int) []Transfer {
	rank := func(seg []rec) int { return s.writes[writeOf(seg[0], s.pieces)].Rank }
	// A writer's chunks are consecutive: the first whose rank is not below w.
	j, _ := slices.BinarySearchFunc(s.segs, w, func(seg []rec, w int) int { return cmp.Compare(rank(seg), w) })
	var out []Transfer
	for ; j < len(s.segs) && rank(s.segs[j]) == w; j++ {
		for _, r := range s.segs[j] {
			out = append(out, s.transfer(r))
		}
	}
	return out
}

// ByReader returns, for each reader rank, the transfers it will receive,
// ordered by writer and then as in the schedule.
func (s *Schedule) ByReader() map[int][]Transfer {
	out := map[int][]Transfer{}
	for t := range s.All() {
		out[t.Reader] = append(out[t.Reader], t)
	}
	return out
}

// String describes the missing part of a read, e.g. for an error message.
func (u Uncovered) String() string {
	parts := make([]string, len(u.Missing))
	for i, b := range u.Missing {
		parts[i] = b.String()
	}
	return fmt.Sprintf("variable %d: read %d of rank %d: no write covers %s", u.Var, u.ReadID, u.Reader, strings.Join(parts, " "))
}
