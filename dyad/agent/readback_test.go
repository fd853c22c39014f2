package agent

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestReadBack: the ranges of a file that the rpc DTL filled in the kernel, read back for
// the content hasher in the order they arrived, hash to the content hash of the whole,
// whatever the range sizes; a range past the end of the file is an error, not a short hash.
func TestReadBack(t *testing.T) {
	data := make([]byte, 3<<20+17)
	for i := range data {
		data[i] = byte(i*13 + i>>11)
	}
	h := newContentHash()
	h.Write(data)
	want := h.Sum(nil)
	f, err := os.Create(filepath.Join(t.TempDir(), "staged"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	n := int64(len(data))
	for _, span := range []int64{4097, hashPiece - 1, hashPiece, 1 << 20, n} {
		c := newContentHasher(false)
		r := startReadBack(f, c)
		for off := int64(0); off < n; off += span {
			r.add(off, min(span, n-off))
		}
		if err := r.close(); err != nil {
			t.Fatalf("ranges of %d: %v", span, err)
		}
		if err := r.close(); err != nil {
			t.Fatalf("ranges of %d, second close: %v", span, err)
		}
		if got := c.Sum(); !bytes.Equal(got, want) {
			t.Errorf("ranges of %d: hash %x, want %x", span, got, want)
		}
	}

	c := newContentHasher(false)
	r := startReadBack(f, c)
	r.add(0, 1<<20)
	r.add(n-10, 20) // 10 bytes past the end
	r.add(n, 5)     // after a failure, ranges are drained, not read
	if err := r.close(); !errors.Is(err, io.EOF) {
		t.Fatalf("a range past the end: close = %v, want io.EOF", err)
	}
	c.close()
}
