package ucxtransport

import (
	"unsafe"

	"github.com/couplet-hpc/couplet/internal/hugemem"
)

// stagePool keeps the staging buffers of packed blocks for reuse. A block
// that is not one run of its buffer travels packed: each epoch would
// otherwise allocate (and the runtime zero, and the kernel fault in) a
// fresh buffer as large as the block, which at hundreds of MiB costs as
// much as the transfer. Buffers go back once UCX is done with them.
//
// Buffers of mappedStage bytes or more are mapped memory backed by huge
// pages where the kernel allows (hugemem), outside the Go heap: the shared-memory
// path fills them with process_vm_readv, and the kernel's copy into 4 KiB
// pages of a large buffer cost up to twice that into huge pages here (the
// users' arrays are usually huge-page backed); off the heap, a few hundred
// MiB of staging also start no garbage collection.
type stagePool struct {
	free  [][]byte
	bytes int64 // held in free
	// mapped holds the first byte of each mapped buffer.
	mapped map[*byte]bool
}

// maxStaged bounds the bytes the pool keeps; buffers beyond it are left
// to the garbage collector or unmapped.
const maxStaged = 1 << 30

// mappedStage is the size from which a staging buffer is mapped memory.
const mappedStage = 1 << 20

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
		return s.alloc(n)
	}
	b := s.free[best]
	s.free = append(s.free[:best], s.free[best+1:]...)
	s.bytes -= int64(cap(b))
	return b[:n]
}

// alloc makes a new buffer: mapped from mappedStage bytes on (the heap when
// the mapping fails), else on the heap.
func (s *stagePool) alloc(n int64) []byte {
	if n < mappedStage {
		return make([]byte, n)
	}
	// Whole huge pages: all of the buffer can be huge, and it can serve a
	// slightly larger block later.
	b, err := hugemem.Map(int((n + hugemem.Size - 1) / hugemem.Size * hugemem.Size))
	if err != nil {
		return make([]byte, n)
	}
	if s.mapped == nil {
		s.mapped = map[*byte]bool{}
	}
	s.mapped[&b[0]] = true
	return b[:n]
}

// put returns a buffer that nothing uses any more.
func (s *stagePool) put(b []byte) {
	if b == nil {
		return
	}
	if s.bytes+int64(cap(b)) > maxStaged {
		s.drop(b)
		return
	}
	s.free = append(s.free, b[:cap(b)])
	s.bytes += int64(cap(b))
}

// drop unmaps b when it is a mapped buffer; a heap buffer is left to the
// garbage collector.
func (s *stagePool) drop(b []byte) {
	if cap(b) == 0 {
		return
	}
	first := unsafe.SliceData(b[:1])
	if s.mapped[first] {
		delete(s.mapped, first)
		hugemem.Unmap(b)
	}
}

// close unmaps the free buffers. Buffers still lent to operations that
// were abandoned stay mapped: UCX might still touch them.
func (s *stagePool) close() {
	for _, b := range s.free {
		s.drop(b)
	}
	s.free, s.bytes = nil, 0
}
