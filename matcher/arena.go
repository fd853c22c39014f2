package matcher

// arenaChunk is the largest arena chunk in coordinates (8 MiB); chunks
// start small and double, so small matches stay cheap.
const arenaChunk = 1 << 20

// arena hands out coordinate storage for many small boxes from large
// chunks that never move, so boxes can point into it and nothing is copied
// as it grows. Chunks hold no pointers, so the GC does not scan them.
type arena struct {
	chunks [][]int64
	used   int // coordinates used in the last chunk
}

// alloc returns n coordinates and where they live (chunk, offset).
func (a *arena) alloc(n int) (s []int64, chunk, off int32) {
	if len(a.chunks) == 0 || a.used+n > len(a.chunks[len(a.chunks)-1]) {
		size := 256
		if len(a.chunks) > 0 {
			size = min(arenaChunk, 2*len(a.chunks[len(a.chunks)-1]))
		}
		a.chunks = append(a.chunks, make([]int64, max(size, n)))
		a.used = 0
	}
	c := a.chunks[len(a.chunks)-1]
	off = int32(a.used)
	a.used += n
	return c[off:a.used:a.used], int32(len(a.chunks) - 1), off
}

// at returns the n coordinates allocated at (chunk, off).
func (a *arena) at(chunk, off int32, n int) []int64 {
	return a.chunks[chunk][off : int(off)+n : int(off)+n]
}

// recChunk is the largest number of records per chunk (512 KiB).
const recChunk = 1 << 16

// recs is an append-only list of records stored in chunks that start small
// and double, so growth never copies. It also counts the records of each
// writer bucket, so that assembling them by writer needs no counting pass.
type recs struct {
	chunks [][]rec // every chunk full but the last, which holds used
	last   []rec   // the last chunk
	used   int
	n      int     // records in the chunks before the last
	pieces []piece // boxes cut out of an overlap, by rec.write^-1
	bucket []int32 // writer bucket of each write index
	counts []int   // records per writer bucket
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

// push appends r (kept small so that it is inlined).
func (l *recs) push(r rec) {
	if l.used == len(l.last) {
		l.grow()
	}
	l.last[l.used] = r
	l.used++
}

// grow starts a new chunk.
func (l *recs) grow() {
	size := 64
	if len(l.chunks) > 0 {
		size = min(recChunk, 2*l.used)
	}
	l.n += l.used
	l.last, l.used = make([]rec, size), 0
	l.chunks = append(l.chunks, l.last)
}

// len returns the number of records.
func (l *recs) len() int { return l.n + l.used }

// add records that write w serves the whole overlap of read r.
func (l *recs) add(r, w int32) {
	l.counts[l.bucket[w]]++
	l.push(rec{read: r, write: w})
}

// addPiece records that write w serves the box at (chunk, off) of read r.
func (l *recs) addPiece(r, w, chunk, off int32) {
	l.counts[l.bucket[w]]++
	l.pieces = append(l.pieces, piece{write: w, chunk: chunk, off: off})
	l.push(rec{read: r, write: ^int32(len(l.pieces) - 1)})
}

// writeOf returns the write index of r.
func writeOf(r rec, pieces []piece) int32 {
	if r.write >= 0 {
		return r.write
	}
	return pieces[^r.write].write
}
