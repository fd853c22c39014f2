package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/ucx"
)

// The ucx DTL, DYAD's UCX data path without its defects. The consumer's agent registers a
// bounded window of a few slots and sends the producer's agent, over the authenticated TCP
// connection, a fetch carrying its worker address, the window address and packed key. The
// producer reads the file a chunk at a time into UCX memory, puts the chunk into the next
// slot, flushes, and then says over TCP "Len bytes at Off are ready"; the consumer writes
// the slot to its temporary file and acknowledges, which frees the slot for reuse. Offsets
// are int64 throughout, so no 4 GiB limit; waits sleep on the TCP connection or the worker's
// event fd, never on a polled size sentinel.

// Defaults of the window a consumer registers. At 16 MiB, windows of 8 slots of 4 MiB,
// 8 of 2 MiB or 16 of 1 MiB staged within the spread of this one (8.4-9.6 ms against
// 8.4-9.5, BenchmarkStagingUCX): the consumer's write and hash set the pace, not the
// producer's waits for a free slot.
const (
	defaultUCXSlot  = 4 << 20
	defaultUCXSlots = 4
	// maxWindows bounds the windows registered at once; further stagings wait for one.
	maxWindows = 8
	// maxEndpoints bounds the producer's endpoint cache.
	maxEndpoints = 256
	// maxKeysPerEndpoint bounds the remote keys kept per endpoint: a consumer reuses at
	// most maxWindows windows, so twice that leaves room for a restarted one.
	maxKeysPerEndpoint = 2 * maxWindows
	// epCloseTimeout bounds closing one endpoint when the agent stops.
	epCloseTimeout = 500 * time.Millisecond
)

// ucxState is the agent's lazily created UCX node.
type ucxState struct {
	mu sync.Mutex
	n  *ucxNode
}

// ucxNode is one UCX context and worker per agent, shared by its consumer side (windows)
// and its producer side (endpoints to consumers' workers and source buffers).
type ucxNode struct {
	ctx  *ucx.Context
	w    *ucx.Worker
	addr []byte
	// slot and slots shape the windows; slot is also the size of a source buffer.
	slot, slots int64
	sem         chan struct{} // one token per window in use

	mu      sync.Mutex
	closed  bool
	eps     map[string]*ucx.Endpoint
	retired []*ucx.Endpoint // failed or evicted, closed with the node
	wins    []*window       // idle windows
	srcs    []*ucx.Memory   // idle source buffers
	// keys caches consumers' window keys unpacked on each endpoint, by packed key.
	// Unpacking a key maps the window afresh over shared memory, and the first touch of
	// every page of a fresh mapping faults (about 100 ms per 4 MiB slot on this machine,
	// more than the copy): consumers reuse their windows, so a cached key keeps the
	// mapping warm from one fetch to the next.
	keys     map[*ucx.Endpoint]map[string]*remoteKey
	keySeq   uint64
	progN    int
	progStop func()
}

// remoteKey is a cached unpacked key of a consumer's window.
type remoteKey struct {
	rk    *ucx.RemoteKey
	users int    // transfers using it now
	used  uint64 // keySeq at the last use, for eviction
	dead  bool   // out of the cache: destroyed by its last user
}

// window is a registered consumer window and its packed remote key.
type window struct {
	mem  *ucx.Memory
	rkey []byte
}

// ucxTLS is the UCX_TLS the DTL runs with: the option, else the environment.
func ucxTLS(o *Options) string {
	if o.UCXTLS != "" {
		return o.UCXTLS
	}
	return os.Getenv("UCX_TLS")
}

// ucxErrMode picks peer failure detection when every transport supports it (tcp, plus
// the loopback self). UCX 1.13's shared memory transports do not, and with ErrModePeer
// they would be unreachable; there the TCP control connection reports a dead peer.
func ucxErrMode(tls string) ucx.ErrMode {
	tcp := false
	for _, t := range strings.Split(tls, ",") {
		switch strings.TrimSpace(t) {
		case "tcp":
			tcp = true
		case "self":
		default:
			return ucx.ErrModeNone
		}
	}
	if tcp {
		return ucx.ErrModePeer
	}
	return ucx.ErrModeNone
}

// ucxNode returns the agent's UCX node, creating it on first use.
func (a *Agent) ucxNode() (*ucxNode, error) {
	a.ucx.mu.Lock()
	defer a.ucx.mu.Unlock()
	if a.ucx.n != nil {
		return a.ucx.n, nil
	}
	if a.ctx.Err() != nil {
		return nil, errors.New("agent is closing")
	}
	tls := ucxTLS(&a.opts)
	// Over tcp, the transport's segments and receive buffers that array coupling
	// runs with too, and a send buffer that takes a whole slot: a put of 64 MiB
	// moves twice as fast as with UCX's defaults.
	uo := &ucx.Options{ErrMode: ucxErrMode(tls), Env: ucx.TCPDefaults(tls, ucx.SendBufferStream, os.LookupEnv)}
	if a.opts.UCXTLS != "" {
		uo.Config = map[string]string{"TLS": a.opts.UCXTLS}
	}
	c, err := ucx.NewContext(uo)
	if err != nil {
		return nil, fmt.Errorf("ucx DTL (UCX_TLS=%q): %w", tls, err)
	}
	w, err := c.NewWorker(ucx.ThreadSerialized)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("ucx DTL: %w", err)
	}
	addr, err := w.Address()
	if err != nil {
		w.Close()
		c.Close()
		return nil, fmt.Errorf("ucx DTL: %w", err)
	}
	a.ucx.n = &ucxNode{ctx: c, w: w, addr: addr, slot: int64(a.opts.UCXSlot), slots: int64(a.opts.UCXSlots),
		sem: make(chan struct{}, maxWindows), eps: map[string]*ucx.Endpoint{}, keys: map[*ucx.Endpoint]map[string]*remoteKey{}}
	a.info.Printf("ucx DTL ready (UCX_TLS=%q, windows of %d x %d bytes)", tls, a.opts.UCXSlots, a.opts.UCXSlot)
	return a.ucx.n, nil
}

// closeUCX releases the UCX node once no transfer uses it (after the agent's goroutines end).
func (a *Agent) closeUCX() {
	a.ucx.mu.Lock()
	n := a.ucx.n
	a.ucx.n = nil
	a.ucx.mu.Unlock()
	if n != nil {
		n.close()
	}
}

func (n *ucxNode) close() {
	n.mu.Lock()
	n.closed = true
	eps := n.retired
	for _, ep := range n.eps {
		eps = append(eps, ep)
	}
	wins, srcs := n.wins, n.srcs
	for ep := range n.keys {
		n.dropKeys(ep)
	}
	n.eps, n.retired, n.wins, n.srcs = nil, nil, nil, nil
	n.mu.Unlock()
	// Close endpoints concurrently: each may wait out its timeout on a vanished peer.
	var wg sync.WaitGroup
	for _, ep := range eps {
		wg.Go(func() { ep.Close(epCloseTimeout) })
	}
	wg.Wait()
	for _, w := range wins {
		w.mem.Unmap()
	}
	for _, m := range srcs {
		m.Unmap()
	}
	n.w.Close()
	n.ctx.Close()
}

// progress keeps the worker progressing while at least one window is being filled: over
// tcp, a put lands only when the target's worker progresses. The goroutine sleeps on the
// worker's event fd. The returned function releases the hold.
func (n *ucxNode) progress() (release func()) {
	n.mu.Lock()
	n.progN++
	if n.progN == 1 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			n.w.Wait(ctx, func() bool { return false })
		}()
		n.progStop = func() { cancel(); <-done }
	}
	n.mu.Unlock()
	return sync.OnceFunc(func() {
		n.mu.Lock()
		n.progN--
		var stop func()
		if n.progN == 0 {
			stop, n.progStop = n.progStop, nil
		}
		n.mu.Unlock()
		if stop != nil {
			stop()
		}
	})
}

// getWindow takes an idle window or registers a new one, waiting (bounded by ctx) while
// maxWindows are in use.
func (n *ucxNode) getWindow(ctx context.Context) (*window, error) {
	select {
	case n.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("no ucx window free (%d in use): %w", maxWindows, ctx.Err())
	}
	n.mu.Lock()
	if k := len(n.wins); k > 0 {
		w := n.wins[k-1]
		n.wins = n.wins[:k-1]
		n.mu.Unlock()
		return w, nil
	}
	n.mu.Unlock()
	mem, err := n.ctx.MemAlloc(int(n.slot * n.slots))
	if err != nil {
		<-n.sem
		return nil, err
	}
	rkey, err := mem.PackRkey()
	if err != nil {
		mem.Unmap()
		<-n.sem
		return nil, err
	}
	return &window{mem: mem, rkey: rkey}, nil
}

// putWindow returns a window. One whose transfer failed is unregistered instead of being
// reused: a producer still running could otherwise put stale data into the next transfer.
func (n *ucxNode) putWindow(w *window, reuse bool) {
	n.mu.Lock()
	if reuse && !n.closed {
		n.wins = append(n.wins, w)
		w = nil
	}
	n.mu.Unlock()
	if w != nil {
		w.mem.Unmap()
	}
	<-n.sem
}

// getSrc takes an idle source buffer or allocates one of slot bytes. UCX-allocated memory
// is the fastest source for a put.
func (n *ucxNode) getSrc() (*ucx.Memory, error) {
	n.mu.Lock()
	if k := len(n.srcs); k > 0 {
		m := n.srcs[k-1]
		n.srcs = n.srcs[:k-1]
		n.mu.Unlock()
		return m, nil
	}
	n.mu.Unlock()
	return n.ctx.MemAlloc(int(n.slot))
}

func (n *ucxNode) putSrc(m *ucx.Memory) {
	n.mu.Lock()
	if !n.closed && len(n.srcs) < maxWindows {
		n.srcs = append(n.srcs, m)
		m = nil
	}
	n.mu.Unlock()
	if m != nil {
		m.Unmap()
	}
}

// endpoint returns the cached endpoint to the worker at addr, connecting if there is none
// or the cached one has failed.
func (n *ucxNode) endpoint(addr []byte) (*ucx.Endpoint, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, ucx.ErrClosed
	}
	if ep, ok := n.eps[string(addr)]; ok {
		if ep.Err() == nil {
			return ep, nil
		}
		n.retire(string(addr), ep)
	}
	if len(n.eps) >= maxEndpoints {
		for k, ep := range n.eps { // evict one at random
			n.retire(k, ep)
			break
		}
	}
	ep, err := n.w.Connect(addr)
	if err != nil {
		return nil, err
	}
	n.eps[string(addr)] = ep
	return ep, nil
}

// dropEndpoint forgets ep after a failure, so that the next fetch reconnects. It is closed
// with the node rather than now, as a concurrent transfer may still hold it.
func (n *ucxNode) dropEndpoint(addr []byte, ep *ucx.Endpoint) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.eps[string(addr)] == ep {
		n.retire(string(addr), ep)
	}
}

// retire moves an endpoint out of the cache, with its keys; the caller holds mu.
func (n *ucxNode) retire(key string, ep *ucx.Endpoint) {
	delete(n.eps, key)
	n.dropKeys(ep)
	n.retired = append(n.retired, ep)
}

// remoteKey returns the cached key packed on ep, unpacking it on first use. The caller
// hands it back with releaseKey.
func (n *ucxNode) remoteKey(ep *ucx.Endpoint, packed []byte) (*remoteKey, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, ucx.ErrClosed
	}
	n.keySeq++
	m := n.keys[ep]
	if k, ok := m[string(packed)]; ok {
		k.users++
		k.used = n.keySeq
		return k, nil
	}
	rk, err := ep.UnpackRkey(packed)
	if err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]*remoteKey{}
		n.keys[ep] = m
	}
	if len(m) >= maxKeysPerEndpoint {
		// Evict the least recently used key that no transfer holds.
		var old string
		for p, k := range m {
			if k.users == 0 && (old == "" || k.used < m[old].used) {
				old = p
			}
		}
		if old != "" {
			m[old].rk.Destroy()
			delete(m, old)
		}
	}
	k := &remoteKey{rk: rk, users: 1, used: n.keySeq}
	m[string(packed)] = k
	return k, nil
}

// releaseKey ends a transfer's use of k; keep false drops it from the cache (its
// transfer failed, so the window may be gone).
func (n *ucxNode) releaseKey(ep *ucx.Endpoint, packed []byte, k *remoteKey, keep bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	k.users--
	if !keep && !k.dead {
		if m := n.keys[ep]; m[string(packed)] == k {
			delete(m, string(packed))
		}
		k.dead = true
	}
	if k.dead && k.users == 0 {
		k.rk.Destroy()
	}
}

// dropKeys forgets ep's keys, destroying those no transfer holds; the caller holds mu.
func (n *ucxNode) dropKeys(ep *ucx.Endpoint) {
	for _, k := range n.keys[ep] {
		k.dead = true
		if k.users == 0 {
			k.rk.Destroy()
		}
	}
	delete(n.keys, ep)
}

// init registers the UCX layer: RMA put into a window the fetching agent registered.
func init() {
	registerDTL(dyad.DTLUCX, dtlDriver{
		start: func(a *Agent) error { _, err := a.ucxNode(); return err },
		fetch: (*Agent).fetchUCX,
	})
}
