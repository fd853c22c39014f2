package transport

import (
	"bytes"
	"fmt"
	"testing"
)

// refPack packs element by element with explicit index arithmetic: an
// independent reference for Pack's row merging.
func refPack(b Block) []byte {
	var out []byte
	nd := len(b.Shape)
	idx := make([]int64, nd)
	var rec func(d int)
	rec = func(d int) {
		if d == nd {
			off := offset(b, idx)
			out = append(out, b.Buf[off:off+int64(b.ElemSize)]...)
			return
		}
		for i := b.Start[d]; i < b.Start[d]+b.Count[d]; i++ {
			idx[d] = i
			rec(d + 1)
		}
	}
	rec(0)
	return out
}

func fill(n int, seed byte) []byte {
	buf := make([]byte, n)
	for i := range buf {
		buf[i] = byte(i*7) ^ seed
	}
	return buf
}

var packCases = []struct {
	name                string
	es                  int
	shape, start, count []int64
	contiguous          bool
}{
	{"0-D", 8, nil, nil, nil, true},
	{"1-D part", 4, []int64{10}, []int64{3}, []int64{5}, true},
	{"1-D empty", 4, []int64{10}, []int64{3}, []int64{0}, true},
	{"2-D rows", 2, []int64{6, 5}, []int64{1, 1}, []int64{3, 3}, false},
	{"2-D full rows", 8, []int64{6, 5}, []int64{2, 0}, []int64{3, 5}, true},
	{"3-D inner", 8, []int64{5, 6, 7}, []int64{1, 2, 3}, []int64{2, 3, 4}, false},
	{"3-D one plane", 3, []int64{5, 6, 7}, []int64{4, 2, 0}, []int64{1, 3, 7}, true},
	{"3-D slabs", 1, []int64{5, 6, 7}, []int64{1, 0, 0}, []int64{3, 6, 7}, true},
	{"3-D strided slabs", 4, []int64{5, 6, 7}, []int64{0, 1, 0}, []int64{5, 4, 7}, false},
	{"3-D whole", 4, []int64{5, 6, 7}, []int64{0, 0, 0}, []int64{5, 6, 7}, true},
	{"3-D empty", 4, []int64{5, 6, 7}, []int64{0, 0, 0}, []int64{5, 0, 7}, true},
	{"4-D", 2, []int64{3, 4, 5, 6}, []int64{1, 1, 2, 3}, []int64{2, 2, 3, 3}, false},
	// Blocks of ntcopy.Large bytes or more are copied with streaming stores:
	// rows of unaligned starts and lengths, and rows shorter than it streams.
	{"3-D large, streamed", 8, []int64{40, 64, 300}, []int64{1, 3, 5}, []int64{37, 60, 290}, false},
	{"3-D large odd elements, streamed", 3, []int64{30, 100, 500}, []int64{2, 1, 7}, []int64{25, 97, 411}, false},
	{"2-D large short rows, streamed", 4, []int64{20000, 50}, []int64{3, 1}, []int64{19990, 33}, false},
}

func TestPackUnpack(t *testing.T) {
	for _, c := range packCases {
		t.Run(c.name, func(t *testing.T) {
			n := int64(c.es)
			for _, s := range c.shape {
				n *= s
			}
			b := Block{Buf: fill(int(n), 1), ElemSize: c.es, Shape: c.shape, Start: c.start, Count: c.count}
			want := refPack(b)
			if int64(len(want)) != b.Bytes() {
				t.Fatalf("reference packed %d bytes, Bytes() says %d", len(want), b.Bytes())
			}
			got := make([]byte, b.Bytes()+3) // spare bytes must stay untouched
			for i := range got {
				got[i] = 0xEE
			}
			if err := Pack(b, got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[:len(want)], want) {
				t.Fatalf("Pack = %v, want %v", got[:len(want)], want)
			}
			if !bytes.Equal(got[len(want):], []byte{0xEE, 0xEE, 0xEE}) {
				t.Fatalf("Pack wrote past the block: %v", got[len(want):])
			}

			// Unpack into a fresh buffer: the block gets the packed bytes,
			// everything else keeps its old contents.
			dst := b
			dst.Buf = fill(int(n), 2)
			orig := append([]byte(nil), dst.Buf...)
			src := fill(len(want), 3)
			if err := Unpack(dst, src); err != nil {
				t.Fatal(err)
			}
			if back := refPack(dst); !bytes.Equal(back, src) {
				t.Fatalf("block after Unpack = %v, want %v", back, src)
			}
			check := dst
			check.Buf = orig
			if err := Unpack(check, src); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(check.Buf, dst.Buf) {
				t.Fatal("Unpack changed bytes outside the block")
			}

			off, ok := Contiguous(b)
			if ok != c.contiguous {
				t.Fatalf("Contiguous = %v, want %v", ok, c.contiguous)
			}
			if ok && b.Bytes() > 0 && !bytes.Equal(b.Buf[off:off+b.Bytes()], want) {
				t.Fatalf("contiguous span at %d differs from the packed block", off)
			}
		})
	}
}

func TestPackErrors(t *testing.T) {
	good := Block{Buf: make([]byte, 5*6*8), ElemSize: 8, Shape: []int64{5, 6}, Start: []int64{1, 1}, Count: []int64{2, 2}}
	bad := good
	bad.Count = []int64{5, 2} // runs past the shape
	tests := []struct {
		name string
		b    Block
		n    int
	}{
		{"short buffer", good, int(good.Bytes()) - 1},
		{"invalid block", bad, 1000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := Pack(tc.b, make([]byte, tc.n)); err == nil {
				t.Error("Pack: no error")
			}
			if err := Unpack(tc.b, make([]byte, tc.n)); err == nil {
				t.Error("Unpack: no error")
			}
		})
	}
}

func BenchmarkPack(b *testing.B) {
	for _, inner := range []int64{8, 256} {
		blk := Block{Buf: make([]byte, 64*64*inner*8), ElemSize: 8,
			Shape: []int64{64, 64, inner}, Start: []int64{0, 0, 0}, Count: []int64{32, 64, inner / 2}}
		dst := make([]byte, blk.Bytes())
		b.Run(fmt.Sprint("inner", inner), func(b *testing.B) {
			b.SetBytes(blk.Bytes())
			for b.Loop() {
				Pack(blk, dst)
			}
		})
	}
}
