package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/couplet-hpc/couplet/kvs"
)

// ownerView follows every agent's liveness key through one watch, so that a staging
// learns that its owner lives without a read of the KVS before its first byte. It only
// ever vouches for an owner whose key it saw and whose deletion it has not: an owner it
// does not know (not yet seen, or the watch broke) is read from the KVS as before, so a
// view that lags makes a staging slower, never wrong.
type ownerView struct {
	mu sync.Mutex
	// live holds the liveness keys present, as of revision known.
	live  map[string]*ownerInfo
	known int64
	// synced is false while the watch is down: the view then vouches for no one.
	synced bool
	done   chan struct{}
}

// alive reports whether the view knows owner's liveness key to be present, with the
// owner's record and the revision as of which that holds (a watch from rev+1 sees its
// deletion).
func (v *ownerView) alive(owner string) (info *ownerInfo, rev int64, ok bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.synced {
		return nil, 0, false
	}
	info, ok = v.live[ownerKey(owner)]
	return info, v.known, ok
}

// start lists the liveness keys and follows them until ctx ends. A failed first listing
// leaves the view unsynced (and retried), not the agent down.
func (v *ownerView) start(ctx context.Context, kv kvs.KV) {
	v.done = make(chan struct{})
	go v.follow(ctx, kv)
}

func decodeOwner(b []byte) *ownerInfo {
	info := &ownerInfo{}
	if json.Unmarshal(b, info) != nil {
		return nil
	}
	return info
}

// follow lists the liveness keys, then applies the watch's events; when the watch breaks
// it drops what it knew and lists again, so no deletion can be missed across a gap.
func (v *ownerView) follow(ctx context.Context, kv kvs.KV) {
	defer close(v.done)
	delay := 50 * time.Millisecond
	for ctx.Err() == nil {
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		es, rev, err := kv.List(lctx, ownersRoot)
		cancel()
		if err == nil {
			var ch <-chan kvs.Event
			if ch, err = kv.Watch(ctx, ownersRoot, rev+1); err == nil {
				live := make(map[string]*ownerInfo, len(es))
				for _, e := range es {
					live[e.Key] = decodeOwner(e.Value)
				}
				v.mu.Lock()
				v.live, v.known, v.synced = live, rev, true
				v.mu.Unlock()
				delay = 50 * time.Millisecond
				for ev := range ch {
					if ev.Err != nil {
						break
					}
					v.mu.Lock()
					if ev.Deleted {
						delete(v.live, ev.Key)
					} else if strings.HasSuffix(ev.Key, "/live") {
						v.live[ev.Key] = decodeOwner(ev.Value)
					}
					v.known = max(v.known, ev.Rev)
					v.mu.Unlock()
				}
			}
		}
		v.mu.Lock()
		v.live, v.synced = nil, false
		v.mu.Unlock()
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// wait returns once follow has ended.
func (v *ownerView) wait() {
	if v.done != nil {
		<-v.done
	}
}
