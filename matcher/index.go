package matcher

import (
	"math"
	"slices"
)

// index finds the write boxes of one variable that overlap a query box.
//
// It is a stack of uniform grids. Each grid level has a cell size per
// dimension taken from the median extent of the boxes it holds, so a
// block decomposition lands one block per cell and a query touching k
// blocks visits about k cells: O(1 + k) per query after an O(n log n)
// worst-case build (O(n) for regular blocks). A box that would occupy many
// cells of a level is passed up to the next level, whose cells are sized for
// the larger boxes; each level keeps at least half of the boxes it is given,
// so there are at most log2(n) levels. Random boxes of mixed sizes thus each
// sit in a few cells of a level that suits them. Small remainders are kept
// as plain lists.
//
// Coordinates are stored as a flat box list (see flat.go: box i has its lower
// bounds at 2di and exclusive upper bounds at 2di+d), so queries touch no Box
// slices and a box's bounds share a cache line.
type index struct {
	d      int
	box    []int64
	levels []level
	stamp  []uint32 // stamp[i] == epoch: box i already seen by this query
	epoch  uint32
	cur    []int64 // odometer scratch
	c0, c1 []int64
}

// level is one grid (or, when cell is nil, a plain list of box ids).
type level struct {
	origin, max []int64   // bounding box of the level's boxes
	cell        []int64   // cell size per dimension
	div         []divisor // division by cell
	stride      []int64   // row-major strides of the cell array
	cellStart   []int32   // ids of cell c are ids[cellStart[c]:cellStart[c+1]]
	ids         []int32
	// single: every box of the level lies in one cell, so a query meets
	// each at most once and needs no stamps.
	single bool
}

// listMax is the size below which a level is a plain list (a variable so
// tests can force grids on tiny inputs).
var listMax = 32

// sampleSize is how many boxes are sampled to estimate the median extent.
const sampleSize = 1025

// newIndex indexes the n boxes of d dimensions of the flat list box.
func newIndex(d, n int, box []int64) *index {
	x := &index{d: d, box: box,
		cur: make([]int64, d), c0: make([]int64, d), c1: make([]int64, d)}
	rest := make([]int32, n)
	for i := range rest {
		rest[i] = int32(i)
	}
	for len(rest) > 0 {
		if len(rest) <= listMax || d == 0 {
			x.levels = append(x.levels, level{ids: rest})
			break
		}
		lv, over, ok := x.buildGrid(rest)
		if !ok { // coordinates too wide for a grid
			x.levels = append(x.levels, level{ids: rest})
			break
		}
		x.levels = append(x.levels, lv)
		rest = over
	}
	// Only boxes over several cells of a level need stamps.
	for _, lv := range x.levels {
		if lv.cell != nil && !lv.single {
			x.stamp = make([]uint32, n)
			break
		}
	}
	return x
}

// buildGrid puts ids into a grid level and returns the ids that would cover
// too many of its cells. ok is false if the extent overflows int64.
func (x *index) buildGrid(ids []int32) (lv level, over []int32, ok bool) {
	d := x.d
	lv.origin = make([]int64, d)
	lv.max = make([]int64, d)
	lv.cell = make([]int64, d)
	lv.stride = make([]int64, d)
	lv.div = make([]divisor, d)
	for k := range d {
		lv.origin[k], lv.max[k] = math.MaxInt64, math.MinInt64
	}
	for _, id := range ids {
		b := int(id) * 2 * d
		for k := range d {
			lv.origin[k] = min(lv.origin[k], x.box[b+k])
			lv.max[k] = max(lv.max[k], x.box[b+d+k])
		}
	}
	ext := make([]int64, d)
	for k := range d {
		ext[k] = lv.max[k] - lv.origin[k]
		if ext[k] <= 0 {
			return lv, nil, false
		}
	}
	// Cell size: median extent of a sample of the boxes.
	step := max(1, len(ids)/sampleSize)
	sample := make([]int64, 0, len(ids)/step+1)
	for k := range d {
		sample = sample[:0]
		for i := 0; i < len(ids); i += step {
			b := int(ids[i])*2*d + k
			sample = append(sample, x.box[b+d]-x.box[b])
		}
		slices.Sort(sample)
		lv.cell[k] = max(1, sample[len(sample)/2])
	}
	maxCells := float64(2*len(ids) + 64)
	maxPer := int64(2) << d // cells one box may occupy on this level
	ncell := make([]int64, d)
	one := make([]int64, len(ids))
	var ncells int64
	for {
		total := 1.0
		for k := range d {
			ncell[k] = (ext[k]-1)/lv.cell[k] + 1
			total *= float64(ncell[k])
		}
		if total > maxCells { // too many cells: coarsen the finest dimension
			kmax := 0
			for k := range d {
				if ncell[k] > ncell[kmax] {
					kmax = k
				}
			}
			lv.cell[kmax] = doubled(lv.cell[kmax])
			continue
		}
		s := int64(1)
		for k := d - 1; k >= 0; k-- {
			lv.stride[k] = s
			s *= ncell[k]
			lv.div[k] = newDivisor(uint64(lv.cell[k]))
		}
		// Each box's cell when it occupies one (the common case), so the
		// fill needs no second cell computation; -1 for a box over several
		// cells, -2 for one passed up. A level must keep at least half its
		// boxes.
		over = over[:0]
		for i, id := range ids {
			switch n, c := x.spanCell(&lv, id); {
			case n > maxPer:
				one[i] = -2
				over = append(over, id)
			case n == 1:
				one[i] = c
			default:
				one[i] = -1
			}
		}
		if 2*len(over) <= len(ids) || total == 1 {
			ncells = s
			break
		}
		for k := range d {
			lv.cell[k] = doubled(lv.cell[k])
		}
	}
	// counts[c+1] counts the ids of cell c, then (summed) is where cell c
	// ends; filling backwards moves it to where cell c starts, so that
	// counts[1:] ends up as cellStart with each cell's ids ascending.
	s := ncells
	counts := make([]int32, s+2)
	lv.single = true
	for i, id := range ids {
		switch c := one[i]; {
		case c >= 0:
			counts[c+1]++
		case c == -1:
			lv.single = false
			x.cells(&lv, id, func(c int64) { counts[c+1]++ })
		}
	}
	for c := 1; c <= int(s); c++ {
		counts[c] += counts[c-1]
	}
	total := counts[s]
	counts[s+1] = total
	lv.ids = make([]int32, total)
	for i := len(ids) - 1; i >= 0; i-- {
		switch c, id := one[i], ids[i]; {
		case c >= 0:
			counts[c+1]--
			lv.ids[counts[c+1]] = id
		case c == -1:
			x.cells(&lv, id, func(c int64) { counts[c+1]--; lv.ids[counts[c+1]] = id })
		}
	}
	lv.cellStart = counts[1:]
	return lv, slices.Clone(over), true
}

// doubled returns 2c, saturating.
func doubled(c int64) int64 {
	if c > math.MaxInt64/2 {
		return math.MaxInt64
	}
	return 2 * c
}

// cellRange sets x.c0/x.c1 to the cells of lv that [lo,hi) touches and
// reports whether it touches any. lo/hi are flat d-vectors.
func (x *index) cellRange(lv *level, lo, hi []int64) bool {
	for k := range x.d {
		l, h := max(lo[k], lv.origin[k]), min(hi[k], lv.max[k])
		if l >= h {
			return false
		}
		// l and h-1 lie in the level's extent: unsigned divisions.
		x.c0[k] = int64(lv.div[k].div(uint64(l - lv.origin[k])))
		x.c1[k] = int64(lv.div[k].div(uint64(h - 1 - lv.origin[k])))
	}
	return true
}

// spanCell returns how many cells of lv box id occupies and the cell
// holding its lower corner. Coordinates are at least the origin, so the
// divisions are unsigned (no sign fix-up).
func (x *index) spanCell(lv *level, id int32) (n, c int64) {
	d := x.d
	b := int(id) * 2 * d
	lo, hi := x.box[b:b+d], x.box[b+d:b+2*d]
	origin, div, stride := lv.origin[:len(lo)], lv.div[:len(lo)], lv.stride[:len(lo)]
	n = 1
	for k := range lo {
		c0 := int64(div[k].div(uint64(lo[k] - origin[k])))
		c1 := int64(div[k].div(uint64(hi[k] - 1 - origin[k])))
		n *= c1 - c0 + 1
		c += c0 * stride[k]
		if n > 1<<20 {
			return n, c
		}
	}
	return n, c
}

// cells calls fn with every cell of lv that box id occupies (build only).
func (x *index) cells(lv *level, id int32, fn func(int64)) {
	d := x.d
	b := int(id) * 2 * d
	x.cellRange(lv, x.box[b:b+d], x.box[b+d:b+2*d])
	x.walk(lv, fn)
}

// walk visits the cells x.c0..x.c1 of lv in row-major order.
func (x *index) walk(lv *level, fn func(int64)) {
	d := x.d
	var c int64
	for k := range d {
		x.cur[k] = x.c0[k]
		c += x.c0[k] * lv.stride[k]
	}
	for {
		fn(c)
		k := d - 1
		for ; k >= 0; k-- {
			if x.cur[k] < x.c1[k] {
				x.cur[k]++
				c += lv.stride[k]
				break
			}
			c -= (x.cur[k] - x.c0[k]) * lv.stride[k]
			x.cur[k] = x.c0[k]
		}
		if k < 0 {
			return
		}
	}
}

// overlaps reports whether box id overlaps [lo,hi).
func (x *index) overlaps(id int32, lo, hi []int64) bool {
	d := x.d
	b := int(id) * 2 * d
	bl, bh := x.box[b:b+d], x.box[b+d:b+2*d]
	for k := range bl {
		if bl[k] >= hi[k] || lo[k] >= bh[k] {
			return false
		}
	}
	return true
}

// query appends to out the ids of boxes that overlap [lo,hi), each once,
// in no particular order. lo/hi are flat d-vectors; the query box must not
// be empty.
func (x *index) query(lo, hi []int64, out []int32) []int32 {
	x.epoch++
	if x.epoch == 0 { // wrapped: forget old stamps
		clear(x.stamp)
		x.epoch = 1
	}
	for i := range x.levels {
		lv := &x.levels[i]
		if lv.cell == nil {
			for _, id := range lv.ids {
				if x.overlaps(id, lo, hi) {
					out = append(out, id)
				}
			}
			continue
		}
		if !x.cellRange(lv, lo, hi) {
			continue
		}
		out = x.queryCells(lv, lo, hi, out)
	}
	return out
}

// queryCells scans the cells x.c0..x.c1 of grid level lv. It is the inner
// loop of matching: locals of length d let the compiler drop bounds checks.
func (x *index) queryCells(lv *level, lo, hi []int64, out []int32) []int32 {
	d := x.d
	lo, hi = lo[:d], hi[:d]
	cur, c0, c1, stride := x.cur[:d], x.c0[:d], x.c1[:d], lv.stride[:d]
	var c int64
	for k := range cur {
		cur[k] = c0[k]
		c += c0[k] * stride[k]
	}
	for {
		if lv.single {
		next:
			for _, id := range lv.ids[lv.cellStart[c]:lv.cellStart[c+1]] {
				b := int(id) * 2 * d
				bl, bh := x.box[b:b+d], x.box[b+d:b+2*d]
				for k := range bl {
					if bl[k] >= hi[k] || lo[k] >= bh[k] {
						continue next
					}
				}
				out = append(out, id)
			}
		} else {
			out = x.scanCell(lv, c, lo, hi, out)
		}
		k := d - 1
		for ; k >= 0; k-- {
			if cur[k] < c1[k] {
				cur[k]++
				c += stride[k]
				break
			}
			c -= (cur[k] - c0[k]) * stride[k]
			cur[k] = c0[k]
		}
		if k < 0 {
			return out
		}
	}
}

// scanCell appends the boxes of cell c of lv that overlap [lo,hi) and were
// not met before in this query.
func (x *index) scanCell(lv *level, c int64, lo, hi []int64, out []int32) []int32 {
	for _, id := range lv.ids[lv.cellStart[c]:lv.cellStart[c+1]] {
		if x.stamp[id] != x.epoch {
			x.stamp[id] = x.epoch
			if x.overlaps(id, lo, hi) {
				out = append(out, id)
			}
		}
	}
	return out
}
