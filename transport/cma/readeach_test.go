package cma

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/couplet-hpc/couplet/transport"
)

// TestReadEach reads four owners' blocks that tile a slab of one array, two
// in memory from Alloc (mapped, copied in destination order) and two on
// the heap (process_vm_readv), with an empty block and one of the wrong
// size beside them: every block lands as Pack+Unpack puts it, nothing
// outside them is touched, and only the wrong one fails.
func TestReadEach(t *testing.T) {
	needPidfd(t)
	defer Detach()
	const esize = 8
	dstShape := []int64{3, 8, 8}
	dst := bytes.Repeat([]byte{0xee}, int(total(dstShape, esize)))
	want := append([]byte{}, dst...)
	var ds []Desc
	var dsts []transport.Block
	for w := range 4 {
		src := transport.Block{ElemSize: esize, Shape: []int64{2, 4, 4}, Start: []int64{0, 0, 0}, Count: []int64{2, 4, 4}}
		src.Buf = make([]byte, total(src.Shape, esize))
		if w%3 == 0 {
			buf, err := Alloc(len(src.Buf))
			if err != nil {
				t.Fatal(err)
			}
			defer Free(buf)
			src.Buf = buf
		}
		for i := range src.Buf {
			src.Buf[i] = byte(w*61 + i*7)
		}
		b := transport.Block{Buf: dst, ElemSize: esize, Shape: dstShape, Start: []int64{1, int64(w/2) * 4, int64(w%2) * 4}, Count: src.Count}
		packed := make([]byte, src.Bytes())
		if err := transport.Pack(src, packed); err != nil {
			t.Fatal(err)
		}
		if err := transport.Unpack(transport.Block{Buf: want, ElemSize: esize, Shape: dstShape, Start: b.Start, Count: b.Count}, packed); err != nil {
			t.Fatal(err)
		}
		if d := Describe(src); (d.Region != 0) != (w%3 == 0) {
			t.Fatalf("owner %d: region %d, want mapped=%v", w, d.Region, w%3 == 0)
		}
		ds, dsts = append(ds, Describe(src)), append(dsts, b)
	}
	empty := transport.Block{Buf: make([]byte, 8), ElemSize: esize, Shape: []int64{1}, Start: []int64{0}, Count: []int64{0}}
	wrong := transport.Block{Buf: make([]byte, 64), ElemSize: esize, Shape: []int64{8}, Start: []int64{0}, Count: []int64{8}}
	ds = append(ds, Describe(empty), Describe(wrong))
	dsts = append(dsts, empty, transport.Block{Buf: dst, ElemSize: esize, Shape: dstShape, Start: []int64{0, 0, 0}, Count: []int64{1, 1, 7}})
	errs := ReadEach(ds, dsts)
	got := make([]string, len(errs))
	for i, err := range errs {
		got[i] = fmt.Sprint(err != nil)
	}
	if fmt.Sprint(got) != "[false false false false false true]" {
		t.Errorf("errors %v, want only the last (wrong size)", errs)
	}
	if !bytes.Equal(dst, want) {
		t.Errorf("destination differs from Pack+Unpack of the four blocks")
	}
}
