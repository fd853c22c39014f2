package agent

import (
	"bytes"
	"crypto/sha256"
	"testing"
)

// TestContentHasher: the pipelined hash equals SHA-256 of the whole, though the caller
// reuses its buffer after every Write.
func TestContentHasher(t *testing.T) {
	data := make([]byte, 1<<20+13)
	for i := range data {
		data[i] = byte(i*7 + i>>9)
	}
	want := sha256.Sum256(data)
	for _, chunk := range []int{1, 1000, 64 << 10, 1 << 20, 2 << 20} {
		c := newContentHasher()
		buf := make([]byte, chunk)
		for off := 0; off < len(data); off += chunk {
			n := copy(buf, data[off:])
			c.Write(buf[:n])
			for i := range buf {
				buf[i] = 0xee // the hasher must have taken a copy
			}
		}
		if got := c.Sum(); !bytes.Equal(got, want[:]) {
			t.Errorf("chunks of %d: hash %x, want %x", chunk, got, want)
		}
	}
	// A hasher abandoned midway ends without a Sum.
	c := newContentHasher()
	c.Write(data[:10])
	c.close()
	c.close()
}
