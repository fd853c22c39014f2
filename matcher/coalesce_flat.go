package matcher

import (
	"cmp"
	"slices"
)

// flatCoalescer coalesces flat box lists (see flat.go) with reusable
// scratch space, so the overlap path of matching allocates nothing per piece.
// The zero value is ready to use.
type flatCoalescer struct {
	perm []int32 // sort permutation for long lists
	tmp  []int64 // one box (insertion sort) or a whole list (permuting)
}

// smallSort is the list length up to which boxes are insertion-sorted in
// place; longer lists sort a permutation and gather.
const smallSort = 24

// coalesce merges the boxes of the flat list l exactly as Coalesce merges
// the same boxes and returns them in Coalesce's canonical order, so both
// paths give identical results. It works in place and returns a prefix of l.
// Like Coalesce it expects disjoint boxes; empty boxes are dropped.
func (fc *flatCoalescer) coalesce(l []int64, d int) []int64 {
	w := 2 * d
	if w == 0 {
		return l[:0]
	}
	n := 0
	for p := 0; p+w <= len(l); p += w {
		if !emptyFlat(l[p:p+w], d) {
			copy(l[n*w:], l[p:p+w])
			n++
		}
	}
	l = l[:n*w]
	// Coalesce runs passes along dimensions 0..d-1 in rounds until a round
	// merges nothing. The same passes run here, in the same order, but stop
	// once the rest could not merge: right after the pass along k nothing
	// can merge along k, so when the d-1 passes after the last merging one
	// (or the first d passes) merged nothing, the set of boxes is final.
	// Each pass depends only on the set (disjoint boxes sort in one total
	// order), and the canonical sort below fixes the output order. Short
	// lists without any adjacent pair skip the passes outright.
	if n > smallSort || anyAdjacentFlat(l, d) {
		for quiet := 0; quiet < d && len(l) > w; {
			for k := 0; k < d && quiet < d && len(l) > w; k++ {
				var merged bool
				l, merged = fc.mergeAlong(l, d, k)
				if merged {
					quiet = 1
				} else {
					quiet++
				}
			}
		}
	}
	fc.sort(l, d, -1)
	return l
}

// mergeAlong is one pass of Coalesce along dimension k: it sorts l so that
// boxes equal but along k are neighbours in k order and merges touching
// neighbours. It returns the shortened list and whether anything merged.
func (fc *flatCoalescer) mergeAlong(l []int64, d, k int) ([]int64, bool) {
	w := 2 * d
	fc.sort(l, d, k)
	merged := false
	m := 0
	for p := w; p < len(l); p += w {
		last, b := l[m:m+w], l[p:p+w]
		if last[d+k] == b[k] && sameExceptFlat(last, b, d, k) {
			last[d+k] = b[d+k]
			merged = true
			continue
		}
		m += w
		if m != p {
			copy(l[m:m+w], b)
		}
	}
	return l[:m+w], merged
}

// anyAdjacentFlat reports whether two boxes of l touch along some
// dimension and agree on all others, i.e. whether any pass could merge.
func anyAdjacentFlat(l []int64, d int) bool {
	w := 2 * d
	for p := 0; p < len(l); p += w {
		a := l[p : p+w]
		for q := p + w; q < len(l); q += w {
			b := l[q : q+w]
			for k := range d {
				if (a[d+k] == b[k] || b[d+k] == a[k]) && sameExceptFlat(a, b, d, k) {
					return true
				}
			}
		}
	}
	return false
}

// emptyFlat reports whether the flat box b holds no element.
func emptyFlat(b []int64, d int) bool {
	for k := range d {
		if b[d+k] <= b[k] {
			return true
		}
	}
	return false
}

// sameExceptFlat reports whether flat boxes a and b agree on every
// dimension but k.
func sameExceptFlat(a, b []int64, d, k int) bool {
	for i := range d {
		if i != k && (a[i] != b[i] || a[d+i] != b[d+i]) {
			return false
		}
	}
	return true
}

// cmpFlat orders flat boxes as cmpExcept orders boxes for k >= 0, and as
// compareBoxes (the canonical order) for k < 0. With equal starts, counts
// order as upper bounds do, so bounds are compared directly.
func cmpFlat(a, b []int64, d, k int) int {
	if k < 0 {
		for i := range 2 * d {
			if a[i] != b[i] {
				return cmp.Compare(a[i], b[i])
			}
		}
		return 0
	}
	for i := range d {
		if i == k {
			continue
		}
		if a[i] != b[i] {
			return cmp.Compare(a[i], b[i])
		}
		if a[d+i] != b[d+i] {
			return cmp.Compare(a[d+i], b[d+i])
		}
	}
	return cmp.Compare(a[k], b[k])
}

// sort orders the flat boxes of l by cmpFlat with dimension k.
func (fc *flatCoalescer) sort(l []int64, d, k int) {
	w := 2 * d
	n := len(l) / w
	if n < 2 {
		return
	}
	if n <= smallSort {
		fc.tmp = append(fc.tmp[:0], l[:w]...)
		t := fc.tmp[:w]
		for i := 1; i < n; i++ {
			if cmpFlat(l[i*w:i*w+w], l[(i-1)*w:i*w], d, k) >= 0 {
				continue // already in place
			}
			copy(t, l[i*w:i*w+w])
			j := i
			for ; j > 0 && cmpFlat(t, l[(j-1)*w:j*w], d, k) < 0; j-- {
				copy(l[j*w:j*w+w], l[(j-1)*w:j*w])
			}
			copy(l[j*w:j*w+w], t)
		}
		return
	}
	fc.perm = fc.perm[:0]
	for i := range int32(n) {
		fc.perm = append(fc.perm, i)
	}
	slices.SortFunc(fc.perm, func(a, b int32) int {
		return cmpFlat(l[int(a)*w:int(a)*w+w], l[int(b)*w:int(b)*w+w], d, k)
	})
	fc.tmp = fc.tmp[:0]
	for _, i := range fc.perm {
		fc.tmp = append(fc.tmp, l[int(i)*w:int(i)*w+w]...)
	}
	copy(l, fc.tmp)
}
