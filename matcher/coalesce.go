package matcher

import (
	"cmp"
	"slices"
)

// Coalesce merges disjoint boxes that are adjacent along one dimension and
// together form a box, until no more merges apply. Empty boxes are dropped.
// The result is sorted by Start then Count (lexicographically), so the same
// set of elements given as the same pieces always yields the same output.
// The input slice is not modified; the boxes in the result are fresh copies.
func Coalesce(boxes []Box) []Box {
	out := make([]Box, 0, len(boxes))
	for _, b := range boxes {
		if !b.Empty() {
			out = append(out, b.Clone())
		}
	}
	if len(out) < 2 {
		return out
	}
	d := out[0].Dims()
	for changed := true; changed; {
		changed = false
		for k := range d {
			// Sort so that boxes differing only along k are neighbours in k order.
			slices.SortFunc(out, func(a, b Box) int { return cmpExcept(a, b, k) })
			w := 0
			for _, b := range out[1:] {
				last := &out[w]
				if sameExcept(*last, b, k) && last.End(k) == b.Start[k] {
					last.Count[k] += b.Count[k]
					changed = true
					continue
				}
				w++
				out[w] = b
			}
			out = out[:w+1]
		}
	}
	slices.SortFunc(out, compareBoxes)
	return out
}

// cmpExcept orders boxes by every dimension other than k first, then by
// their start along k.
func cmpExcept(a, b Box, k int) int {
	for i := range a.Start {
		if i == k {
			continue
		}
		if c := cmp.Compare(a.Start[i], b.Start[i]); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Count[i], b.Count[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.Start[k], b.Start[k])
}

// sameExcept reports whether a and b agree on every dimension but k.
func sameExcept(a, b Box, k int) bool {
	for i := range a.Start {
		if i != k && (a.Start[i] != b.Start[i] || a.Count[i] != b.Count[i]) {
			return false
		}
	}
	return true
}

// compareBoxes is the canonical box order: by Start, then by Count.
func compareBoxes(a, b Box) int {
	if c := slices.Compare(a.Start, b.Start); c != 0 {
		return c
	}
	return slices.Compare(a.Count, b.Count)
}
