package ucxtransport

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// stagePool keeps the staging buffers of packed blocks for reuse. A block
// that is not one run of its buffer travels packed: each epoch would
// otherwise allocate (and the runtime zero, and the kernel fault in) a
// fresh buffer as large as the block, which at hundreds of MiB costs as
// much as the transfer. Buffers go back once UCX is done with them.
//
// Buffers of mappedStage bytes or more are mapped memory backed by huge
// pages where the kernel allows, outside the Go heap: the shared-memory
// path fills them with process_vm_readv, and the kernel's copy into 4 KiB
// pages of a large buffer cost up to twice that into huge pages here (the
// users' arrays are usually huge-page backed); off the heap, a few hundred
// MiB of staging also start no garbage collection.
type stagePool struct {
	free  [][]byte
	bytes int64 // held in free
	// maps holds the whole mapping of each mapped buffer, by its first byte.
	maps map[*byte][]byte
}

// maxStaged bounds the bytes the pool keeps; buffers beyond it are left
// to the garbage collector or unmapped.
const maxStaged = 1 << 30

// mappedStage is the size from which a staging buffer is mapped memory.
const mappedStage = 1 << 20

// hugePage is the alignment of mapped buffers, so that huge pages fit.
const hugePage = 2 << 20

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
	size := (n + hugePage - 1) / hugePage * hugePage
	m, err := unix.Mmap(-1, 0, int(size+hugePage), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return make([]byte, n)
	}
	off := (hugePage - int64(uintptr(unsafe.Pointer(&m[0])))%hugePage) % hugePage
	b := m[off : off+size : off+size]
	unix.Madvise(b, unix.MADV_HUGEPAGE) // a hint: 4 KiB pages otherwise
	if s.maps == nil {
		s.maps = map[*byte][]byte{}
	}
	s.maps[&b[0]] = m
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
	if m, ok := s.maps[first]; ok {
		delete(s.maps, first)
		unix.Munmap(m)
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
