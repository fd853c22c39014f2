package main

import (
	"flag"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/transport/ucxtransport"
)

var bigBytes = flag.Int64("big", 0, "also send one contiguous block of this many bytes from the first rank of a to the first of b")

func bigByte(i int64) byte { return byte(i ^ i>>13 ^ i>>29) }

// bigBlock moves one block larger than 4 GiB and checks it, sampling every
// 4 KiB page plus the last bytes to keep the check short.
func bigBlock(t *ucxtransport.Transport) {
	n := *bigBytes
	from, to := t.Components()[0][0], t.Components()[1][0]
	b := transport.Block{Buf: make([]byte, n), ElemSize: 1, Shape: []int64{n}, Start: []int64{0}, Count: []int64{n}}
	var p transport.Pending
	var err error
	switch t.Rank() {
	case from:
		for i := range n {
			b.Buf[i] = bigByte(i)
		}
		p, err = t.SendBlock(to, 300, b)
	case to:
		p, err = t.RecvBlock(from, 300, b)
	default:
		return
	}
	if err != nil {
		mpitest.Fatal(rank, "big block: %v", err)
	}
	poll("big block", func() (bool, error) { return p.Test() })
	if t.Rank() == to {
		for i := int64(0); i < n; i += 4093 {
			if b.Buf[i] != bigByte(i) {
				mpitest.Fatal(rank, "big block byte %d is %#x, want %#x", i, b.Buf[i], bigByte(i))
			}
		}
		for i := n - 64; i < n; i++ {
			if b.Buf[i] != bigByte(i) {
				mpitest.Fatal(rank, "big block byte %d is %#x, want %#x", i, b.Buf[i], bigByte(i))
			}
		}
	}
}
