package ucxtransport

import (
	"fmt"

	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/transport/rendezvous"
	"github.com/couplet-hpc/couplet/ucx"
)

// Transport is the UCX transport.Transport. Like the interface says, one
// goroutine uses it at a time.
type Transport struct {
	o     Options
	ctx   *ucx.Context
	w     *ucx.Worker
	dir   *rendezvous.Directory // the layout, and where peers' addresses are
	rank  int                   // dir.Rank()
	eps   map[int]*ucx.Endpoint
	peers map[int]peer // records looked up so far
	node  int64        // cma.NodeKey of this process
	reads int64        // blocks received by single-copy reads
	// refused counts blocks received through UCX after a refused read;
	// offers and singles are, by receiver or source and tag, the latest
	// single-copy send and receive until they know how their block moves.
	refused int64
	offers  map[recvKey]*singleSend
	singles map[recvKey]*singleRecv
	inbox   map[int][]*inMsg // control messages by tag, in arrival order
	self    selfBlocks
	stage   stagePool // staging buffers of packed blocks
	// recvTail is, for each source and tag, the latest block receive that
	// has not yet posted all of its chunks.
	recvTail map[recvKey]tailRecv
	closed   bool
}

var _ transport.Transport = (*Transport)(nil)

// Rank is this process's rank across all components.
func (t *Transport) Rank() int { return t.rank }

// Size is the number of ranks across all components.
func (t *Transport) Size() int { return t.dir.Size() }

// Components returns each component's ranks, in config order.
func (t *Transport) Components() [][]int { return t.dir.Components() }

// TagUB returns the largest caller tag: the 64-bit UCX tag keeps 31 bits
// for it beside the kind bit and the sender's rank.
func (t *Transport) TagUB() int { return maxTag - 1 }

// Worker exposes the UCX worker, e.g. to sleep on its event fd.
func (t *Transport) Worker() *ucx.Worker { return t.w }

// checkPeer validates a peer rank and a tag.
func (t *Transport) checkPeer(rank, tag int) error {
	if t.closed {
		return fmt.Errorf("ucxtransport: transport closed")
	}
	if rank < 0 || rank >= t.Size() {
		return fmt.Errorf("ucxtransport: rank %d outside [0, %d)", rank, t.Size())
	}
	return checkTag(tag)
}

// describe names a rank by component for error messages.
func (t *Transport) describe(rank int) string { return t.dir.Describe(rank) }

// endpoint returns the endpoint to rank, connecting on first use with the
// address the rank published.
func (t *Transport) endpoint(rank int) (*ucx.Endpoint, error) {
	if ep := t.eps[rank]; ep != nil {
		return ep, nil
	}
	p, err := t.peerOf(rank)
	if err != nil {
		return nil, err
	}
	ep, err := t.w.Connect(p.addr)
	if err != nil {
		return nil, fmt.Errorf("ucxtransport: connect to %s: %w", t.describe(rank), err)
	}
	t.eps[rank] = ep
	return ep, nil
}
