package ucxtransport

import (
	"encoding/binary"
	"fmt"

	"github.com/couplet-hpc/couplet/transport/cma"
)

// peer is what a rank publishes at Join (its record): its UCX worker address,
// and what decides whether blocks between it and another rank move by
// single-copy reads.
type peer struct {
	addr   []byte // UCX worker address
	node   int64  // cma.NodeKey of its machine and pid namespace
	single bool   // it turned single-copy reads on (Options.SingleCopy)
}

// A record is a version byte, a flags byte, the node key (8 bytes, little
// endian) and the worker address. Version 2: a refused single-copy read
// answers "refused" and the block follows through UCX (refusedTag), where
// version 1 failed it; the versions do not mix.
const (
	recordVersion = 2
	recordHeader  = 10
	flagSingle    = 1
)

func (p peer) encode() []byte {
	b := []byte{recordVersion, 0}
	if p.single {
		b[1] |= flagSingle
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(p.node))
	return append(b, p.addr...)
}

// decodePeer parses a record; a rank of another couplet version publishes
// one it may not understand.
func decodePeer(b []byte) (peer, error) {
	if len(b) <= recordHeader || b[0] != recordVersion {
		return peer{}, fmt.Errorf("published a record of %d bytes that is not version %d (another couplet version?)", len(b), recordVersion)
	}
	return peer{addr: b[recordHeader:], node: int64(binary.LittleEndian.Uint64(b[2:])), single: b[1]&flagSingle != 0}, nil
}

// peerOf returns the record rank published, looked up once.
func (t *Transport) peerOf(rank int) (peer, error) {
	if p, ok := t.peers[rank]; ok {
		return p, nil
	}
	b, err := t.dir.Lookup(rank)
	if err != nil {
		return peer{}, fmt.Errorf("ucxtransport: %w", err)
	}
	p, err := decodePeer(b)
	if err != nil {
		return peer{}, fmt.Errorf("ucxtransport: %s %w", t.describe(rank), err)
	}
	t.peers[rank] = p
	return p, nil
}

// single reports whether a block of n bytes between this rank and rank
// moves by a single-copy read: both turned them on, they share a node and
// the block is large enough. Both sides decide alike from the same records.
func (t *Transport) single(rank int, n int64) (bool, error) {
	if !t.o.SingleCopy || n < cma.MinBlock {
		return false, nil
	}
	p, err := t.peerOf(rank)
	if err != nil {
		return false, err
	}
	return p.single && p.node == t.node, nil
}
