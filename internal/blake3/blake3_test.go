package blake3

import (
	"bytes"
	"encoding/hex"
	"testing"

	zeebo "github.com/zeebo/blake3"
)

// pattern is the input of BLAKE3's published test vectors: byte i is i mod 251.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// TestVectors: digests of the published test-vector input at lengths around the chunk
// (1 KiB) and SIMD batch (16 KiB) boundaries, written whole and in uneven pieces.
func TestVectors(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"},
		{1, "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213"},
		{1023, "10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11"},
		{1024, "42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af7"},
		{1025, "d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444"},
		{16384, "f875d6646de28985646f34ee13be9a576fd515f76b5b0a26bb324735041ddde4"},
		{102400, "bc3e3d41a1146b069abffad3c0d44860cf664390afce4d9661f7902e7943e085"},
		{1048577, "2f053cd7472cf0cd2f9adaf45c1180255b91b9a865404a63671a0ee5f792ed33"},
	} {
		data := pattern(tc.n)
		for _, piece := range []int{0, 1, 1000, 64 << 10} {
			h := New()
			if piece == 0 {
				h.Write(data)
			} else {
				for off := 0; off < len(data); off += piece {
					h.Write(data[off:min(off+piece, len(data))])
				}
			}
			if got := hex.EncodeToString(h.Sum(nil)); got != tc.want {
				t.Errorf("%s: %d bytes in pieces of %d: %s, want %s", Impl, tc.n, piece, got, tc.want)
			}
		}
	}
}

// TestMatchesPureGo: this package and the pure-Go implementation agree on inputs up to
// a few MiB written in many piece sizes; Sum leaves the state as it was, and Reset
// starts over.
func TestMatchesPureGo(t *testing.T) {
	data := make([]byte, 3<<20+517)
	for i := range data {
		data[i] = byte(i*131 + i>>9)
	}
	for _, n := range []int{63, 64, 65, 4096, 16<<10 + 1, 1 << 20, len(data)} {
		ref := zeebo.New()
		ref.Write(data[:n])
		want := ref.Sum(nil)
		for _, piece := range []int{7, 1024, 128 << 10, 1<<20 + 3} {
			h := New()
			for off := 0; off < n; off += piece {
				h.Write(data[off:min(off+piece, n)])
			}
			got := h.Sum([]byte("prefix"))
			if !bytes.Equal(got[:6], []byte("prefix")) || !bytes.Equal(got[6:], want) {
				t.Fatalf("%d bytes in pieces of %d: %x, want prefix+%x", n, piece, got, want)
			}
			if again := h.Sum(nil); !bytes.Equal(again, want) {
				t.Fatalf("%d bytes: a second Sum gave %x, want %x", n, again, want)
			}
			h.Reset()
			h.Write(data[:n])
			if got := h.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("%d bytes after Reset: %x, want %x", n, got, want)
			}
		}
	}
	if h := New(); h.Size() != Size || h.BlockSize() != 64 {
		t.Fatalf("Size %d BlockSize %d, want %d and 64", h.Size(), h.BlockSize(), Size)
	}
}

// BenchmarkWrite1MiB is the hash's throughput on 1 MiB writes.
func BenchmarkWrite1MiB(b *testing.B) {
	p := pattern(1 << 20)
	h := New()
	b.SetBytes(int64(len(p)))
	for range b.N {
		h.Write(p)
	}
}
