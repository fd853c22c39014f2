package agent

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadBack: the ranges of a file that the rpc DTL filled in the kernel, read back for
// the content tag in the order they arrived (through a mapping of the file, and by reads
// where it cannot be mapped), hash to the content tag of the whole, whatever the range
// sizes; a range past the end of the file is an error, not a short hash.
func TestReadBack(t *testing.T) {
	data := make([]byte, 3<<20+17)
	for i := range data {
		data[i] = byte(i*13 + i>>11)
	}
	want := tagOf(data)
	f, err := os.Create(filepath.Join(t.TempDir(), "staged"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	n := int64(len(data))
	for _, tc := range []struct {
		name  string
		start func(*contentHasher) *readBack
		past  error // what a range past the end gives
	}{
		{"mapped", func(c *contentHasher) *readBack { return startReadBack(f, c, n) }, io.ErrUnexpectedEOF},
		{"read", func(c *contentHasher) *readBack { return runReadBack(f, c, nil) }, io.EOF},
	} {
		for _, span := range []int64{4097, hashPiece - 1, hashPiece, 1 << 20, n} {
			c := newContentHasher(testMAC())
			r := tc.start(c)
			for off := int64(0); off < n; off += span {
				r.add(off, min(span, n-off))
			}
			if err := r.close(); err != nil {
				t.Fatalf("%s, ranges of %d: %v", tc.name, span, err)
			}
			if err := r.close(); err != nil {
				t.Fatalf("%s, ranges of %d, second close: %v", tc.name, span, err)
			}
			if got := c.Sum(); !bytes.Equal(got, want) {
				t.Errorf("%s, ranges of %d: hash %x, want %x", tc.name, span, got, want)
			}
		}

		r := tc.start(newContentHasher(testMAC()))
		r.add(0, 1<<20)
		r.add(n-10, 20) // 10 bytes past the end
		r.add(n, 5)     // after a failure, ranges are drained, not read
		if err := r.close(); !errors.Is(err, tc.past) {
			t.Fatalf("%s: a range past the end: close = %v, want %v", tc.name, err, tc.past)
		}
	}
}

// TestReadBackShrunk: a file cut short under the mapping (by someone else with access to
// the managed directory) fails the read-back with an error; the agent does not crash.
func TestReadBackShrunk(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "staged"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const n = 1 << 20
	if _, err := f.Write(make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	r := startReadBack(f, newContentHasher(testMAC()), n)
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	r.add(0, n)
	if err := r.close(); err == nil || !strings.Contains(err.Error(), "changed under the staging") {
		t.Fatalf("read back of a file cut short: close = %v, want a fault reported", err)
	}
}

// TestSplicePieces: the rpc DTL's splice pieces start at the hasher's piece, double up to
// splicePiece, shrink again towards the end, and cover the file exactly.
func TestSplicePieces(t *testing.T) {
	const K = 1 << 10
	for _, tc := range []struct {
		size int64
		want []int64
	}{
		{1, []int64{1}},
		{128 * K, []int64{128 * K}},
		{1 << 20, []int64{128 * K, 128 * K, 256 * K, 256 * K, 128 * K, 128 * K}},
		{4 << 20, []int64{128 * K, 128 * K, 256 * K, 512 * K, 1 << 20, 1 << 20, 512 * K, 256 * K, 128 * K, 128 * K}},
	} {
		var got []int64
		for n := int64(0); n < tc.size; {
			k := min(tc.size-n, splicePieceAt(n, tc.size))
			got = append(got, k)
			n += k
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("size %d: pieces %v, want %v", tc.size, got, tc.want)
		}
	}
}
