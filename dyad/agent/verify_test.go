package agent

import (
	"bytes"
	"testing"
)

// TestContentHasher: the bytes written in any pieces hash to the content tag of the
// whole; a skipping hasher (the bench's hash-off variant) hashes nothing.
func TestContentHasher(t *testing.T) {
	data := make([]byte, 1<<20+13)
	for i := range data {
		data[i] = byte(i*7 + i>>9)
	}
	want := tagOf(data)
	for _, chunk := range []int{1000, 64 << 10, 1 << 20, 2 << 20} {
		c := newContentHasher(testMAC())
		for off := 0; off < len(data); off += chunk {
			c.Write(data[off:min(off+chunk, len(data))])
		}
		if got := c.Sum(); !bytes.Equal(got, want) {
			t.Errorf("pieces of %d: hash %x, want %x", chunk, got, want)
		}
	}
	s := newContentHasher(nil)
	s.Write(data)
	if got := s.Sum(); got != nil {
		t.Errorf("skipping hasher: Sum = %x, want nil", got)
	}
}
