package ucxtransport

import (
	"context"
	"fmt"

	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/transport/cma"
	"github.com/couplet-hpc/couplet/transport/rendezvous"
	"github.com/couplet-hpc/couplet/ucx"
)

// init registers the transport as "ucx": it needs the KVS for the rendezvous.
func init() {
	transport.Register("ucx", func(ctx context.Context, s transport.Setup) (transport.Transport, error) {
		if s.KV == nil {
			return nil, fmt.Errorf("ucxtransport: ranks meet through the KVS, and none is configured (set kvs)")
		}
		return Join(ctx, Options{KV: s.KV, Namespace: s.Namespace, Components: s.Components,
			Comp: s.Comp, Comm: s.Comm, Timeout: s.Timeout})
	})
}

// Join opens UCX, publishes this rank's record (its worker address, node
// and whether it takes single-copy reads) in the KVS (package rendezvous)
// and waits for every component to register. It is collective over o.Comm:
// every rank of the component returns an error if any of them fails. Under
// launch mode mpmd the components could share a world, but the addresses
// still meet in the KVS, so one path serves both launch modes.
func Join(ctx context.Context, o Options) (*Transport, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	t := &Transport{o: o, eps: map[int]*ucx.Endpoint{}, peers: map[int]peer{}, node: cma.NodeKey(),
		inbox: map[int][]*inMsg{}, recvTail: map[recvKey]tailRecv{},
		offers: map[recvKey]*singleSend{}, singles: map[recvKey]*singleRecv{}}
	t.self.init()
	addr, err := t.open()
	rec := peer{addr: addr, node: t.node, single: o.SingleCopy}.encode()
	dir, err := rendezvous.Join(ctx, rendezvous.Options{KV: o.KV, Namespace: o.Namespace,
		Components: o.Components, Comp: o.Comp, Comm: o.Comm, Timeout: o.Timeout}, rec, err)
	if err != nil {
		t.release()
		return nil, err
	}
	t.dir, t.rank = dir, dir.Rank()
	if dir.Size() > maxRanks {
		t.release()
		return nil, fmt.Errorf("ucxtransport: %d ranks in all: at most 2^30 fit in a tag", dir.Size())
	}
	return t, nil
}

// open creates the UCX context and worker and returns the worker address.
func (t *Transport) open() ([]byte, error) {
	var err error
	if t.ctx, err = ucx.NewContext(t.o.UCX); err != nil {
		return nil, fmt.Errorf("ucxtransport: %w", err)
	}
	if t.w, err = t.ctx.NewWorker(ucx.ThreadSerialized); err != nil {
		return nil, fmt.Errorf("ucxtransport: %w", err)
	}
	// A rank waits for its transfers on the goroutine that drives them, with nothing
	// else of its own to run meanwhile: its thread may as well block.
	t.w.SleepInThread(true)
	addr, err := t.w.Address()
	if err != nil {
		return nil, fmt.Errorf("ucxtransport: %w", err)
	}
	return addr, nil
}
