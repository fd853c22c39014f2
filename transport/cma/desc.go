package cma

import (
	"fmt"
	"os"
	"unsafe"

	"github.com/couplet-hpc/couplet/transport"
)

// Desc describes a block in its owner's memory: what a reader needs to
// copy it out.
type Desc struct {
	Pid      int    // the owner's process id
	Addr     uint64 // address of the owner's Buf[0]
	Len      int64  // length of the owner's Buf in bytes
	ElemSize int
	Shape    []int64
	Start    []int64
	Count    []int64
}

// descMagic starts every encoded descriptor, so that a stray message is
// told from a descriptor.
const descMagic = 0x636d6131 // "cma1"

// Describe returns the descriptor of b, a block of this process. b.Buf must
// stay alive and unchanged until the reader is done with it.
func Describe(b transport.Block) Desc {
	d := Desc{Pid: os.Getpid(), Len: int64(len(b.Buf)), ElemSize: b.ElemSize, Shape: b.Shape, Start: b.Start, Count: b.Count}
	if len(b.Buf) > 0 {
		d.Addr = uint64(uintptr(unsafe.Pointer(&b.Buf[0])))
	}
	return d
}

// block is the descriptor's layout as a Block without a buffer.
func (d Desc) block() transport.Block {
	return transport.Block{ElemSize: d.ElemSize, Shape: d.Shape, Start: d.Start, Count: d.Count}
}

// Bytes is the size of the described sub-block.
func (d Desc) Bytes() int64 { return d.block().Bytes() }

// Encode returns the descriptor as int64 words: magic, pid, address,
// length, element size, rank, then shape, start and count.
func (d Desc) Encode() []int64 {
	w := []int64{descMagic, int64(d.Pid), int64(d.Addr), d.Len, int64(d.ElemSize), int64(len(d.Shape))}
	w = append(w, d.Shape...)
	w = append(w, d.Start...)
	return append(w, d.Count...)
}

// MaxWords is the length of the longest encoded descriptor of a block of at
// most nd dimensions: the receive buffer a reader posts.
func MaxWords(nd int) int { return 6 + 3*nd }

// Decode parses an encoded descriptor and checks that its layout is sound.
func Decode(w []int64) (Desc, error) {
	if len(w) < 6 || w[0] != descMagic {
		return Desc{}, fmt.Errorf("cma: not a block descriptor (%d words)", len(w))
	}
	nd := w[5]
	if nd < 0 || int64(len(w)) != 6+3*nd {
		return Desc{}, fmt.Errorf("cma: descriptor of %d words says %d dimensions", len(w), nd)
	}
	d := Desc{Pid: int(w[1]), Addr: uint64(w[2]), Len: w[3], ElemSize: int(w[4]),
		Shape: w[6 : 6+nd], Start: w[6+nd : 6+2*nd], Count: w[6+2*nd : 6+3*nd]}
	if d.Pid <= 0 || d.Len < 0 {
		return Desc{}, fmt.Errorf("cma: descriptor names pid %d, %d bytes", d.Pid, d.Len)
	}
	if err := d.block().ValidateLen(d.Len); err != nil {
		return Desc{}, fmt.Errorf("cma: descriptor: %w", err)
	}
	return d, nil
}
