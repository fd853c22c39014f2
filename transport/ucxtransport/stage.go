package ucxtransport

// stagePool keeps the staging buffers of packed blocks for reuse. A block
// that is not one run of its buffer travels packed: each epoch would
// otherwise allocate (and the runtime zero, and the kernel fault in) a
// fresh buffer as large as the block, which at hundreds of MiB costs as
// much as the transfer. Buffers go back once UCX is done with them.
type stagePool struct {
	free  [][]byte
	bytes int64 // held in free
}

// maxStaged bounds the bytes the pool keeps; buffers beyond it are left
// to the garbage collector.
const maxStaged = 1 << 30

// get returns a buffer of n bytes, reused when one large enough is free.
// Its contents are unspecified.
func (s *stagePool) get(n int64) []byte {
	best := -1
	for i, b := range s.free {
		if int64(cap(b)) >= n && (best < 0 || cap(b) < cap(s.free[best])) {
			best = i
		}
	}
	if best < 0 {
		return make([]byte, n)
	}
	b := s.free[best]
	s.free = append(s.free[:best], s.free[best+1:]...)
	s.bytes -= int64(cap(b))
	return b[:n]
}

// put returns a buffer that nothing uses any more.
func (s *stagePool) put(b []byte) {
	if b == nil || s.bytes+int64(cap(b)) > maxStaged {
		return
	}
	s.free = append(s.free, b[:cap(b)])
	s.bytes += int64(cap(b))
}
