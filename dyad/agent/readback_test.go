package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReadBack: the ranges of a file that the rpc DTL filled in the kernel, tagged chunk
// by chunk by one hasher or several, give the content tag of the whole, whatever the
// range sizes; one flipped bit changes it; a range past the end or out of order, or
// bytes missing from the file, are an error, never a tag; an aborted read-back gives no
// tag.
func TestReadBack(t *testing.T) {
	data := make([]byte, 3<<20+17)
	for i := range data {
		data[i] = byte(i*13 + i>>11)
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
	good := write("good", data)
	bad := bytes.Clone(data)
	bad[1<<20+hashPiece/2] ^= 0x01 // one bit, mid-chunk
	flipped := write("bad", bad)
	short := write("short", data[:len(data)-contentChunk-5]) // the file lacks its last bytes
	n := int64(len(data))
	defer func(k int, w int64) { readBackHashers, foldWindow = k, w }(readBackHashers, foldWindow)
	// feed adds the whole file in ranges of span and closes the read-back.
	feed := func(f *os.File, hashers int, span int64) ([]byte, error) {
		readBackHashers = hashers
		c := newContentHasher(testMAC())
		r := startReadBack(f, c, n)
		for off := int64(0); off < n; off += span {
			r.add(off, min(span, n-off))
		}
		err := r.close()
		if again := r.close(); again != err {
			t.Errorf("second close = %v, first %v", again, err)
		}
		return c.Sum(), err
	}
	// A window of 3 chunks (smaller than a job) and of 5 make the hashers wait for the
	// fold and reuse its slots many times over.
	for _, window := range []int64{3, 5, 4096} {
		foldWindow = window
		for _, hashers := range []int{1, 2, 4} {
			for _, span := range []int64{n / 7, 4097, hashPiece - 1, hashPiece, 1 << 20, n} {
				got, err := feed(good, hashers, span)
				if err != nil {
					t.Fatalf("window %d, %d hashers, ranges of %d: %v", window, hashers, span, err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("window %d, %d hashers, ranges of %d: tag %x, want %x", window, hashers, span, got, want)
				}
			}
		}
	}
	if got, err := feed(flipped, 2, hashPiece); err != nil || bytes.Equal(got, want) {
		t.Errorf("one flipped bit: tag %x (err %v), the original's is %x", got, err, want)
	}
	if got, err := feed(short, 2, 1<<20); !errors.Is(err, io.EOF) || got != nil {
		t.Errorf("file shorter than its ranges: tag %x, close = %v, want io.EOF", got, err)
	}

	for _, tc := range []struct {
		name   string
		ranges [][2]int64
	}{
		{"a range past the end", [][2]int64{{0, 1 << 20}, {1 << 20, n + 10 - 1<<20}}},
		{"a range out of order", [][2]int64{{0, 1 << 20}, {1<<20 + 1, 5}}},
		{"fewer bytes than the file", [][2]int64{{0, n - 1}}},
	} {
		c := newContentHasher(testMAC())
		r := startReadBack(good, c, n)
		for _, rg := range tc.ranges {
			r.add(rg[0], rg[1])
		}
		r.add(n, 5) // after a failure, ranges are dropped, not read
		if err := r.close(); !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(fmt.Sprint(err), "out of order") {
			t.Errorf("%s: close = %v, want an error", tc.name, err)
		}
		if got := c.Sum(); got != nil {
			t.Errorf("%s: tag %x, want none", tc.name, got)
		}
	}

	c := newContentHasher(testMAC())
	r := startReadBack(good, c, n)
	r.add(0, 1<<20)
	r.abort()
	if err := r.close(); !errors.Is(err, errAborted) || c.Sum() != nil {
		t.Errorf("close after abort = %v, tag %x; want errAborted and no tag", err, c.Sum())
	}
	// An empty file: no chunk, the tag of no bytes.
	empty := newContentHasher(testMAC())
	if err := startReadBack(good, empty, 0).close(); err != nil || !bytes.Equal(empty.Sum(), tagOf(nil)) {
		t.Errorf("empty file: tag %x (%v), want %x", empty.Sum(), err, tagOf(nil))
	}
}

// TestReadBackShrunk: a file cut short under the staging (by someone else with access to
// the managed directory) fails the read-back with an error, never a tag.
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
	c := newContentHasher(testMAC())
	r := startReadBack(f, c, n)
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	r.add(0, n)
	if err := r.close(); !errors.Is(err, io.EOF) || c.Sum() != nil {
		t.Fatalf("read back of a file cut short: close = %v, tag %x; want io.EOF and no tag", err, c.Sum())
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

// BenchmarkReadBack: checking a 64 MiB file already in the page cache, on one goroutine
// (the tag written in order, as the ucx DTL does) and by a readBack, whose hashers and
// closing goroutine tag chunks on as many cores as are free: the check of a fast transfer
// is not held to one core's GHASH speed (5-8 GB/s with 128-bit carry-less multiplies).
func BenchmarkReadBack(b *testing.B) {
	const n = 64 << 20
	f, err := os.Create(filepath.Join(b.TempDir(), "staged"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(bytes.Repeat([]byte{5}, n)); err != nil {
		b.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, n, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Munmap(m)
	b.Run("one-goroutine", func(b *testing.B) {
		b.SetBytes(n)
		for b.Loop() {
			c := newContentHasher(testMAC())
			c.Write(m)
			c.Sum()
		}
	})
	b.Run("readBack", func(b *testing.B) {
		b.SetBytes(n)
		for b.Loop() {
			r := startReadBack(f, newContentHasher(testMAC()), n)
			for off := int64(0); off < n; off += 1 << 20 {
				r.add(off, 1<<20)
			}
			if err := r.close(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
