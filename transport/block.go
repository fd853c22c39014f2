package transport

import (
	"fmt"
	"math"
)

// Block is one box of an N-dimensional C-order (row-major) array held in a
// byte buffer: Buf holds an array of Shape elements of ElemSize bytes each,
// and the block is the elements Start[i] <= x < Start[i]+Count[i] along
// each dimension i. A block with no dimensions is a single element.
type Block struct {
	Buf      []byte
	ElemSize int
	Shape    []int64
	Start    []int64
	Count    []int64
}

// Elems is the number of elements in the block (0 if any count is 0).
func (b Block) Elems() int64 {
	n := int64(1)
	for _, c := range b.Count {
		n *= c
	}
	return n
}

// Bytes is the size of the block's data in bytes.
func (b Block) Bytes() int64 { return b.Elems() * int64(b.ElemSize) }

// Validate checks that the block lies inside its buffer: matching
// dimensions, non-negative starts and counts inside Shape, a buffer large
// enough for Shape, and sizes that fit in int64.
func (b Block) Validate() error { return b.ValidateLen(int64(len(b.Buf))) }

// ValidateLen checks the block's layout as Validate does, for a buffer of n
// bytes that need not be in this process (the remote side of a single-copy
// read describes its buffer by address and length).
func (b Block) ValidateLen(n int64) error {
	nd := len(b.Shape)
	if len(b.Start) != nd || len(b.Count) != nd {
		return fmt.Errorf("transport: block has %d dims in shape, %d in start, %d in count", nd, len(b.Start), len(b.Count))
	}
	if b.ElemSize <= 0 {
		return fmt.Errorf("transport: block element size %d", b.ElemSize)
	}
	total := int64(b.ElemSize)
	for i := range nd {
		s, c, n := b.Start[i], b.Count[i], b.Shape[i]
		if n < 0 || s < 0 || c < 0 || s > n || c > n-s {
			return fmt.Errorf("transport: block [%d,+%d) outside shape %d along dim %d", s, c, n, i)
		}
		if n > 0 && total > math.MaxInt64/n {
			return fmt.Errorf("transport: block buffer shape %v overflows int64", b.Shape)
		}
		total *= n
	}
	if n < total {
		return fmt.Errorf("transport: block buffer has %d bytes, shape %v of %d-byte elements needs %d", n, b.Shape, b.ElemSize, total)
	}
	return nil
}
