package matcher

// The tiling path: the writes of most coupled variables tile the array
// with equal blocks (a block decomposition, with smaller blocks at the far
// edges). Such a variable needs no index: each block is one cell of a
// regular grid, a dense array maps cells to writes, and a read's writes are
// the cells its box spans, every one of which it overlaps. No two blocks
// overlap, so each serves its whole overlap, and the read is fully served
// exactly when it lies inside the array and no cell it spans is empty. It
// yields exactly what the general path yields.

// gridPath turns the tiling path on (a variable so tests can compare it
// with the other paths).
var gridPath = true

// gridDims is the number of dimensions of a tiling grid: variables of fewer
// dimensions are tiled in 3-D with leading dimensions of one cell [0,1).
const gridDims = 3

// grid is a tiling of a variable's writes: write w covers exactly its cell
// clipped to [origin, max). Coordinates are padded to gridDims dimensions.
type grid struct {
	pad         int // leading dimensions added to the variable's
	origin, max [gridDims]int64
	stride      [gridDims]int64 // row-major; stride[gridDims-1] = 1
	div         [gridDims]divisor
	cells       []gridCell // by cell index
	// ascending: priorities ascend with the cell index, so a read's writes
	// listed from its last cell back are winner first, with no sort.
	ascending bool
}

// gridCell is the write in a cell and its writer bucket, side by side as
// serving a read needs both; id is -1 where nothing is written.
type gridCell struct{ id, bucket int32 }

// newGrid returns the tiling grid of the writes of vw (ws are all writes),
// or nil if they do not tile one: every box must start on a cell boundary
// and span one cell (clipped at the far edge), no two boxes may share a
// cell, and the grid may have at most 2n+64 cells for n boxes. The cell size
// is the largest extent of a box.
func newGrid(vw *varWrites, ws []Write) *grid {
	d, n := vw.d, len(vw.bucket)
	if d > gridDims || n == 0 {
		return nil
	}
	g := &grid{pad: gridDims - d}
	var cell, ncell [gridDims]int64
	for k := range gridDims {
		g.origin[k], g.max[k], cell[k] = 0, 1, 1
	}
	copy(g.origin[g.pad:], vw.lo[:d])
	copy(g.max[g.pad:], vw.hi[:d])
	copy(cell[g.pad:], vw.ext[:d])
	total := int64(1)
	for k := range gridDims {
		ext := g.max[k] - g.origin[k]
		if ext <= 0 { // the extent overflows int64
			return nil
		}
		ncell[k] = (ext-1)/cell[k] + 1
		total = mulSat(total, ncell[k])
	}
	if total > 2*int64(n)+64 {
		return nil
	}
	s := int64(1)
	for k := gridDims - 1; k >= 0; k-- {
		g.stride[k] = s
		s *= ncell[k]
		g.div[k] = newDivisor(uint64(cell[k]))
	}
	org, end, div, stride := g.origin[g.pad:], g.max[g.pad:], g.div[g.pad:], g.stride[g.pad:]
	size := cell[g.pad:]
	tmp := make([]int64, 2*d)
	for id := range int32(n) {
		b := vw.bounds(ws, id, tmp)
		lo, hi := b[:d], b[d:2*d]
		var c int64
		for k := range lo {
			rel := uint64(lo[k] - org[k]) // in [0, ext)
			q := div[k].div(rel)
			if q*uint64(size[k]) != rel || hi[k]-lo[k] != min(size[k], end[k]-lo[k]) {
				return nil
			}
			c += int64(q) * stride[k]
		}
		if g.cells == nil { // allocated once a box fits, as most failures come at once
			g.cells = make([]gridCell, total)
			for c := range g.cells {
				g.cells[c].id = -1
			}
		}
		if g.cells[c].id >= 0 { // two writes of the same block
			return nil
		}
		g.cells[c] = gridCell{id, vw.bucket[id]}
	}
	return g
}

// setAscending notes whether priorities of vw's writes (ws are all
// writes) ascend with the cell index, so that they are in their final
// order out of query. It reads them from ws: when they ascend, vw needs no
// copy of them.
func (g *grid) setAscending(vw *varWrites, ws []Write) {
	last := int32(-1)
	for _, cell := range g.cells {
		id := cell.id
		if id < 0 {
			continue
		}
		if last >= 0 && vw.ordered && id < last { // priorities follow the local index
			return
		}
		if last >= 0 && !vw.ordered { // as varWrites.wins, from ws
			a, b := &ws[vw.global(id)], &ws[vw.global(last)]
			if c := cmpPriority(a.Seq, a.Rank, b.Seq, b.Rank); c < 0 || c == 0 && id < last {
				return
			}
		}
		last = id
	}
	g.ascending = true
}

// span sets c0 and c1 to the first and last cells [lo,hi) spans along
// each dimension and reports whether it lies inside the grid; ok is false
// if it spans none. lo and hi are padded to gridDims and hold a non-empty
// box. (Pointers rather than results spare copying arrays around.)
func (g *grid) span(lo, hi, c0, c1 *[gridDims]int64) (inside, ok bool) {
	inside = true
	for k := range gridDims {
		l, h := max(lo[k], g.origin[k]), min(hi[k], g.max[k])
		if l >= h {
			return false, false
		}
		if l != lo[k] || h != hi[k] {
			inside = false
		}
		c0[k] = int64(g.div[k].div(uint64(l - g.origin[k])))
		c1[k] = int64(g.div[k].div(uint64(h - 1 - g.origin[k])))
	}
	return inside, true
}

// query appends to out the writes whose cells [lo,hi) spans, in reverse
// row-major cell order, and reports whether they cover it: whether it lies
// inside the grid and spans no empty cell.
func (g *grid) query(lo, hi *[gridDims]int64, out []int32) ([]int32, bool) {
	var c0, c1 [gridDims]int64
	full, ok := g.span(lo, hi, &c0, &c1)
	if !ok {
		return out, false
	}
	cells := g.cells
	s0, s1 := g.stride[0], g.stride[1]
	for i := c1[0]; i >= c0[0]; i-- {
		for j := c1[1]; j >= c0[1]; j-- {
			row := i*s0 + j*s1
			for c := row + c1[2]; c >= row+c0[2]; c-- {
				if id := cells[c].id; id >= 0 {
					out = append(out, id)
				} else {
					full = false
				}
			}
		}
	}
	return out, full
}

// serve is query for ascending priorities fused with recs.addWhole: it
// records that the writes of vw whose cells [lo,hi) spans serve read r,
// winner first, and reports whether they cover it.
func (g *grid) serve(out *recs, r int32, lo, hi *[gridDims]int64, ids []int32) bool {
	var c0, c1 [gridDims]int64
	full, ok := g.span(lo, hi, &c0, &c1)
	if !ok {
		return false
	}
	var (
		cells  = g.cells
		s0, s1 = g.stride[0], g.stride[1]
		bl     *recList // the list being appended to
		cur    []rec    // and its chunk,
		n      int      // held here until the bucket changes
	)
	for i := c1[0]; i >= c0[0]; i-- {
		for j := c1[1]; j >= c0[1]; j-- {
			row := i*s0 + j*s1
			for c := row + c1[2]; c >= row+c0[2]; c-- {
				cell := cells[c]
				if cell.id < 0 {
					full = false
					continue
				}
				if next := &out.lists[cell.bucket]; next != bl {
					if bl != nil {
						bl.n = n
					}
					bl, cur, n = next, next.cur, next.n
				}
				if n == len(cur) {
					bl.n = n
					out.grow(bl)
					cur, n = bl.cur, 0
				}
				w := cell.id
				if ids != nil {
					w = ids[w]
				}
				cur[n] = rec{read: r, write: w}
				n++
			}
		}
	}
	if bl != nil {
		bl.n = n
	}
	return full
}

// serveGrid records the writes of vw (whose grid is built) that serve read
// r, [lo,hi) padded to gridDims, winner first, and reports whether they
// cover it; if not, it returns them in cands (reusing its storage) to find
// what is missing.
func (vw *varWrites) serveGrid(out *recs, r int32, lo, hi *[gridDims]int64, cands []int32) ([]int32, bool) {
	g := vw.grid
	if g.ascending {
		if g.serve(out, r, lo, hi, vw.ids) {
			return cands, true
		}
		cands, _ = g.query(lo, hi, cands[:0])
		return cands, false
	}
	cands, full := g.query(lo, hi, cands[:0])
	vw.sortByPriority(cands)
	out.addWhole(r, cands, vw.bucket, vw.ids)
	return cands, full
}
