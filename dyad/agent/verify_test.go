package agent

import (
	"bytes"
	"hash/crc32"
	"testing"

	"github.com/couplet-hpc/couplet/dyad"
)

// TestContentHasher: the pipelined checks equal the CRC-32C and the content hash of the
// whole, whether the caller hands over the hasher's buffers (rpc) or has copies taken of
// a buffer it overwrites at once (ucx).
func TestContentHasher(t *testing.T) {
	data := make([]byte, 1<<20+13)
	for i := range data {
		data[i] = byte(i*7 + i>>9)
	}
	h := newContentHash()
	h.Write(data)
	want, wantCRC := h.Sum(nil), crc32.Checksum(data, dyad.Castagnoli)
	for _, chunk := range []int{1, 1000, 64 << 10, 1 << 20, 2 << 20} {
		for _, copied := range []bool{false, true} {
			c := newContentHasher()
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
			if crc, got := c.Sum(); !bytes.Equal(got, want) || crc != wantCRC {
				t.Errorf("chunks of %d (copied %v): hash %x crc %08x, want %x %08x", chunk, copied, got, crc, want, wantCRC)
			}
		}
	}
	// A hasher abandoned midway ends without a Sum.
	c := newContentHasher()
	c.Copy(data[:10])
	c.close()
	c.close()
}
