package matcher

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

//go:generate go tool msgp -io=false -tests=false
//msgp:tuple Box

// Box is an N-dimensional hyperslab: along dimension i it holds the indices
// Start[i] <= x < Start[i]+Count[i]. A 0-dimensional box (both slices empty)
// is a scalar and holds one element.
type Box struct {
	_msgpack struct{} `msgpack:",as_array"`
	// Start is the first index along each dimension.
	Start []int64
	// Count is the number of indices along each dimension.
	Count []int64
}

// NewBox returns a box over copies of start and count.
func NewBox(start, count []int64) Box {
	return Box{Start: append([]int64(nil), start...), Count: append([]int64(nil), count...)}
}

// Clone returns a deep copy of b.
func (b Box) Clone() Box { return NewBox(b.Start, b.Count) }

// Dims returns the number of dimensions of b.
func (b Box) Dims() int { return len(b.Start) }

// End returns the exclusive upper bound of b along dimension i.
func (b Box) End(i int) int64 { return b.Start[i] + b.Count[i] }

// Empty reports whether b holds no element (some count is zero or negative).
func (b Box) Empty() bool {
	for _, c := range b.Count {
		if c <= 0 {
			return true
		}
	}
	return false
}

// Volume returns the number of elements in b: 0 if empty, 1 for a scalar box.
// It saturates at math.MaxInt64 instead of overflowing.
func (b Box) Volume() int64 {
	v, _ := volume(b.Count)
	return v
}

// volume multiplies counts, reporting false when the product saturated.
func volume(count []int64) (int64, bool) {
	v := int64(1)
	for _, c := range count {
		if c <= 0 {
			return 0, true
		}
		if v > math.MaxInt64/c {
			return math.MaxInt64, false
		}
		v *= c
	}
	return v, true
}

// Validate checks that b is well formed: Start and Count have the same
// length, no count is negative and no end overflows int64.
func (b Box) Validate() error {
	if len(b.Start) != len(b.Count) {
		return fmt.Errorf("matcher: box has %d starts but %d counts", len(b.Start), len(b.Count))
	}
	for i, c := range b.Count {
		if c < 0 {
			return fmt.Errorf("matcher: box %v: negative count in dimension %d", b, i)
		}
		if b.Start[i] > math.MaxInt64-c {
			return fmt.Errorf("matcher: box %v: end overflows in dimension %d", b, i)
		}
	}
	return nil
}

// Contains reports whether every element of o lies in b. An empty o is
// contained in any box of the same rank.
func (b Box) Contains(o Box) bool {
	if b.Dims() != o.Dims() {
		return false
	}
	if o.Empty() {
		return true
	}
	for i := range b.Start {
		if o.Start[i] < b.Start[i] || o.End(i) > b.End(i) {
			return false
		}
	}
	return true
}

// Equal reports whether b and o have identical starts and counts.
func (b Box) Equal(o Box) bool {
	if b.Dims() != o.Dims() {
		return false
	}
	for i := range b.Start {
		if b.Start[i] != o.Start[i] || b.Count[i] != o.Count[i] {
			return false
		}
	}
	return true
}

// Overlaps reports whether b and o share at least one element.
func (b Box) Overlaps(o Box) bool {
	if b.Dims() != o.Dims() || b.Empty() || o.Empty() {
		return false
	}
	for i := range b.Start {
		if b.Start[i] >= o.End(i) || o.Start[i] >= b.End(i) {
			return false
		}
	}
	return true
}

// Intersect returns the elements common to a and b and whether there are
// any. Boxes of different rank do not intersect.
func Intersect(a, b Box) (Box, bool) {
	if !a.Overlaps(b) {
		return Box{}, false
	}
	d := a.Dims()
	buf := make([]int64, 2*d)
	out := Box{Start: buf[:d:d], Count: buf[d:]}
	for i := range d {
		lo, hi := max(a.Start[i], b.Start[i]), min(a.End(i), b.End(i))
		out.Start[i], out.Count[i] = lo, hi-lo
	}
	return out, true
}

// Subtract returns disjoint boxes whose union is the elements of a not in b.
// The pieces are slabs: for each dimension in order, the part of a below and
// above b along it, restricted to b's extent in the earlier dimensions. If a
// and b do not overlap the result is a copy of a; if b covers a it is empty.
func Subtract(a, b Box) []Box {
	if a.Empty() {
		return nil
	}
	if !a.Overlaps(b) {
		return []Box{a.Clone()}
	}
	var out []Box
	cur := a.Clone() // shrinks to the intersection dimension by dimension
	for i := range a.Start {
		lo, hi := max(a.Start[i], b.Start[i]), min(a.End(i), b.End(i))
		if cur.Start[i] < lo {
			p := cur.Clone()
			p.Count[i] = lo - cur.Start[i]
			out = append(out, p)
		}
		if hi < cur.End(i) {
			p := cur.Clone()
			p.Start[i], p.Count[i] = hi, cur.End(i)-hi
			out = append(out, p)
		}
		cur.Start[i], cur.Count[i] = lo, hi-lo
	}
	return out
}

// SubtractAll returns disjoint boxes covering the elements of a that lie in
// none of bs, coalesced into canonical order.
func SubtractAll(a Box, bs []Box) []Box {
	rest := []Box{a}
	if a.Empty() {
		return nil
	}
	for _, b := range bs {
		var next []Box
		for _, r := range rest {
			next = append(next, Subtract(r, b)...)
		}
		rest = next
		if len(rest) == 0 {
			return nil
		}
	}
	return Coalesce(rest)
}

// String formats b as half-open ranges per dimension, e.g. "[0:4,2:6)".
func (b Box) String() string {
	if b.Dims() == 0 {
		return "[]"
	}
	var s strings.Builder
	s.WriteByte('[')
	for i := range b.Start {
		if i > 0 {
			s.WriteByte(',')
		}
		s.WriteString(strconv.FormatInt(b.Start[i], 10))
		s.WriteByte(':')
		if i < len(b.Count) {
			s.WriteString(strconv.FormatInt(b.Start[i]+b.Count[i], 10))
		}
	}
	s.WriteByte(')')
	return s.String()
}
