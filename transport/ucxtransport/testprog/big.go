package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/transport/ucxtransport"
)

var bigBytes = flag.Int64("big", 0, "also send one contiguous block of this many bytes from the first rank of a to the first of b")

// Every 8-byte word of the big block holds its own offset, so a chunk
// landing in the wrong place shows.
func word(b []byte, i int64) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

// bigBlock moves one block larger than 4 GiB and checks it, checking every
// word.
func bigBlock(t *ucxtransport.Transport) {
	n := *bigBytes
	from, to := t.Components()[0][0], t.Components()[1][0]
	b := transport.Block{Buf: make([]byte, n), ElemSize: 1, Shape: []int64{n}, Start: []int64{0}, Count: []int64{n}}
	var p transport.Pending
	var err error
	switch t.Rank() {
	case from:
		for i := int64(0); i+8 <= n; i += 8 {
			binary.LittleEndian.PutUint64(b.Buf[i:], uint64(i))
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
	start := time.Now()
	poll("big block", func() (bool, error) { return p.Test() })
	fmt.Printf("rank %d: %d-byte block moved in %v\n", t.Rank(), n, time.Since(start).Round(time.Millisecond))
	if t.Rank() == to {
		for i := int64(0); i+8 <= n; i += 8 {
			if w := word(b.Buf, i); w != uint64(i) {
				mpitest.Fatal(rank, "big block word at %d is %#x, want %#x", i, w, i)
			}
		}
	}
}
