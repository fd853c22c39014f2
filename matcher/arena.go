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

// recChunk is the largest number of records per chunk (1 MiB).
const recChunk = 1 << 16

// recs is an append-only list of records stored in chunks that start small
// and double, so growth never copies.
type recs struct {
	chunks [][]rec
	last   []rec // last chunk, filled up to len
	n      int
}

// rec is one transfer: read and write indices and where its box (start then
// count) lives in the arena, or chunk -1 when the box is the whole overlap of
// the read and the write.
type rec struct {
	read, write int32
	chunk, off  int32
}

func (l *recs) add(r rec) {
	if len(l.last) == cap(l.last) {
		l.last = make([]rec, 0, min(recChunk, max(64, 2*cap(l.last))))
		l.chunks = append(l.chunks, nil)
	}
	l.last = append(l.last, r)
	l.chunks[len(l.chunks)-1] = l.last
	l.n++
}
