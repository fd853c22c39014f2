package agent

import (
	"bytes"
	"testing"
)

// TestContentHasher: the pipelined check equals the content hash of the whole, whether the caller hands over the hasher's buffers (rpc) or has copies taken of
// a buffer it overwrites at once (ucx).
func TestContentHasher(t *testing.T) {
	data := make([]byte, 1<<20+13)
	for i := range data {
		data[i] = byte(i*7 + i>>9)
	}
	h := newContentHash()
	h.Write(data)
	want := h.Sum(nil)
	for _, chunk := range []int{1, 1000, 64 << 10, 1 << 20, 2 << 20} {
		for _, copied := range []bool{false, true} {
			c := newContentHasher(false)
			own := make([]byte, chunk)
			for off := 0; off < len(data); off += chunk {
				n := min(chunk, len(data)-off)
				if copied {
					copy(own, data[off:off+n])
					c.Copy(own[:n])
					for i := range own {
						own[i] = 0xee // the hasher must have taken a copy
					}
				} else {
					for o := off; o < off+n; {
						p := c.buffer(min(off+n-o, hashPiece))
						o += copy(p, data[o:])
						c.Write(p)
					}
				}
			}
			if got := c.Sum(); !bytes.Equal(got, want) {
				t.Errorf("chunks of %d (copied %v): hash %x, want %x", chunk, copied, got, want)
			}
		}
	}
	// A skipping hasher (the bench's hash-off variant) hashes nothing.
	s := newContentHasher(true)
	s.Copy(data)
	if got := s.Sum(); got != nil {
		t.Errorf("skipping hasher: Sum = %x, want nil", got)
	}
	// A hasher abandoned midway ends without a Sum.
	c := newContentHasher(false)
	c.Copy(data[:10])
	c.close()
	c.close()
}
