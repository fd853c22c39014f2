package matcher

// The block path: most coupled variables are written as a decomposition
// into disjoint blocks, which the index holds as one 3-D grid level with
// every box in one cell. Reads of such a variable need no stamps, no
// last-write-wins subtraction and no generic odometer over the cells; the
// block path serves them with the dimensions unrolled. It yields exactly
// what the general path yields.

// blockPath turns the block path on (a variable so tests can compare it
// with the general path).
var blockPath = true

// queryBlocks3 appends to out the ids of the boxes of the single grid level
// of a 3-D index that overlap [lo,hi), in row-major cell order; lo and hi
// hold the bounds of a non-empty box.
func (x *index) queryBlocks3(lo, hi *[3]int64, out []int32) []int32 {
	lv := &x.levels[0]
	origin, lmax, div := lv.origin[:3], lv.max[:3], lv.div[:3]
	var c0, c1 [3]int64
	for k := range 3 {
		l, h := max(lo[k], origin[k]), min(hi[k], lmax[k])
		if l >= h {
			return out
		}
		// l and h-1 lie in the level's extent: unsigned divisions.
		c0[k] = int64(div[k].div(uint64(l - origin[k])))
		c1[k] = int64(div[k].div(uint64(h - 1 - origin[k])))
	}
	box, ids, start := x.box, lv.ids, lv.cellStart
	s0, s1 := lv.stride[0], lv.stride[1] // the last stride is 1
	for i := c0[0]; i <= c1[0]; i++ {
		for j := c0[1]; j <= c1[1]; j++ {
			row := i*s0 + j*s1
			for c := row + c0[2]; c <= row+c1[2]; c++ {
				for _, id := range ids[start[c]:start[c+1]] {
					b := box[6*int(id) : 6*int(id)+6]
					if b[0] < hi[0] && lo[0] < b[3] && b[1] < hi[1] && lo[1] < b[4] && b[2] < hi[2] && lo[2] < b[5] {
						out = append(out, id)
					}
				}
			}
		}
	}
	return out
}

// serveBlocks3 records that each candidate (disjoint writes of a block-path
// variable, winner first) serves its whole overlap with read ri, [lo,hi),
// and returns the elements they cover (exact false if that saturated).
func (vw *varWrites) serveBlocks3(out *recs, ri int32, lo, hi *[3]int64, cands []int32) (covered int64, exact bool) {
	box := vw.idx.box
	exact = true
	for _, c := range cands {
		b := box[6*int(c) : 6*int(c)+6]
		v := mulSat(mulSat(min(hi[0], b[3])-max(lo[0], b[0]), min(hi[1], b[4])-max(lo[1], b[1])),
			min(hi[2], b[5])-max(lo[2], b[2]))
		out.add(vw.bucket[c], ri, vw.global(c))
		covered, exact = addSat(covered, v, exact)
	}
	return covered, exact
}
