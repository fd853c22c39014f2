package agent

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
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

// TestHashAt: ranges of a file hashed in place, in order, give the content tag of the
// whole, whatever their sizes against readPiece; one byte changed in the middle of a
// range changes the hash; bytes missing from the file are an error.
func TestHashAt(t *testing.T) {
	data := make([]byte, 2*readPiece+3<<10+5)
	for i := range data {
		data[i] = byte(i*29 + i>>10)
	}
	want := tagOf(data)
	dir := t.TempDir()
	write := func(name string, b []byte) *os.File {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		if _, err := f.Write(b); err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := write("good", data)
	n := int64(len(data))
	for _, span := range []int64{1, 4097, readPiece - 1, readPiece, readPiece + 1, n} {
		if span == 1 {
			span = n / 7 // uneven, not a divisor of anything here
		}
		c := newContentHasher(testMAC())
		for off := int64(0); off < n; off += span {
			if err := c.hashAt(f, off, min(span, n-off)); err != nil {
				t.Fatalf("ranges of %d at %d: %v", span, off, err)
			}
		}
		if got := c.Sum(); !bytes.Equal(got, want) {
			t.Errorf("ranges of %d: hash %x, want %x", span, got, want)
		}
	}

	bad := bytes.Clone(data)
	bad[readPiece+readPiece/2] ^= 0x01 // one bit, in the middle of the second piece
	c := newContentHasher(testMAC())
	if err := c.hashAt(write("bad", bad), 0, n); err != nil {
		t.Fatal(err)
	}
	if got := c.Sum(); bytes.Equal(got, want) {
		t.Errorf("one flipped bit mid-piece: hash %x equals the original's", got)
	}

	for _, tc := range []struct {
		off, n int64
		want   error
	}{
		{n - 10, 20, io.EOF}, // 10 bytes past the end
		{n, 1, io.EOF},       // wholly past the end
		{n - readPiece - 1, readPiece + 2, io.EOF}, // the second piece runs short
	} {
		c := newContentHasher(testMAC())
		if err := c.hashAt(f, tc.off, tc.n); !errors.Is(err, tc.want) {
			t.Errorf("%d bytes at %d of %d: %v, want %v", tc.n, tc.off, n, err, tc.want)
		}
	}

	// With the hash off (the bench's variant), Sum is nil even after hashAt.
	s := newContentHasher(nil)
	if err := s.hashAt(f, 0, 10); err != nil {
		t.Fatal(err)
	}
	if got := s.Sum(); got != nil {
		t.Errorf("skipping hasher after hashAt: Sum = %x, want nil", got)
	}
}
