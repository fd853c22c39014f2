package matcher

// Flat box lists: box i of a list holds lo at [2di, 2di+d) and exclusive hi
// at [2di+d, 2di+2d). The slow path of matching (overlapping writes) works
// on these so it allocates nothing per piece.

// subtractFlat appends to dst the pieces of every box of src minus [blo,bhi).
func subtractFlat(dst, src []int64, d int, blo, bhi []int64) []int64 {
	for p := 0; p+2*d <= len(src); p += 2 * d {
		lo, hi := src[p:p+d], src[p+d:p+2*d]
		overlap := true
		for k := range d {
			if lo[k] >= bhi[k] || blo[k] >= hi[k] {
				overlap = false
				break
			}
		}
		if !overlap {
			dst = append(dst, src[p:p+2*d]...)
			continue
		}
		// Slabs below and above b along each dimension, the earlier
		// dimensions clipped to b (as Subtract does).
		for k := range d {
			if lo[k] < blo[k] {
				n := len(dst)
				dst = append(dst, src[p:p+2*d]...)
				clipFlat(dst[n:], d, k, blo, bhi)
				dst[n+d+k] = blo[k]
			}
			if bhi[k] < hi[k] {
				n := len(dst)
				dst = append(dst, src[p:p+2*d]...)
				clipFlat(dst[n:], d, k, blo, bhi)
				dst[n+k] = bhi[k]
			}
		}
	}
	return dst
}

// clipFlat clips the flat box b to [blo,bhi) in dimensions before k.
func clipFlat(b []int64, d, k int, blo, bhi []int64) {
	for j := range k {
		b[j] = max(b[j], blo[j])
		b[d+j] = min(b[d+j], bhi[j])
	}
}

// flatBoxes converts a flat list to coalesced boxes.
func flatBoxes(l []int64, d int) []Box {
	var out []Box
	for p := 0; p+2*d <= len(l); p += 2 * d {
		out = append(out, boxFromBounds(l[p:p+d], l[p+d:p+2*d]))
	}
	return Coalesce(out)
}
