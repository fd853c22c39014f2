package main

import (
	"bytes"
	"fmt"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/transport/cma"
	"github.com/couplet-hpc/couplet/transport/ucxtransport"
)

// blockCase is one sub-block moved from a sender's array into a
// differently shaped receiver's array.
type blockCase struct {
	name           string
	es             int
	sShape, sStart []int64
	rShape, rStart []int64
	count          []int64
	early          bool // receive posted before the sends
	// twice sends a second block with the same tag right after the first
	// (other contents), so that chunks of the two must not mix.
	twice bool
}

var blockCases = []blockCase{
	{"3-D strided", 8, []int64{5, 6, 7}, []int64{1, 2, 3}, []int64{4, 8, 9}, []int64{2, 1, 0}, []int64{2, 3, 4}, true, false},
	{"3-D contiguous", 8, []int64{8, 32, 32}, []int64{2, 0, 0}, []int64{6, 32, 32}, []int64{1, 0, 0}, []int64{4, 32, 32}, false, false},
	{"3-D strided, chunked", 4, []int64{16, 64, 130}, []int64{1, 0, 1}, []int64{14, 66, 128}, []int64{0, 1, 0}, []int64{14, 64, 128}, true, false},
	{"1-D contiguous, chunked", 1, []int64{300000}, []int64{1000}, []int64{250000}, []int64{0}, []int64{250000}, false, false},
	{"0-D", 2, nil, nil, nil, nil, nil, false, false},
	// Rows of 2400 bytes: chunk boundaries fall inside rows, and a block
	// has more chunks than a pipelined receive keeps in flight.
	{"3-D strided, rows across chunks, twice", 8, []int64{3, 40, 300}, []int64{0, 0, 0}, []int64{3, 50, 310}, []int64{0, 5, 7}, []int64{3, 40, 300}, true, true},
}

const sentinel = 0xEE

func elems(shape []int64) int64 {
	n := int64(1)
	for _, s := range shape {
		n *= s
	}
	return n
}

// senderByte is byte j of the sender's array in case k.
func senderByte(src, k int, j int64) byte { return byte(j*131 + int64(src*17+k*5) + j>>8) }

func (c blockCase) sendBlock(src, k int) transport.Block {
	buf := make([]byte, elems(c.sShape)*int64(c.es))
	for j := range buf {
		buf[j] = senderByte(src, k, int64(j))
	}
	return transport.Block{Buf: buf, ElemSize: c.es, Shape: c.sShape, Start: c.sStart, Count: c.count}
}

func (c blockCase) recvBlock() transport.Block {
	buf := make([]byte, elems(c.rShape)*int64(c.es))
	for j := range buf {
		buf[j] = sentinel
	}
	return transport.Block{Buf: buf, ElemSize: c.es, Shape: c.rShape, Start: c.rStart, Count: c.count}
}

// check compares every byte of the receiver's array with what it must
// hold: the sender's element for each point of the block, the sentinel
// elsewhere. Coordinates are mapped element by element, independently of
// transport.Pack.
func (c blockCase) check(b transport.Block, src, k int) error {
	nd := len(c.rShape)
	idx := make([]int64, nd)
	for e := int64(0); e < elems(c.rShape); e++ {
		rem := e
		for d := nd - 1; d >= 0; d-- {
			idx[d] = rem % c.rShape[d]
			rem /= c.rShape[d]
		}
		inside := true
		sflat := int64(0)
		for d := range nd {
			rel := idx[d] - c.rStart[d]
			if rel < 0 || rel >= c.count[d] {
				inside = false
				break
			}
			sflat = sflat*c.sShape[d] + c.sStart[d] + rel
		}
		for x := range int64(c.es) {
			got := b.Buf[e*int64(c.es)+x]
			want := byte(sentinel)
			if inside {
				want = senderByte(src, k, sflat*int64(c.es)+x)
			}
			if got != want {
				return fmt.Errorf("%s from %d: element %v byte %d is %#x, want %#x", c.name, src, idx, x, got, want)
			}
		}
	}
	return nil
}

// blocks sends every case to every rank of the other components and to
// itself, receives theirs, and checks the receivers' arrays.
func blocks(t *ucxtransport.Transport) {
	me := t.Rank()
	peers := append(otherRanks(t), me)
	type recv struct {
		p   transport.Pending
		b   transport.Block
		src int
		k   int
		ck  int // the contents' key: k, or k+len(blockCases) for the second of twice
	}
	var recvs []*recv
	post := func(early bool) {
		for k, c := range blockCases {
			if c.early != early {
				continue
			}
			for _, src := range peers {
				for n := range copies(c) {
					r := &recv{b: c.recvBlock(), src: src, k: k, ck: k + n*len(blockCases)}
					var err error
					if r.p, err = t.RecvBlock(src, 100+k, r.b); err != nil {
						mpitest.Fatal(rank, "receive %s from %d: %v", c.name, src, err)
					}
					recvs = append(recvs, r)
				}
			}
		}
	}
	post(true)
	var sends []transport.Pending
	for k, c := range blockCases {
		for _, dst := range peers {
			for n := range copies(c) {
				p, err := t.SendBlock(dst, 100+k, c.sendBlock(me, k+n*len(blockCases)))
				if err != nil {
					mpitest.Fatal(rank, "send %s to %d: %v", c.name, dst, err)
				}
				sends = append(sends, p)
			}
		}
	}
	post(false)
	ps := make([]transport.Pending, len(recvs))
	for i, r := range recvs {
		ps[i] = r.p
	}
	awaitBlocks("blocks", ps, sends, func(i int, err error) error {
		r := recvs[i]
		if err != nil {
			return fmt.Errorf("receive %s from %d: %w", blockCases[r.k].name, r.src, err)
		}
		return blockCases[r.k].check(r.b, r.src, r.ck)
	})
}

// otherRanks lists the ranks of the components other than this one.
func otherRanks(t *ucxtransport.Transport) []int {
	var peers []int
	for c, ranks := range t.Components() {
		if c != *comp {
			peers = append(peers, ranks...)
		}
	}
	return peers
}

// awaitBlocks tests recvs and sends until all are done, failing the phase
// what with the first error; landed is told of each receive once it is
// done (with its error) and returns what is wrong with it.
func awaitBlocks(what string, recvs, sends []transport.Pending, landed func(i int, err error) error) {
	done := make([]bool, len(recvs))
	poll(what, func() (bool, error) {
		all := true
		for i, p := range recvs {
			if done[i] {
				continue
			}
			ok, err := p.Test()
			if ok || err != nil {
				done[i] = true
				if err := landed(i, err); err != nil {
					return false, err
				}
			}
			all = all && done[i]
		}
		sent, err := testAll(sends)
		return all && sent, err
	})
}

// copies is how many blocks of case c go to each peer with its tag.
func copies(c blockCase) int {
	if c.twice {
		return 2
	}
	return 1
}

// mixedBlocks are the blocks every rank sends every rank of the other
// components in turn with one tag, as (rows, row length, stride) of bytes:
// a strided block under cma.MinBlock, which with small chunks is still
// posting its chunks after the next receive starts, a contiguous one of
// at least cma.MinBlock (read by single copy when that is on), and a
// strided one again. Their messages are told apart only by order, whichever
// way each block moves.
var mixedShapes = [][3]int64{{2, 60000, 60100}, {1, cma.MinBlock + 8, cma.MinBlock + 8}, {3, 1000, 1010}}

const tagMixed = 150

// mixedBlock is block i of mixedShapes in a fresh buffer.
func mixedBlock(i int) transport.Block {
	m := mixedShapes[i]
	return transport.Block{Buf: make([]byte, m[0]*m[2]), ElemSize: 1, Shape: []int64{m[0], m[2]}, Start: []int64{0, 0}, Count: []int64{m[0], m[1]}}
}

// mixedBlocks sends and receives the mixedShapes blocks and checks every
// byte of each: the rows of the sender's pattern, the gaps left zero.
func mixedBlocks(t *ucxtransport.Transport) {
	me := t.Rank()
	peers := otherRanks(t)
	type recv struct {
		b      transport.Block
		src, i int
	}
	var recvs []recv
	var ps []transport.Pending
	for _, src := range peers {
		for i := range mixedShapes {
			r := recv{b: mixedBlock(i), src: src, i: i}
			p, err := t.RecvBlock(src, tagMixed, r.b)
			if err != nil {
				mpitest.Fatal(rank, "receive mixed block %d from %d: %v", i, src, err)
			}
			recvs, ps = append(recvs, r), append(ps, p)
		}
	}
	var sends []transport.Pending
	for _, dst := range peers {
		for i := range mixedShapes {
			b := mixedBlock(i)
			fillRows(b, payload(me, dst, i, len(b.Buf)))
			p, err := t.SendBlock(dst, tagMixed, b)
			if err != nil {
				mpitest.Fatal(rank, "send mixed block %d to %d: %v", i, dst, err)
			}
			sends = append(sends, p)
		}
	}
	awaitBlocks("mixed blocks", ps, sends, func(k int, err error) error {
		r := recvs[k]
		if err != nil {
			return fmt.Errorf("mixed block %d from %d: %w", r.i, r.src, err)
		}
		want := mixedBlock(r.i)
		fillRows(want, payload(r.src, me, r.i, len(want.Buf)))
		if !bytes.Equal(r.b.Buf, want.Buf) {
			return fmt.Errorf("mixed block %d (%d bytes) from %d: wrong bytes", r.i, r.b.Bytes(), r.src)
		}
		return nil
	})
}

// fillRows copies pattern into the rows of b's 2-D sub-block, leaving the
// rest of b.Buf as it is.
func fillRows(b transport.Block, pattern []byte) {
	for r := range b.Count[0] {
		off := r * b.Shape[1]
		copy(b.Buf[off:off+b.Count[1]], pattern[off:])
	}
}
