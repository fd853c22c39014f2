package matcher

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Schedule is the output of matching. Transfers are ordered by Writer
// (ascending); within one writer by the read they serve (Reader, Var, ReadID
// ascending), and within one read in a fixed order. Uncovered lists reads, in
// (Reader, Var, ReadID) order, that writes do not fully cover.
type Schedule struct {
	_msgpack struct{} `msgpack:",as_array"`
	// Transfers are all scheduled data movements, grouped by writer.
	Transfers []Transfer
	// Uncovered are the parts of reads that no write covers.
	Uncovered []Uncovered
}

// Writers returns the distinct writer ranks of s in ascending order.
func (s Schedule) Writers() []int {
	return distinct(s.Transfers, func(t Transfer) int { return t.Writer })
}

// Readers returns the distinct reader ranks of s in ascending order.
func (s Schedule) Readers() []int {
	return distinct(s.Transfers, func(t Transfer) int { return t.Reader })
}

func distinct(ts []Transfer, key func(Transfer) int) []int {
	seen := map[int]bool{}
	var out []int
	for _, t := range ts {
		if k := key(t); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// ForWriter returns what writer rank w must send, in schedule order. The
// result shares memory with s.Transfers.
func (s Schedule) ForWriter(w int) []Transfer {
	lo, _ := slices.BinarySearchFunc(s.Transfers, w, func(t Transfer, w int) int { return t.Writer - w })
	hi := lo
	for hi < len(s.Transfers) && s.Transfers[hi].Writer == w {
		hi++
	}
	return s.Transfers[lo:hi]
}

// ByWriter returns the transfers of each writer rank. The lists share memory
// with s.Transfers.
func (s Schedule) ByWriter() map[int][]Transfer {
	out := map[int][]Transfer{}
	for lo := 0; lo < len(s.Transfers); {
		hi := lo + 1
		for hi < len(s.Transfers) && s.Transfers[hi].Writer == s.Transfers[lo].Writer {
			hi++
		}
		out[s.Transfers[lo].Writer] = s.Transfers[lo:hi:hi]
		lo = hi
	}
	return out
}

// ByReader returns, for each reader rank, the transfers it will receive,
// ordered by writer and then as in s.Transfers. The lists are copies held in
// one allocation; the boxes share memory with s.
func (s Schedule) ByReader() map[int][]Transfer {
	count := map[int]int{}
	for _, t := range s.Transfers {
		count[t.Reader]++
	}
	all := make([]Transfer, len(s.Transfers))
	pos := make(map[int]int, len(count))
	out := make(map[int][]Transfer, len(count))
	off := 0
	for _, r := range slices.Sorted(maps.Keys(count)) {
		pos[r] = off
		out[r] = all[off : off+count[r] : off+count[r]]
		off += count[r]
	}
	for _, t := range s.Transfers {
		all[pos[t.Reader]] = t
		pos[t.Reader]++
	}
	return out
}

// Merge combines schedules from several matchers into one, keeping each
// writer's transfers together in ascending writer order. Within a writer,
// transfers keep the order of the inputs.
func Merge(parts ...Schedule) Schedule {
	var out Schedule
	for _, p := range parts {
		out.Transfers = append(out.Transfers, p.Transfers...)
		out.Uncovered = append(out.Uncovered, p.Uncovered...)
	}
	slices.SortStableFunc(out.Transfers, func(a, b Transfer) int { return a.Writer - b.Writer })
	slices.SortStableFunc(out.Uncovered, func(a, b Uncovered) int { return compareRead(a.Reader, a.Var, a.ReadID, b.Reader, b.Var, b.ReadID) })
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
