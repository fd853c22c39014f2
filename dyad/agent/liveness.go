package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/couplet-hpc/couplet/dyad/wire"
	"github.com/couplet-hpc/couplet/kvs"
)

// ownersRoot is the prefix of the agents' liveness keys. Each agent keeps
// ownersRoot + its escaped address + "/live" under a lease of its own, so the key
// disappears within the lease's TTL once the agent dies. Records name their owner by
// that address.
const ownersRoot = "/couplet/owners/"

func ownerKey(addr string) string { return ownersRoot + kvs.EscapeSegment(addr) + "/live" }

// ownerInfo is the value of a liveness key.
type ownerInfo struct {
	Addr string `json:"addr"`
	Node string `json:"node"`
	PID  int    `json:"pid"`
	// Start tells an agent restarted at the same address from the one before it.
	Start int64 `json:"start"`
	TTLMs int64 `json:"ttl_ms"`
}

// ErrOwnerGone is wrapped when the agent that owns a file has died: its liveness lease
// ended, so nothing can be fetched from it until it restarts on its data.
var ErrOwnerGone = errors.New("is gone")

func ownerGone(m *wire.Meta) error {
	return fmt.Errorf("%q version %d: owner agent %s on node %s %w (its liveness lease in the KVS ended); "+
		"the file can be consumed again once that agent restarts on its data", m.Path, m.Version, m.Owner, m.Node, ErrOwnerGone)
}

// liveness is the agent's side of owner liveness: its current lease, and the records it
// owns, which it puts back if the KVS lost them while it could not reach it.
type liveness struct {
	mu    sync.Mutex
	lease kvs.Lease
	start int64
	held  map[string]*wire.Meta // full KVS key -> record this agent published
}

func (l *liveness) current() kvs.Lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lease
}

func (l *liveness) hold(full string, m *wire.Meta) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held == nil {
		l.held = map[string]*wire.Meta{}
	}
	l.held[full] = m
}

func (l *liveness) records() map[string]*wire.Meta {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]*wire.Meta, len(l.held))
	for k, m := range l.held {
		out[k] = m
	}
	return out
}

// kvsCtx bounds one KVS operation done for a client whose own deadline is budget
// (0: none): it ends before the client gives up, so the client hears why.
func (a *Agent) kvsCtx(parent context.Context, budget time.Duration) (context.Context, context.CancelFunc) {
	d := a.opts.KVSTimeout
	if budget > 0 {
		d = min(d, budget*9/10)
	}
	return context.WithTimeout(parent, d)
}

// register grants a new lease and puts the agent's liveness key under it. A store
// without leases (none today) leaves records untied to liveness.
func (a *Agent) register() error {
	l, ok := a.kv.(kvs.Leaser)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(a.ctx, a.opts.KVSTimeout)
	defer cancel()
	lease, err := l.Grant(ctx, a.opts.LeaseTTL)
	if err != nil {
		return fmt.Errorf("agent: liveness lease: %w", err)
	}
	a.live.mu.Lock()
	if a.live.start == 0 {
		a.live.start = time.Now().UnixNano()
	}
	info := ownerInfo{Addr: a.opts.Advertise, Node: a.opts.Node, PID: os.Getpid(), Start: a.live.start, TTLMs: lease.TTL().Milliseconds()}
	a.live.mu.Unlock()
	v, _ := json.Marshal(info)
	if _, err := lease.Put(ctx, ownerKey(a.opts.Advertise), v); err != nil {
		rctx, rcancel := context.WithTimeout(context.Background(), time.Second)
		lease.Revoke(rctx)
		rcancel()
		return fmt.Errorf("agent: liveness key: %w", err)
	}
	a.live.mu.Lock()
	a.live.lease = lease
	a.live.mu.Unlock()
	a.ctr.registrations.Add(1)
	return nil
}

// keepRegistered re-registers whenever the lease is lost (the KVS did not hear from
// the agent within the TTL, or lost its data): a new lease, the liveness key, and the
// records this agent owns that the KVS no longer holds.
func (a *Agent) keepRegistered() {
	defer a.wg.Done()
	for {
		lease := a.live.current()
		if lease == nil {
			return
		}
		select {
		case <-lease.Lost():
		case <-a.ctx.Done():
			return
		}
		a.ctr.leasesLost.Add(1)
		a.errs.Printf("lost the liveness lease: the KVS (%s) did not answer within %v; re-registering once it does", a.KVSEndpoint(), lease.TTL())
		for delay := 100 * time.Millisecond; ; delay = min(2*delay, 2*time.Second) {
			err := a.register()
			if err == nil {
				var n int
				if n, err = a.restoreHeld(); err == nil {
					a.info.Printf("re-registered with the KVS (%s); %d records it had lost put back", a.KVSEndpoint(), n)
					break
				}
			}
			if a.ctx.Err() != nil {
				return
			}
			select {
			case <-time.After(delay):
			case <-a.ctx.Done():
				return
			}
		}
	}
}

// restoreHeld puts back every record this agent owns that the KVS no longer holds.
func (a *Agent) restoreHeld() (int, error) {
	n := 0
	for full, m := range a.live.records() {
		ctx, cancel := context.WithTimeout(a.ctx, a.opts.KVSTimeout)
		_, err := a.kv.Update(ctx, full, func(old []byte, found bool) ([]byte, error) {
			if found {
				return nil, errKeep
			}
			return wire.EncodeMeta(m)
		})
		cancel()
		switch {
		case err == nil:
			n++
		case !errors.Is(err, errKeep):
			return n, err
		}
	}
	return n, nil
}

// errKeep ends an Update that leaves the record as it is.
var errKeep = errors.New("record kept")

// unregister revokes the lease at a clean shutdown, so consumers learn at once that
// this agent is gone.
func (a *Agent) unregister() {
	if l := a.live.current(); l != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		l.Revoke(ctx)
		cancel()
	}
}

// ownerState reads owner's liveness key: alive says the agent holds a lease; rev is
// the revision of the read, for a watch that follows it.
func (a *Agent) ownerState(ctx context.Context, owner string) (info *ownerInfo, alive bool, rev int64, err error) {
	v, found, rev, err := a.kv.Get(ctx, ownerKey(owner))
	if err != nil || !found {
		return nil, false, rev, err
	}
	return decodeOwner(v), true, rev, nil
}

// tracksLiveness says whether the records of this agent's store are tied to leases.
func (a *Agent) tracksLiveness() bool {
	_, ok := a.kv.(kvs.Leaser)
	return ok
}

// stageLive stages rec from its owner, first checking that the owner lives, and
// turns the fetch's failure into ErrOwnerGone when the owner's lease ends during it or
// within its TTL after a failure. It returns the record it staged by: a newer record
// of the same version from the KVS when the cached one named a dead owner that has
// since re-published from elsewhere.
func (a *Agent) stageLive(ctx context.Context, ns string, rec *wire.Meta, stage func(context.Context, *wire.Meta) error) (*wire.Meta, error) {
	if !a.tracksLiveness() || rec.Owner == a.opts.Advertise {
		return rec, stage(ctx, rec)
	}
	// The owner view answers without a round trip to the KVS when it knows the owner
	// lives; otherwise (an owner it has not seen, a watch that is down) the KVS does.
	info, rev, alive := a.owners.alive(rec.Owner)
	var err error
	kctx, cancel := a.kvsCtx(ctx, 0)
	if !alive {
		info, alive, rev, err = a.ownerState(kctx, rec.Owner)
	}
	if err == nil && !alive {
		// The record may be stale: a restarted owner re-publishes under its new address.
		if fresh, ferr := a.kvsRecord(kctx, ns, rec); ferr == nil && a.verify(fresh) == nil && fresh.Owner != rec.Owner && fresh.Version >= rec.Version {
			rec = fresh
			info, alive, rev, err = a.ownerState(kctx, rec.Owner)
		}
	}
	cancel()
	if err == nil && !alive {
		a.ctr.ownersGone.Add(1)
		return rec, ownerGone(rec)
	}
	// err != nil: the KVS does not answer, so fetch without knowing; the owner may live.
	gctx, gcancel := context.WithCancelCause(ctx)
	defer gcancel(nil)
	if err == nil {
		go a.watchOwner(gctx, rec.Owner, rev, gcancel)
	}
	serr := stage(gctx, rec)
	if serr == nil {
		return rec, nil
	}
	if ctx.Err() == nil && err == nil && context.Cause(gctx) == nil {
		if kerr := a.awaitOwnerEnd(gctx, rec.Owner, info); kerr != nil {
			return rec, fmt.Errorf("%w (and the KVS does not answer, so whether owner agent %s lives is unknown: %v)", serr, rec.Owner, kerr)
		}
	}
	if errors.Is(context.Cause(gctx), ErrOwnerGone) {
		a.ctr.ownersGone.Add(1)
		return rec, fmt.Errorf("%w (fetch: %v)", ownerGone(rec), serr)
	}
	return rec, serr
}

// awaitOwnerEnd follows a failed fetch: while the owner does not answer, it waits for
// the owner's lease to end (gctx is then cancelled with ErrOwnerGone), up to twice its
// TTL with room for the store's expiry sweep. It returns at once when the owner
// answers again (the failure was the fetch's own), and with the KVS's error when the
// KVS stops answering too. The first look is a moment after the failure, since a
// killed process may still hold its listener while its connections break.
func (a *Agent) awaitOwnerEnd(gctx context.Context, owner string, info *ownerInfo) error {
	ttl := a.opts.LeaseTTL
	if info != nil && info.TTLMs > 0 {
		ttl = time.Duration(info.TTLMs) * time.Millisecond
	}
	limit := time.NewTimer(2*ttl + 2*time.Second)
	defer limit.Stop()
	for {
		select {
		case <-gctx.Done():
			return nil
		case <-limit.C:
			return nil
		case <-time.After(200 * time.Millisecond):
		}
		if a.answers(owner) {
			return nil
		}
		if err := a.probeKVS(); err != nil {
			return err
		}
	}
}

// ownerWatchDelay is how long a staging runs before it watches its owner's liveness
// key: a staging that ends sooner (a small file) never opens a watch, which would cost
// the KVS and this agent more than the whole transfer. The watch starts from the
// revision the owner was last seen alive at, so a deletion in between is not missed.
const ownerWatchDelay = 20 * time.Millisecond

// watchOwner cancels ctx with ErrOwnerGone once owner's liveness key is deleted after
// revision rev. A watch that fails (its revision compacted away, the KVS restarting)
// is followed by a read of the key and a new watch from there.
func (a *Agent) watchOwner(ctx context.Context, owner string, rev int64, cancel context.CancelCauseFunc) {
	select {
	case <-time.After(ownerWatchDelay):
	case <-ctx.Done():
		return
	}
	key := ownerKey(owner)
	for ctx.Err() == nil {
		ch, err := a.kv.Watch(ctx, key, rev+1)
		if err == nil {
			for ev := range ch {
				if ev.Err != nil {
					break
				}
				if ev.Key == key && ev.Deleted {
					cancel(ErrOwnerGone)
					return
				}
			}
		}
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return
		}
		kctx, kcancel := a.kvsCtx(ctx, 0)
		_, alive, r, gerr := a.ownerState(kctx, owner)
		kcancel()
		if gerr == nil && !alive {
			cancel(ErrOwnerGone)
			return
		}
		if gerr == nil {
			rev = r
		}
	}
}

// answers says whether something accepts connections at addr within a second.
func (a *Agent) answers(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
