package cma

import (
	"fmt"
	"math"
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
	// Region is the inode of the owner's memory file when Buf lies in
	// memory from Alloc (0 otherwise), Fd the owner's descriptor of it and
	// Off the offset of Buf[0] in it: the reader then maps the file and
	// copies with plain loads and stores.
	Region uint64
	Fd     int
	Off    int64
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
		if r, ok := regionOf(uintptr(d.Addr), d.Len); ok {
			d.Region, d.Fd, d.Off = r.ino, r.fd, int64(uintptr(d.Addr)-r.addr)
		}
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
// length, element size, rank, then shape, start and count, then region,
// fd and offset.
func (d Desc) Encode() []int64 {
	w := []int64{descMagic, int64(d.Pid), int64(d.Addr), d.Len, int64(d.ElemSize), int64(len(d.Shape))}
	w = append(w, d.Shape...)
	w = append(w, d.Start...)
	w = append(w, d.Count...)
	return append(w, int64(d.Region), int64(d.Fd), d.Off)
}

// tailWords is the number of words after the layout: region, fd, offset.
const tailWords = 3

// MaxWords is the length of the longest encoded descriptor of a block of at
// most nd dimensions: the receive buffer a reader posts.
func MaxWords(nd int) int { return 6 + 3*nd + tailWords }

// Decode parses an encoded descriptor and checks that its layout is sound.
func Decode(w []int64) (Desc, error) {
	if len(w) < 6+tailWords || w[0] != descMagic {
		return Desc{}, fmt.Errorf("cma: not a block descriptor (%d words)", len(w))
	}
	nd := w[5]
	if nd < 0 || nd > int64(len(w)) || int64(len(w)) != 6+3*nd+tailWords {
		return Desc{}, fmt.Errorf("cma: descriptor of %d words says %d dimensions", len(w), nd)
	}
	t := w[6+3*nd:]
	d := Desc{Pid: int(w[1]), Addr: uint64(w[2]), Len: w[3], ElemSize: int(w[4]),
		Shape: w[6 : 6+nd], Start: w[6+nd : 6+2*nd], Count: w[6+2*nd : 6+3*nd],
		Region: uint64(t[0]), Fd: int(t[1]), Off: t[2]}
	if d.Pid <= 0 || d.Len < 0 {
		return Desc{}, fmt.Errorf("cma: descriptor names pid %d, %d bytes", d.Pid, d.Len)
	}
	if t[0] < 0 || t[1] < 0 || t[2] < 0 || d.Off > math.MaxInt64-d.Len {
		return Desc{}, fmt.Errorf("cma: descriptor names region %d, fd %d, offset %d", t[0], t[1], t[2])
	}
	if err := d.block().ValidateLen(d.Len); err != nil {
		return Desc{}, fmt.Errorf("cma: descriptor: %w", err)
	}
	return d, nil
}
