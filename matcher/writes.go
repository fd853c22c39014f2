package matcher

import (
	"fmt"
	"math"
)

// varWrites holds the non-empty writes of one variable, flattened for the
// index, and their index.
type varWrites struct {
	d int // dimensions as matched: a scalar (0-D) is the 1-D box [0,1)
	// ids are the global write indices by local index (ascending); nil
	// while they are the identity (the variable holds every write and none
	// is empty), the common case of one variable per match.
	ids []int32
	// box holds the boxes as a flat list (see flat.go), built by flatten
	// for the index; a tiling needs none.
	box    []int64
	bucket []int32 // writer bucket by local index
	// lo and hi bound the boxes and ext is their largest extent, along
	// each of the first d dimensions (if d <= gridDims), for newGrid.
	lo, hi, ext [gridDims]int64
	// ordered: (Seq, Rank) never decreases with the local index, so a
	// higher local index always wins and priorities need no lookups;
	// lastSeq and lastRank are the last write's, to check that.
	ordered  bool
	lastSeq  int64
	lastRank int
	// Seq and Rank by local index, for cache-friendly priority tests; only
	// when not ordered (built with the index).
	seq  []int64
	rank []int
	// shared[i]: some other write of the variable overlaps write i. Only
	// shared writes need the last-write-wins subtraction.
	shared []bool
	// anyShared: some write of the variable overlaps another; blocks: the
	// index is one 3-D grid level with each box in one cell and no box
	// overlaps another, so reads take the block path (blocks.go).
	anyShared, blocks bool
	// Built on first use (prepare): the tiling grid if the writes tile
	// one, else the index.
	grid *grid
	idx  *index
}

// prepare builds what matching reads of vw needs: the tiling grid if the
// writes tile one (and the tiling path is on), else the index.
func (vw *varWrites) prepare(ws []Write) {
	if gridPath {
		if vw.grid = newGrid(vw, ws); vw.grid != nil {
			if vw.grid.setAscending(vw, ws); !vw.grid.ascending {
				vw.priorities(ws) // for sorting each read's writes
			}
			return
		}
	}
	vw.idx = vw.buildIndex(ws)
}

// priorities copies the Seq and Rank of each write out of ws, by local
// index, unless the local index orders priorities (or they are copied).
func (vw *varWrites) priorities(ws []Write) {
	if vw.ordered || vw.seq != nil {
		return
	}
	n := len(vw.bucket)
	vw.seq, vw.rank = make([]int64, n), make([]int, n)
	for c := range int32(n) {
		w := &ws[vw.global(c)]
		vw.seq[c], vw.rank[c] = w.Seq, w.Rank
	}
}

// flatten builds vw.box from the writes ws, unless it is built.
func (vw *varWrites) flatten(ws []Write) {
	if vw.box != nil {
		return
	}
	d, n := vw.d, len(vw.bucket)
	box := make([]int64, 2*d*n)
	for c := range int32(n) {
		vw.bounds(ws, c, box[2*d*int(c):2*d*int(c)+2*d])
	}
	vw.box = box
}

// bounds returns the flat box (lower bounds, then exclusive upper bounds)
// of local write c, from vw.box if it is built, else written into tmp
// (2d long) from ws.
func (vw *varWrites) bounds(ws []Write, c int32, tmp []int64) []int64 {
	d := vw.d
	if vw.box != nil {
		return vw.box[2*d*int(c) : 2*d*int(c)+2*d]
	}
	b := &ws[vw.global(c)].Box
	if len(b.Start) == 0 { // a scalar, matched as [0,1)
		tmp[0], tmp[1] = 0, 1
		return tmp
	}
	for k, st := range b.Start[:d] {
		tmp[k], tmp[d+k] = st, st+b.Count[k]
	}
	return tmp
}

// global returns the write index of local write c.
func (vw *varWrites) global(c int32) int32 {
	if vw.ids == nil {
		return c
	}
	return vw.ids[c]
}

// writeSet is what one pass over the writes yields: the writes of each
// variable and the writer buckets. Buckets are numbered in order of
// first appearance; ranks[b] is the rank of bucket b.
type writeSet struct {
	vars    map[int]*varWrites
	ranks   []int
	scalars map[int]bool // variables with 0-D requests
	// groupErr is a variable whose writes disagree on dimensions: reported
	// after every request was validated, as validation errors come first.
	groupErr error
}

// collectWrites validates and groups the writes and bounds each variable's
// boxes in one pass (the requests are large: each pass over them costs
// memory bandwidth).
func collectWrites(ws []Write) (*writeSet, error) {
	s := &writeSet{vars: map[int]*varWrites{}}
	var (
		last     *varWrites
		lastVar  = math.MinInt
		lastRank = 0
		bucket   = int32(-1)
		seen     = map[int]int32{}
	)
	for i := range ws {
		w := &ws[i]
		start, count := w.Box.Start, w.Box.Count
		if len(start) != len(count) {
			return nil, fmt.Errorf("write of rank %d, variable %d: %w", w.Rank, w.Var, w.Box.Validate())
		}
		empty := false
		for k, c := range count {
			if c <= 0 || start[k] > math.MaxInt64-c {
				if err := w.Box.Validate(); err != nil {
					return nil, fmt.Errorf("write of rank %d, variable %d: %w", w.Rank, w.Var, err)
				}
				empty = true
			}
		}
		dims := len(start)
		if dims == 0 {
			if s.scalars == nil {
				s.scalars = map[int]bool{}
			}
			s.scalars[w.Var] = true
		}
		if empty || s.groupErr != nil {
			continue
		}
		fd := max(dims, 1)
		if last == nil || w.Var != lastVar {
			last, lastVar = s.vars[w.Var], w.Var
			if last == nil {
				// The first variable gets room for all remaining writes,
				// which is exact when there is one variable.
				n := 0
				if len(s.vars) == 0 {
					n = len(ws) - i
				}
				last = &varWrites{d: fd, ordered: true, lastSeq: math.MinInt64, lastRank: math.MinInt,
					bucket: make([]int32, 0, n)}
				for k := range min(fd, gridDims) {
					last.lo[k], last.hi[k] = math.MaxInt64, math.MinInt64
				}
				s.vars[w.Var] = last
			}
		}
		if fd != last.d {
			s.groupErr = fmt.Errorf("matcher: writes on variable %d have %d and %d dimensions", w.Var, last.d, fd)
			continue
		}
		local := int32(len(last.bucket))
		if last.ids == nil && local != int32(i) {
			last.ids = make([]int32, local, max(2*int(local), 16))
			for j := range last.ids {
				last.ids[j] = int32(j)
			}
		}
		if last.ids != nil {
			last.ids = append(last.ids, int32(i))
		}
		if dims == 0 {
			last.lo[0], last.hi[0], last.ext[0] = min(last.lo[0], 0), max(last.hi[0], 1), 1
		} else if dims <= gridDims {
			lo, hi, ext := last.lo[:dims], last.hi[:dims], last.ext[:dims]
			for k, st := range start[:dims] {
				c := count[k]
				lo[k], hi[k], ext[k] = min(lo[k], st), max(hi[k], st+c), max(ext[k], c)
			}
		}
		if bucket < 0 || w.Rank != lastRank {
			b, ok := seen[w.Rank]
			if !ok {
				b = int32(len(s.ranks))
				seen[w.Rank] = b
				s.ranks = append(s.ranks, w.Rank)
			}
			bucket, lastRank = b, w.Rank
		}
		if cmpPriority(w.Seq, w.Rank, last.lastSeq, last.lastRank) < 0 {
			last.ordered = false
		}
		last.lastSeq, last.lastRank = w.Seq, w.Rank
		last.bucket = append(last.bucket, bucket)
	}
	return s, nil
}
