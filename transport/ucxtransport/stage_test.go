package ucxtransport

import "testing"

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
