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
