package matcher

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Matcher collects writes and reads and matches them. The zero value is
// ready to use. A Matcher is not safe for concurrent use. Boxes passed to
// AddWrite and AddRead are kept, not copied: do not modify them afterwards.
type Matcher struct {
	writes []Write
	reads  []Read
}

// NewMatcher returns an empty Matcher.
func NewMatcher() *Matcher { return &Matcher{} }

// AddWrite records a write. It fails if the box is malformed.
func (m *Matcher) AddWrite(w Write) error {
	if err := w.Box.Validate(); err != nil {
		return fmt.Errorf("write of rank %d, variable %d: %w", w.Rank, w.Var, err)
	}
	m.writes = append(m.writes, w)
	return nil
}

// AddRead records a read. It fails if the box is malformed.
func (m *Matcher) AddRead(r Read) error {
	if err := r.Box.Validate(); err != nil {
		return fmt.Errorf("read %d of rank %d, variable %d: %w", r.ID, r.Rank, r.Var, err)
	}
	m.reads = append(m.reads, r)
	return nil
}

// Len returns the number of writes and reads recorded.
func (m *Matcher) Len() (writes, reads int) { return len(m.writes), len(m.reads) }

// Reset forgets all writes and reads. Schedules already returned keep
// theirs.
func (m *Matcher) Reset() { m.writes, m.reads = nil, nil }

// Match matches writes against reads; see Matcher.Match. It fails if a
// box is malformed.
func Match(writes []Write, reads []Read) (Schedule, error) {
	m := Matcher{writes: writes, reads: reads}
	return m.Match()
}

// Match serves every element of every read with exactly one write: among
// the writes covering the element, the one with the highest Seq (ties: the
// higher Rank, then the later added). Parts of reads that no write covers are
// returned in Schedule.Uncovered. Empty reads produce nothing; writes and
// reads of one variable must agree on the number of dimensions.
//
// Cost: an index build over the writes (linear for block decompositions,
// and a dense grid of cells instead when the writes of a variable of up to
// 3 dimensions tile one, see grid.go), then per read O(1 + k) index work
// for the k writes it overlaps; only reads served by overlapping writes pay
// for box subtraction.
func (m *Matcher) Match() (Schedule, error) {
	if len(m.writes) > math.MaxInt32 || len(m.reads) > math.MaxInt32 {
		return Schedule{}, fmt.Errorf("matcher: too many requests (%d writes, %d reads)", len(m.writes), len(m.reads))
	}
	ws, err := collectWrites(m.writes)
	if err != nil {
		return Schedule{}, err
	}
	order, err := m.readOrder(ws)
	if err != nil {
		return Schedule{}, err
	}
	if ws.groupErr != nil {
		return Schedule{}, ws.groupErr
	}
	s, err := m.match(ws, order)
	if len(ws.scalars) > 0 {
		demoteScalars(&s, ws.scalars)
	}
	return s, err
}

// unitBox is how a scalar (0-D) request is matched: the flat box lists of
// the overlap path need at least one dimension to hold a box.
func unitBox() Box { return Box{Start: []int64{0}, Count: []int64{1}} }

// demoteScalars gives the scalar variables' missing boxes back their 0
// dimensions. Transfers need nothing: At takes the dimensions from the read.
func demoteScalars(s *Schedule, scalars map[int]bool) {
	for i := range s.Uncovered {
		if u := &s.Uncovered[i]; scalars[u.Var] {
			for j := range u.Missing {
				u.Missing[j] = Box{Start: []int64{}, Count: []int64{}}
			}
		}
	}
}

// match matches the reads, in order, against the collected writes.
func (m *Matcher) match(ws *writeSet, order []int32) (Schedule, error) {
	var (
		out       = recs{lists: make([]recList, len(ws.ranks))}
		coords    arena
		fc        flatCoalescer // scratch for the overlap path
		uncovered []Uncovered
		cands     []int32
		lastVar   = math.MinInt
		vw        *varWrites
	)
	var qlo, qhi, ilo, ihi, cut, bufA []int64
	var miss missing
	// fast is the grid of vw when it is 3-D: its reads, the bulk of most
	// matches, are served below with no further setup.
	var fast *grid
	for _, ri := range order {
		r := &m.reads[ri]
		if st, ct := r.Box.Start, r.Box.Count; fast != nil && r.Var == lastVar && len(st) == gridDims && len(ct) == gridDims &&
			ct[0] > 0 && ct[1] > 0 && ct[2] > 0 {
			q0 := [gridDims]int64{st[0], st[1], st[2]}
			q1 := [gridDims]int64{st[0] + ct[0], st[1] + ct[1], st[2] + ct[2]}
			full := false
			if cands, full = vw.serveGrid(&out, ri, &q0, &q1, cands); !full {
				if b := miss.boxes(m.writes, vw, q0[:], q1[:], cands); len(b) > 0 {
					uncovered = append(uncovered, Uncovered{Reader: r.Rank, Var: r.Var, ReadID: r.ID, Missing: b})
				}
			}
			continue
		}
		if r.Box.Empty() {
			continue
		}
		if r.Var != lastVar || vw == nil {
			lastVar, vw, fast = r.Var, ws.vars[r.Var], nil
		}
		dims := r.Box.Dims()
		if vw == nil {
			miss := r.Box.Clone()
			if dims == 0 {
				miss = unitBox()
			}
			uncovered = append(uncovered, Uncovered{Reader: r.Rank, Var: r.Var, ReadID: r.ID, Missing: []Box{miss}})
			continue
		}
		d := vw.d
		if max(dims, 1) != d {
			return Schedule{}, fmt.Errorf("matcher: read %d of rank %d on variable %d has %d dimensions, its writes have %d",
				r.ID, r.Rank, r.Var, max(dims, 1), d)
		}
		if vw.idx == nil && vw.grid == nil {
			vw.prepare(m.writes)
		}
		if g := vw.grid; g != nil && g.pad == 0 {
			fast = g
		}
		x := vw.idx
		if cap(qlo) < d {
			qlo, qhi, ilo, ihi = make([]int64, d), make([]int64, d), make([]int64, d), make([]int64, d)
			cut = make([]int64, 2*d)
		}
		qlo, qhi, ilo, ihi = qlo[:d], qhi[:d], ilo[:d], ihi[:d]
		if dims == 0 {
			qlo[0], qhi[0] = 0, 1
		} else {
			for k := range d {
				qlo[k] = r.Box.Start[k]
				qhi[k] = r.Box.Start[k] + r.Box.Count[k]
			}
		}
		covered, exact := int64(0), true
		full := false // known to be fully served, whatever covered says
		if g := vw.grid; g != nil {
			var q0, q1 [gridDims]int64
			for k := range g.pad {
				q0[k], q1[k] = 0, 1
			}
			copy(q0[g.pad:], qlo)
			copy(q1[g.pad:], qhi)
			cands, full = vw.serveGrid(&out, ri, &q0, &q1, cands)
		} else if vw.blocks {
			// Disjoint blocks: every candidate serves its whole overlap.
			q0, q1 := [3]int64(qlo), [3]int64(qhi)
			cands = x.queryBlocks3(&q0, &q1, cands[:0])
			vw.sortByPriority(cands)
			covered, exact = vw.serveBlocks3(&out, ri, &q0, &q1, cands)
		} else {
			cands = x.query(qlo, qhi, cands[:0])
			vw.sortByPriority(cands)
			for i, c := range cands {
				b := int(c) * 2 * d
				// Equal lengths let the compiler drop the bounds checks.
				wl, wh := x.box[b:b+d], x.box[b+d:b+2*d]
				ql, qh, il, ih := qlo[:len(wl)], qhi[:len(wl)], ilo[:len(wl)], ihi[:len(wl)]
				v := int64(1) // volume of the overlap
				for k := range wl {
					l, h := max(ql[k], wl[k]), min(qh[k], wh[k])
					il[k], ih[k] = l, h
					v = mulSat(v, h-l)
				}
				clean := true
				if vw.shared[c] {
					for _, h := range cands[:i] {
						if vw.shared[h] && x.overlaps(h, ilo, ihi) {
							clean = false
							break
						}
					}
				}
				w, wb := vw.global(c), vw.bucket[c]
				if clean { // the common case: nobody later wrote over this part
					out.add(wb, ri, w)
					covered, exact = addSat(covered, v, exact)
					continue
				}
				// Later writes overlap: serve only what they left.
				bufA = append(bufA[:0], ilo...)
				bufA = append(bufA, ihi...)
				for _, h := range cands[:i] {
					if vw.shared[h] && x.overlaps(h, ilo, ihi) {
						hb := int(h) * 2 * d
						bufA = subtractFlat(bufA, d, x.box[hb:hb+d], x.box[hb+d:hb+2*d], cut)
						if len(bufA) == 0 {
							break
						}
					}
				}
				bufA = fc.coalesce(bufA, d)
				for p := 0; p < len(bufA); p += 2 * d {
					c, ch, off := coords.alloc(2 * d)
					out.addPiece(wb, ri, w, ch, off)
					v := int64(1)
					for k := range d {
						c[k], c[d+k] = bufA[p+k], bufA[p+d+k]-bufA[p+k]
						v = mulSat(v, c[d+k])
					}
					covered, exact = addSat(covered, v, exact)
				}
			}
		}
		if full {
			continue
		}
		if want, ok := volume(r.Box.Count); vw.grid != nil || !ok || !exact || covered != want {
			if b := miss.boxes(m.writes, vw, qlo, qhi, cands); len(b) > 0 {
				uncovered = append(uncovered, Uncovered{Reader: r.Rank, Var: r.Var, ReadID: r.ID, Missing: b})
			}
		}
	}
	segs, ends := out.segments(ws.ranks)
	return Schedule{writes: m.writes, reads: m.reads, segs: segs, ends: ends, pieces: out.pieces, coords: &coords, Uncovered: uncovered}, nil
}

// missing finds what writes leave of a read; it holds scratch space.
type missing struct {
	fc       flatCoalescer
	buf, tmp []int64
}

// boxes returns what the writes cands of vw leave of [lo,hi), coalesced.
func (s *missing) boxes(ws []Write, vw *varWrites, lo, hi []int64, cands []int32) []Box {
	d := vw.d
	if len(s.tmp) < 4*d {
		s.tmp = make([]int64, 4*d) // a write's box, and scratch for subtractFlat
	}
	s.buf = append(append(s.buf[:0], lo...), hi...)
	for _, c := range cands {
		b := vw.bounds(ws, c, s.tmp[:2*d])
		s.buf = subtractFlat(s.buf, d, b[:d], b[d:], s.tmp[2*d:])
	}
	return flatBoxes(&s.fc, s.buf, d)
}

// buildIndex indexes the boxes of vw and finds the writes that overlap
// another. Out-of-order priorities get their Seq and Rank copied out of ws.
func (vw *varWrites) buildIndex(ws []Write) *index {
	vw.flatten(ws)
	d, n := vw.d, len(vw.bucket)
	box := vw.box
	vw.priorities(ws)
	x := newIndex(d, n, box)
	// Find writes that overlap another write: one small query per write.
	vw.shared = make([]bool, n)
	// Two overlapping boxes of one grid level share a cell, so the first
	// level's pairs are found within its cells (a block decomposition has
	// one box per cell: a linear pass). Every other box queries the whole
	// index, which finds its overlaps on all levels, the first included.
	first := 0
	if lv := &x.levels[0]; lv.cell != nil {
		first = 1
		for c := range len(lv.cellStart) - 1 {
			if lv.cellStart[c+1]-lv.cellStart[c] < 2 {
				continue
			}
			ids := lv.ids[lv.cellStart[c]:lv.cellStart[c+1]]
			for i, a := range ids {
				for _, b := range ids[i+1:] {
					ab := int(a) * 2 * d
					if x.overlaps(b, box[ab:ab+d], box[ab+d:ab+2*d]) {
						vw.shared[a], vw.shared[b] = true, true
					}
				}
			}
		}
	}
	var hits []int32
	for _, lv := range x.levels[first:] {
		for _, i := range lv.ids {
			b := int(i) * 2 * d
			hits = x.query(box[b:b+d], box[b+d:b+2*d], hits[:0])
			if len(hits) > 1 {
				for _, h := range hits {
					vw.shared[h] = true
				}
			}
		}
	}
	for _, sh := range vw.shared {
		vw.anyShared = vw.anyShared || sh
	}
	vw.blocks = blockPath && d == 3 && len(x.levels) == 1 && x.levels[0].cell != nil && x.levels[0].single && !vw.anyShared
	return x
}

// readOrder validates the reads and returns their indices sorted by (Rank,
// Var, ID), stable. It notes the variables of 0-D reads in ws.scalars.
func (m *Matcher) readOrder(ws *writeSet) ([]int32, error) {
	order := make([]int32, len(m.reads))
	// ranks[i] is the rank of read i, noted once the reads turn out
	// unsorted, so that the counting sort below reads no request again
	// but in one sequential pass.
	var ranks []int
	lo, hi := math.MaxInt, math.MinInt
	for i := range order {
		r := &m.reads[i]
		if err := r.Box.Validate(); err != nil {
			return nil, fmt.Errorf("read %d of rank %d, variable %d: %w", r.ID, r.Rank, r.Var, err)
		}
		if r.Box.Dims() == 0 {
			if ws.scalars == nil {
				ws.scalars = map[int]bool{}
			}
			ws.scalars[r.Var] = true
		}
		order[i] = int32(i)
		if ranks == nil && i > 0 && m.compareReads(int32(i-1), int32(i)) > 0 {
			ranks = make([]int, len(m.reads))
			for j := range i {
				ranks[j] = m.reads[j].Rank
			}
		}
		if ranks != nil {
			ranks[i] = r.Rank
		}
		lo, hi = min(lo, r.Rank), max(hi, r.Rank)
	}
	if ranks == nil {
		return order, nil
	}
	byIndex := func(a, b int32) int {
		if c := m.compareReads(a, b); c != 0 {
			return c
		}
		return cmp.Compare(a, b) // stable
	}
	if hi-lo < 0 || hi-lo > 4*len(order)+1024 { // ranks too sparse to count
		slices.SortFunc(order, byIndex)
		return order, nil
	}
	// Reads arrive in runs per rank, each usually in (Var, ID) order: a
	// stable counting sort by rank, noting which ranks' reads come out of
	// (Var, ID) order, then a sort of those ranks' reads only.
	start := make([]int, hi-lo+2)
	for _, r := range ranks {
		start[r-lo+1]++
	}
	for r := 1; r < len(start); r++ {
		start[r] += start[r-1]
	}
	fill := slices.Clone(start)
	unsorted := make([]bool, hi-lo+1)
	for i, r := range ranks {
		r -= lo
		if f := fill[r]; f > start[r] && !unsorted[r] && m.compareReads(order[f-1], int32(i)) > 0 {
			unsorted[r] = true
		}
		order[fill[r]] = int32(i)
		fill[r]++
	}
	for r, u := range unsorted {
		if u {
			slices.SortFunc(order[start[r]:start[r+1]], byIndex)
		}
	}
	return order, nil
}

func (m *Matcher) compareReads(a, b int32) int {
	ra, rb := &m.reads[a], &m.reads[b]
	return compareRead(ra.Rank, ra.Var, ra.ID, rb.Rank, rb.Var, rb.ID)
}

// compareRead orders reads by reader rank, variable and id.
func compareRead(ra, va int, ia int64, rb, vb int, ib int64) int {
	if c := cmp.Compare(ra, rb); c != 0 {
		return c
	}
	if c := cmp.Compare(va, vb); c != 0 {
		return c
	}
	return cmp.Compare(ia, ib)
}

// wins reports whether local write a takes precedence over local write b:
// higher Seq, then higher Rank, then added later.
func (vw *varWrites) wins(a, b int32) bool {
	if c := cmpPriority(vw.seq[a], vw.rank[a], vw.seq[b], vw.rank[b]); c != 0 {
		return c > 0
	}
	return a > b
}

// cmpPriority compares the priorities of two writes, Seq then Rank:
// positive when the first one's is higher. Between equal ones the write
// added later wins.
func cmpPriority(seqA int64, rankA int, seqB int64, rankB int) int {
	switch {
	case seqA > seqB:
		return 1
	case seqA < seqB:
		return -1
	case rankA > rankB:
		return 1
	case rankA < rankB:
		return -1
	}
	return 0
}

// sortByPriority orders local candidate ids winner first. Candidate lists
// are short and usually come from the index in ascending priority (cells
// and writes both in row-major order), so an insertion sort into ascending
// order costs one comparison per candidate; a reversal then puts the winner
// first. Priorities are a strict total order, so the result is the same
// whatever the input order.
func (vw *varWrites) sortByPriority(cands []int32) {
	if vw.ordered { // priority is the local index
		for i := 1; i < len(cands); i++ {
			c := cands[i]
			j := i
			for ; j > 0 && cands[j-1] > c; j-- {
				cands[j] = cands[j-1]
			}
			cands[j] = c
		}
		slices.Reverse(cands)
		return
	}
	for i := 1; i < len(cands); i++ {
		c := cands[i]
		j := i
		for ; j > 0 && vw.wins(cands[j-1], c); j-- {
			cands[j] = cands[j-1]
		}
		cands[j] = c
	}
	slices.Reverse(cands)
}

// boxFromBounds builds a box from flat lower and exclusive upper bounds.
func boxFromBounds(lo, hi []int64) Box {
	b := Box{Start: slices.Clone(lo), Count: make([]int64, len(lo))}
	for k := range lo {
		b.Count[k] = hi[k] - lo[k]
	}
	return b
}

// mulSat multiplies non-negative a and b, saturating at math.MaxInt64. It
// checks with a wide multiply rather than a division, which costs more
// than the rest of a box intersection.
func mulSat(a, b int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lo)
}

// addSat adds non-negative volumes; ok turns false once anything saturated.
func addSat(a, b int64, ok bool) (int64, bool) {
	if b == math.MaxInt64 || a > math.MaxInt64-b {
		return math.MaxInt64, false
	}
	return a + b, ok
}
