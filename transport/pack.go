package transport

import (
	"fmt"

	"github.com/couplet-hpc/couplet/internal/ntcopy"
)

// Pack copies b's sub-block into dst, contiguous in C order. dst must hold
// at least b.Bytes() bytes. Rows are copied whole (by RowCopier);
// trailing dimensions that the block spans fully are merged into one
// longer row.
func Pack(b Block, dst []byte) error {
	if err := checkCopy(b, len(dst), "pack into"); err != nil {
		return err
	}
	cp, done := RowCopier(b.Bytes())
	defer done()
	walkRows(b, func(off, pos, n int64) { cp(dst[pos:pos+n], b.Buf[off:off+n]) })
	return nil
}

// Unpack copies a contiguous C-order src (as made by Pack) into b's
// sub-block. src must hold at least b.Bytes() bytes.
func Unpack(b Block, src []byte) error {
	if err := checkCopy(b, len(src), "unpack from"); err != nil {
		return err
	}
	cp, done := RowCopier(b.Bytes())
	defer done()
	walkRows(b, func(off, pos, n int64) { cp(b.Buf[off:off+n], src[pos:pos+n]) })
	return nil
}

// RowCopier returns the copy for the rows of a block of n bytes, and what
// to call once they are copied: streaming stores (ntcopy) for blocks too
// large to stay in the caches, whose rows plain copy would read into them
// before writing; copy for the others.
func RowCopier(n int64) (cp func(dst, src []byte) int, done func()) {
	if n >= ntcopy.Large {
		return ntcopy.Copy, ntcopy.Fence
	}
	return func(dst, src []byte) int { return copy(dst, src) }, func() {}
}

// Contiguous reports whether b's sub-block is one contiguous run of b.Buf
// and if so where it starts, so that it can be sent or received in place
// without packing. An empty block counts as contiguous at offset 0.
func Contiguous(b Block) (off int64, ok bool) {
	if b.Elems() == 0 {
		return 0, true
	}
	k, _ := rowDim(b)
	for i := 0; i < k; i++ {
		if b.Count[i] > 1 {
			return 0, false
		}
	}
	return offset(b, b.Start), true
}

// ContiguousBytes returns b's sub-block as the run of b.Buf that holds it,
// when it is one (see Contiguous); b must be valid.
func ContiguousBytes(b Block) ([]byte, bool) {
	off, ok := Contiguous(b)
	if !ok {
		return nil, false
	}
	return b.Buf[off : off+b.Bytes()], true
}

// EachRun calls fn, in C order, for every contiguous run of b's sub-block
// with its byte offset in b.Buf and its length. Only the layout is read
// (b.Buf may be nil), so it also walks a block of another process's buffer;
// the caller validates the layout first.
func EachRun(b Block, fn func(off, n int64)) {
	walkRows(b, func(off, _, n int64) { fn(off, n) })
}

func checkCopy(b Block, n int, what string) error {
	if err := b.Validate(); err != nil {
		return err
	}
	if int64(n) < b.Bytes() {
		return fmt.Errorf("transport: %s a %d-byte buffer: block needs %d bytes", what, n, b.Bytes())
	}
	return nil
}

// rowDim finds the dimension k where rows start: every dimension after k
// is spanned fully, so a row is Count[k] contiguous slabs of the later
// dimensions. It also returns the row length in bytes.
func rowDim(b Block) (k int, row int64) {
	nd := len(b.Shape)
	row = int64(b.ElemSize)
	k = nd - 1
	for k > 0 && b.Count[k] == b.Shape[k] {
		row *= b.Shape[k]
		k--
	}
	if k >= 0 {
		row *= b.Count[k]
	}
	return max(k, 0), row
}

// offset is the byte offset of the element at idx in b.Buf.
func offset(b Block, idx []int64) int64 {
	off := int64(0)
	for i := range b.Shape {
		off = off*b.Shape[i] + idx[i]
	}
	return off * int64(b.ElemSize)
}

// walkRows calls fn for every row of the block with its byte offset in
// b.Buf, its byte position in the packed buffer and its length. A block
// without dimensions is one row of one element.
func walkRows(b Block, fn func(off, pos, n int64)) {
	if b.Elems() == 0 {
		return
	}
	k, row := rowDim(b)
	idx := append([]int64(nil), b.Start...)
	for pos := int64(0); ; pos += row {
		fn(offset(b, idx), pos, row)
		// Advance the odometer over the dimensions before k.
		i := k - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < b.Start[i]+b.Count[i] {
				break
			}
			idx[i] = b.Start[i]
		}
		if i < 0 {
			return
		}
	}
}
