package ucxtransport

import (
	"testing"
	"unsafe"

	"github.com/couplet-hpc/couplet/internal/hugemem"
)

// TestStagePool: a returned buffer serves the next request it is large
// enough for (the smallest such), larger requests get new buffers, and the
// pool keeps no more than maxStaged bytes.
func TestStagePool(t *testing.T) {
	var s stagePool
	a := s.get(100)
	b := s.get(1000)
	if len(a) != 100 || len(b) != 1000 {
		t.Fatalf("lengths %d, %d; want 100, 1000", len(a), len(b))
	}
	s.put(b)
	s.put(a)
	if s.bytes != 1100 {
		t.Fatalf("pool holds %d bytes, want 1100", s.bytes)
	}
	c := s.get(50)
	if len(c) != 50 || &c[0] != &a[0] {
		t.Errorf("get(50) did not reuse the 100-byte buffer")
	}
	d := s.get(2000)
	if len(d) != 2000 || s.bytes != 1000 {
		t.Errorf("get(2000): %d bytes, pool %d; want a new buffer and the pool unchanged at 1000", len(d), s.bytes)
	}
	e := s.get(1000)
	if &e[0] != &b[0] || s.bytes != 0 || len(s.free) != 0 {
		t.Errorf("get(1000) did not take the 1000-byte buffer (pool %d bytes, %d buffers)", s.bytes, len(s.free))
	}
	s.put(nil)
	s.bytes = maxStaged - 10
	s.put(make([]byte, 11))
	if len(s.free) != 0 {
		t.Errorf("the pool kept a buffer beyond maxStaged")
	}
}

// TestStagePoolMapped: buffers from mappedStage bytes on are mapped outside
// the Go heap, aligned for huge pages, writable end to end, reused like
// heap buffers, and unmapped (forgotten by the pool) when dropped beyond
// maxStaged and at close.
func TestStagePoolMapped(t *testing.T) {
	var s stagePool
	small := s.get(mappedStage - 1)
	if len(s.mapped) != 0 {
		t.Fatalf("a %d-byte buffer was mapped", len(small))
	}
	a := s.get(mappedStage + 5)
	if len(a) != mappedStage+5 || cap(a) != hugemem.Size {
		t.Fatalf("len %d cap %d, want %d and %d", len(a), cap(a), mappedStage+5, hugemem.Size)
	}
	if uintptr(unsafe.Pointer(&a[0]))%hugemem.Size != 0 || len(s.mapped) != 1 {
		t.Fatalf("mapped buffer at %p not %d-aligned, or not recorded (%d mappings)", &a[0], hugemem.Size, len(s.mapped))
	}
	for i := range a {
		a[i] = byte(i)
	}
	s.put(a)
	b := s.get(hugemem.Size)
	if &b[0] != &a[0] || len(b) != hugemem.Size {
		t.Fatalf("get(%d) did not reuse the mapped buffer", hugemem.Size)
	}
	s.bytes = maxStaged - 1 // the pool is full: the next buffer back goes
	s.put(b)
	if len(s.mapped) != 0 || len(s.free) != 0 {
		t.Fatalf("a buffer beyond maxStaged stayed: %d mappings, %d free", len(s.mapped), len(s.free))
	}
	s.bytes = 0
	c := s.get(3 * hugemem.Size)
	s.put(c)
	s.close()
	if len(s.mapped) != 0 || len(s.free) != 0 || s.bytes != 0 {
		t.Fatalf("close left %d mappings, %d free buffers, %d bytes", len(s.mapped), len(s.free), s.bytes)
	}
}
