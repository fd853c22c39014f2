package matcher

// Flat box lists: box i of a list holds lo at [2di, 2di+d) and exclusive hi
// at [2di+d, 2di+2d). The slow path of matching (overlapping writes) works
// on these so it allocates nothing per piece.

// subtractFlat removes [blo,bhi) from every box of the list l, in place,
// and returns the list of pieces left; tmp is scratch for one box (2d). A
// box overlapping b is replaced by its slabs below and above b along each
// dimension, the earlier dimensions clipped to b (as Subtract does). Pieces
// come in no particular order: the set of pieces does not depend on it, and
// coalescing orders them canonically.
func subtractFlat(l []int64, d int, blo, bhi, tmp []int64) []int64 {
	w := 2 * d
	cur := tmp[:w]
	n := len(l) // boxes before n are still to be cut; after it, new pieces
	for p := 0; p < n; {
		if !overlapsFlat(l[p:p+w], d, blo, bhi) {
			p += w
			continue
		}
		copy(cur, l[p:p+w])
		at := p // where the next piece goes: the box's own slot first
		put := func() {
			if at >= 0 {
				copy(l[at:at+w], cur)
				at = -1
			} else {
				l = append(l, cur...)
			}
		}
		for k := range d {
			lo, hi := cur[k], cur[d+k]
			if lo < blo[k] {
				cur[d+k] = blo[k]
				put()
				cur[d+k] = hi
			}
			if bhi[k] < hi {
				cur[k] = bhi[k]
				put()
				cur[k] = lo
			}
			cur[k], cur[d+k] = max(lo, blo[k]), min(hi, bhi[k])
		}
		if at < 0 {
			p += w
			continue
		}
		// b covers the box: fill its slot with the last box to cut and
		// that one's slot with the last new piece.
		n -= w
		copy(l[p:p+w], l[n:n+w])
		end := len(l) - w
		copy(l[n:n+w], l[end:])
		l = l[:end]
	}
	return l
}

// overlapsFlat reports whether the flat box b meets [blo,bhi).
func overlapsFlat(b []int64, d int, blo, bhi []int64) bool {
	for k := range d {
		if b[k] >= bhi[k] || blo[k] >= b[d+k] {
			return false
		}
	}
	return true
}

// flatBoxes converts a flat list to coalesced boxes (as Coalesce orders
// them), coalescing l in place. All boxes share one backing array.
func flatBoxes(fc *flatCoalescer, l []int64, d int) []Box {
	l = fc.coalesce(l, d)
	w := 2 * d
	n := len(l) / max(w, 1)
	if n == 0 {
		return nil
	}
	out := make([]Box, n)
	buf := make([]int64, len(l))
	for i := range out {
		b := buf[i*w : i*w+w : i*w+w]
		for k := range d {
			b[k], b[d+k] = l[i*w+k], l[i*w+d+k]-l[i*w+k]
		}
		out[i] = Box{Start: b[:d:d], Count: b[d:]}
	}
	return out
}
