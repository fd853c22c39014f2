package ntcopy

import (
	"bytes"
	"fmt"
	"testing"
)

// TestCopy compares Copy with copy at every destination and source
// alignment in a 16-byte line and lengths around MinStream and the 64-byte
// body, checking that no byte outside the destination range changes.
func TestCopy(t *testing.T) {
	src := make([]byte, 4096)
	for i := range src {
		src[i] = byte(i*7 + 3)
	}
	lengths := []int{0, 1, 15, 63, MinStream - 1, MinStream, MinStream + 1, MinStream + 63, MinStream + 64, 1000, 2048, 3000}
	for _, n := range lengths {
		for doff := range 16 {
			for soff := range 16 {
				got := bytes.Repeat([]byte{0xEE}, 4096+32)
				want := bytes.Clone(got)
				Copy(got[doff:doff+n], src[soff:soff+n])
				Fence()
				copy(want[doff:doff+n], src[soff:soff+n])
				if !bytes.Equal(got, want) {
					t.Fatalf("n=%d dst+%d src+%d: differs from copy", n, doff, soff)
				}
			}
		}
	}
}

// TestCopyLengths checks the count Copy returns: the shorter slice's length.
func TestCopyLengths(t *testing.T) {
	for _, c := range []struct{ dst, src, want int }{{0, 0, 0}, {300, 1000, 300}, {1000, 300, 300}, {4096, 4096, 4096}} {
		if got := Copy(make([]byte, c.dst), make([]byte, c.src)); got != c.want {
			t.Errorf("Copy into %d from %d = %d, want %d", c.dst, c.src, got, c.want)
		}
	}
}

// BenchmarkRows copies 64 MiB in rows of 2 KiB and 16 KiB into every other
// row of a destination twice as large (a sub-block of a larger array, as
// the transports' readers do), with copy and with Copy.
func BenchmarkRows(b *testing.B) {
	const total = 64 << 20
	src := make([]byte, total)
	dst := make([]byte, 2*total)
	for i := range src {
		src[i] = byte(i)
	}
	clear(dst)
	for _, row := range []int{2 << 10, 16 << 10} {
		for _, c := range []struct {
			name string
			fn   func(d, s []byte) int
		}{{"copy", func(d, s []byte) int { return copy(d, s) }}, {"stream", Copy}} {
			b.Run(fmt.Sprintf("%s/%dKiB", c.name, row>>10), func(b *testing.B) {
				b.SetBytes(total)
				for b.Loop() {
					for i := 0; i < total/row; i++ {
						c.fn(dst[2*i*row:2*i*row+row], src[i*row:(i+1)*row])
					}
					Fence()
				}
			})
		}
	}
}
