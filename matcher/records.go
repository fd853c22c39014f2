package matcher

import (
	"cmp"
	"slices"
)

// recChunk is the largest number of records per chunk (512 KiB).
const recChunk = 1 << 16

// recs collects the records of a match in one list per writer bucket, so
// the schedule comes out grouped by writer with no sort: each list is in
// emission order (read order). Lists grow in chunks that double and never
// move; the chunks are carved from larger slabs, so a list costs nothing
// until its writer sends something.
type recs struct {
	lists  []recList // by writer bucket
	slab   []rec     // free storage to carve chunks from
	slabs  int       // slabs allocated so far
	pieces []piece   // boxes cut out of an overlap, by rec.write^-1
}

// recList is one writer's records: full chunks, then cur[:n].
type recList struct {
	cur  []rec
	n    int
	full [][]rec
}

// rec is one transfer in 8 bytes: the read index, and either the write index
// (write >= 0: the box is the whole overlap of the read and the write) or
// ^i for pieces[i], a part of the overlap that later writes left.
type rec struct {
	read, write int32
}

// piece is a transfer box that is not a whole overlap: the write that serves
// it and where its coordinates (start then count) live in the arena.
type piece struct {
	write, chunk, off int32
}

// push appends r to the list of bucket b (kept small so that it is inlined).
func (l *recs) push(b int32, r rec) {
	bl := &l.lists[b]
	if bl.n == len(bl.cur) {
		l.grow(bl)
	}
	bl.cur[bl.n] = r
	bl.n++
}

// grow gives bl a new chunk twice the size of its last one.
func (l *recs) grow(bl *recList) {
	size := 16
	if bl.cur != nil {
		bl.full = append(bl.full, bl.cur)
		size = min(recChunk, 2*len(bl.cur))
	}
	if len(l.slab) < size {
		// Slabs double too (up to 8 MiB), so small matches stay small.
		l.slab = make([]rec, max(size, min(1<<20, 1024<<l.slabs)))
		l.slabs++
	}
	bl.cur, bl.n = l.slab[:size:size], 0
	l.slab = l.slab[size:]
}

// add records that write w of bucket b serves the whole overlap of read r.
func (l *recs) add(b, r, w int32) { l.push(b, rec{read: r, write: w}) }

// addWhole records that each write of cands (local ids of a variable whose
// buckets and global ids are bucket and ids, nil for the identity) serves
// its whole overlap with read r. It keeps the current bucket's list in
// locals while consecutive writes share a bucket, as they mostly do, rather
// than storing and reloading its length for every record.
func (l *recs) addWhole(r int32, cands, bucket, ids []int32) {
	var (
		lb  = int32(-1)
		bl  *recList
		cur []rec
		n   int
	)
	for _, c := range cands {
		w := c
		if ids != nil {
			w = ids[c]
		}
		if b := bucket[c]; b != lb {
			if bl != nil {
				bl.n = n
			}
			lb, bl = b, &l.lists[b]
			cur, n = bl.cur, bl.n
		}
		if n == len(cur) {
			bl.n = n
			l.grow(bl)
			cur, n = bl.cur, 0
		}
		cur[n] = rec{read: r, write: w}
		n++
	}
	if bl != nil {
		bl.n = n
	}
}

// addPiece records that write w of bucket b serves the box at (chunk, off)
// of read r.
func (l *recs) addPiece(b, r, w, chunk, off int32) {
	l.pieces = append(l.pieces, piece{write: w, chunk: chunk, off: off})
	l.push(b, rec{read: r, write: ^int32(len(l.pieces) - 1)})
}

// segments returns the records as chunks in schedule order (writer rank
// ascending; ranks[b] is bucket b's rank) and the running total at the end
// of each chunk.
func (l *recs) segments(ranks []int) (segs [][]rec, ends []int) {
	order := make([]int32, len(l.lists))
	for b := range order {
		order[b] = int32(b)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(ranks[a], ranks[b]) })
	n := 0
	for _, b := range order {
		bl := &l.lists[b]
		for _, ch := range bl.full {
			n += len(ch)
			segs, ends = append(segs, ch), append(ends, n)
		}
		if bl.n > 0 {
			n += bl.n
			segs, ends = append(segs, bl.cur[:bl.n:bl.n]), append(ends, n)
		}
	}
	return segs, ends
}

// writeOf returns the write index of r.
func writeOf(r rec, pieces []piece) int32 {
	if r.write >= 0 {
		return r.write
	}
	return pieces[^r.write].write
}
