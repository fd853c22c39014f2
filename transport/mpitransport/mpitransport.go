// Package mpitransport is the transport for components started by one
// mpirun: ranks are MPI_COMM_WORLD ranks, control messages are MPI
// point-to-point messages on a private duplicate of the world, and blocks
// move with subarray datatypes straight from and into the caller's buffers.
//
// Between two ranks of one node that turn it on (SingleCopyEnv), a block of
// at least MinSingleCopy bytes moves with one copy instead of MPI's two
// (into shared memory and out):
// the sender sends a descriptor of its block (package cma), the receiver
// reads the block straight from the sender's memory into its own with
// process_vm_readv (or, for memory from cma.Alloc, from a mapping of it)
// and answers, and the sender then releases its buffer.
// Join checks with a probe read which pairs the kernel lets do this; the
// others, and any read the kernel refuses later, use the MPI path. A
// receiver reads large blocks in pieces on several threads at once.
package mpitransport

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/transport/cma"
)

// Transport is the MPI implementation of transport.Transport.
type Transport struct {
	world   mpi.Comm
	rank    int // in world, kept: the engine asks at every control message
	comps   [][]int
	tagUB   int
	timeout time.Duration
	sc      singleCopy
}

var _ transport.Transport = (*Transport)(nil)

// init registers the transport as "mpi". It needs the components to share
// MPI_COMM_WORLD, so it refuses launch mode separate.
func init() {
	transport.Register("mpi", func(_ context.Context, s transport.Setup) (transport.Transport, error) {
		if s.Launch != transport.LaunchMPMD {
			return nil, fmt.Errorf("mpitransport: components launched %q share no MPI world: use transport = ucx, or launch them in one mpirun (launch = mpmd)", s.Launch)
		}
		return Join(s.Comp, len(s.Components), s.Timeout)
	})
}

// Join duplicates MPI_COMM_WORLD and learns which world ranks belong to each
// of ncomp components; comp is this process's component. It is collective
// over the world, and every component must have at least one rank. Close
// waits at most timeout for the other ranks.
func Join(comp, ncomp int, timeout time.Duration) (*Transport, error) {
	enabled, err := cma.Enabled()
	if err != nil {
		return nil, fmt.Errorf("mpitransport: %w", err)
	}
	world, err := mpi.World().Dup()
	if err != nil {
		return nil, err
	}
	if err := world.SetErrorsReturn(); err != nil {
		return nil, err
	}
	all := make([]int64, world.Size())
	if err := mpi.Allgather(world, []int64{int64(comp)}, all); err != nil {
		return nil, err
	}
	ub, err := mpi.TagUB()
	if err != nil {
		return nil, err
	}
	t := &Transport{world: world, rank: world.Rank(), comps: make([][]int, ncomp), tagUB: ub, timeout: timeout}
	for w, c := range all {
		if c < 0 || int(c) >= ncomp {
			return nil, fmt.Errorf("mpitransport: world rank %d names component %d of %d", w, c, ncomp)
		}
		t.comps[c] = append(t.comps[c], w)
	}
	for c, rs := range t.comps {
		if len(rs) == 0 {
			return nil, fmt.Errorf("mpitransport: component %d has no ranks in this mpirun (world size %d)", c, world.Size())
		}
	}
	if err := t.joinSingleCopy(enabled); err != nil {
		return nil, err
	}
	return t, nil
}

// Rank returns this process's world rank.
func (t *Transport) Rank() int { return t.rank }

// Size returns the world size.
func (t *Transport) Size() int { return t.world.Size() }

// Components returns each component's world ranks.
func (t *Transport) Components() [][]int { return t.comps }

// TagUB returns MPI_TAG_UB, which the PML decides (2^23-1 under Open MPI's
// UCX PML, 2^31-1 under ob1).
func (t *Transport) TagUB() int { return t.tagUB }

// pending is a point-to-point operation and the datatype it owns.
type pending struct {
	req *mpi.Request
	dt  *mpi.Datatype
}

// Test completes the operation if it has finished and frees its datatype.
func (p *pending) Test() (bool, error) {
	done, _, err := p.req.Test()
	if done {
		p.free()
	}
	return done, err
}

// Cancel abandons the operation.
func (p *pending) Cancel() error {
	err := p.req.Cancel()
	p.free()
	return err
}

func (p *pending) free() {
	if p.dt != nil {
		p.dt.Free()
		p.dt = nil
	}
}

// Send starts an MPI send of data.
func (t *Transport) Send(to, tag int, data []byte) (transport.Pending, error) {
	q, err := mpi.Isend(t.world, data, to, tag)
	if err != nil {
		return nil, err
	}
	return &pending{req: q}, nil
}

// TryRecv receives a waiting message with tag from any source. It never
// gives the CPU away inside Open MPI (see mpi.Poll): its callers poll and
// sleep.
func (t *Transport) TryRecv(tag int) (transport.Message, bool, error) {
	st, ok, err := mpi.Poll(t.world, mpi.AnySource, tag)
	if err != nil || !ok {
		return transport.Message{}, false, err
	}
	buf := make([]byte, st.Count)
	if _, err := mpi.Recv(t.world, buf, st.Source, tag); err != nil {
		return transport.Message{}, false, err
	}
	return transport.Message{Source: st.Source, Tag: tag, Data: buf}, true, nil
}

// subarray describes b's sub-block; a 0-D block is a one-element array.
func subarray(b transport.Block) (*mpi.Datatype, error) {
	if len(b.Shape) == 0 {
		return mpi.NewSubarray(b.ElemSize, []int64{1}, []int64{1}, []int64{0})
	}
	return mpi.NewSubarray(b.ElemSize, b.Shape, b.Count, b.Start)
}

// SendBlock sends b's sub-block in place: by a single-copy read of the
// receiver on this node, else as plain bytes when it is one run of b.Buf,
// else with a subarray datatype.
func (t *Transport) SendBlock(to, tag int, b transport.Block) (transport.Pending, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	if single(t.sc.by, to, b) {
		return t.sendSingle(to, tag, b)
	}
	return t.sendTwoCopy(to, tag, b)
}

// RecvBlock receives a sub-block in place, as SendBlock sends it.
func (t *Transport) RecvBlock(from, tag int, b transport.Block) (transport.Pending, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	if single(t.sc.from, from, b) {
		return t.recvSingle(from, tag, b)
	}
	return t.recvTwoCopy(from, tag, b)
}

// sendTwoCopy sends b's sub-block by MPI.
func (t *Transport) sendTwoCopy(to, tag int, b transport.Block) (transport.Pending, error) {
	return startBlock(b,
		func(run []byte) (*mpi.Request, error) { return mpi.Isend(t.world, run, to, tag) },
		func(dt *mpi.Datatype) (*mpi.Request, error) { return mpi.IsendType(t.world, b.Buf, dt, to, tag) })
}

// recvTwoCopy receives a sub-block by MPI.
func (t *Transport) recvTwoCopy(from, tag int, b transport.Block) (transport.Pending, error) {
	return startBlock(b,
		func(run []byte) (*mpi.Request, error) { return mpi.Irecv(t.world, run, from, tag) },
		func(dt *mpi.Datatype) (*mpi.Request, error) { return mpi.IrecvType(t.world, b.Buf, dt, from, tag) })
}

// startBlock starts a block operation: raw on the block's bytes when they
// are one run, which builds no datatype, else typed with a subarray type
// that the pending operation owns. Both sides move the same byte sequence,
// so a raw send matches a typed receive and the other way round.
func startBlock(b transport.Block, raw func([]byte) (*mpi.Request, error), typed func(*mpi.Datatype) (*mpi.Request, error)) (transport.Pending, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	if run, ok := transport.ContiguousBytes(b); ok && len(b.Shape) > 0 {
		q, err := raw(run)
		if err != nil {
			return nil, err
		}
		return &pending{req: q}, nil
	}
	dt, err := subarray(b)
	if err != nil {
		return nil, err
	}
	q, err := typed(dt)
	if err != nil {
		dt.Free()
		return nil, err
	}
	return &pending{req: q, dt: dt}, nil
}

// Close waits for every rank of the world, then frees the duplicate. A rank
// that died never reaches the barrier: after the timeout Close gives up with
// an error instead of hanging, and leaves the duplicate to the dying job.
func (t *Transport) Close() error {
	q, err := mpi.Ibarrier(t.world)
	if err != nil {
		return err
	}
	if _, err := q.WaitTimeout(t.timeout); err != nil {
		return fmt.Errorf("mpitransport: not every rank reached the final barrier within %v (a peer died?): %w", t.timeout, err)
	}
	// The writers' memory this rank mapped for single-copy reads is no
	// longer needed once every rank is past the barrier.
	cma.Detach()
	return errors.Join(t.sc.desc.Free(), t.sc.ack.Free(), t.world.Free())
}

var _ transport.Watcher = (*Transport)(nil)

// Watch watches for control messages with tag (on the transport's duplicate
// of the world) from a thread of its own (mpi.Watcher); it needs
// MPI_THREAD_MULTIPLE.
func (t *Transport) Watch(tag int, min, max time.Duration) (transport.Watch, error) {
	if mpi.QueryThread() != mpi.ThreadMultiple {
		return nil, errors.New("mpitransport: Watch needs MPI_THREAD_MULTIPLE")
	}
	return mpi.NewWatcher(t.world, tag, min, max)
}
