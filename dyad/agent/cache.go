package agent

import (
	"context"
	"log"
	"strings"
	"sync"
	"time"

	"github.com/couplet-hpc/couplet/dyad"
	"github.com/couplet-hpc/couplet/dyad/wire"
	"github.com/couplet-hpc/couplet/kvs"
)

// kvsRoot is the prefix of all staging metadata in the KVS: kvsRoot + ns + "/" + key.
const kvsRoot = "/dyad"

func nsKV(kv kvs.KV, ns string) kvs.KV { return kvs.Namespace(kv, "dyad", ns) }

// fullKey is the raw KVS key of a metadata key in a namespace (matches nsKV).
func fullKey(ns, key string) string {
	return kvsRoot + "/" + kvs.EscapeSegment(ns) + "/" + key
}

// cache is the node-local metadata cache. A watch on the whole staging prefix keeps it
// current, and when a newer version of a file that was staged here appears, the local
// copy's record is removed (dyad.DropStaged), so the next consumer fetches the new version.
type cache struct {
	mu     sync.RWMutex
	metas  map[string]*wire.Meta // by full key
	staged map[string]stagedCopy // full key -> a local copy
	done   chan struct{}
}

func newCache() *cache {
	return &cache{metas: map[string]*wire.Meta{}, staged: map[string]stagedCopy{}, done: make(chan struct{})}
}

func (c *cache) get(full string) (*wire.Meta, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	m, ok := c.metas[full]
	return m, ok
}

// put records m unless a newer version is already known.
func (c *cache) put(full string, m *wire.Meta) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.metas[full]; ok && old.Version > m.Version {
		return
	}
	c.metas[full] = m
	if sc, ok := c.staged[full]; ok {
		if sm, err := dyad.ReadStaged(sc.dest, sc.side); err == nil && sm.Version < m.Version {
			dyad.DropStaged(sc.dest, sc.side)
			delete(c.staged, full)
		}
	}
}

// stagedCopy is where a local copy and its sidecar (if it has one) are.
type stagedCopy struct{ dest, side string }

func (c *cache) markStaged(full, dest, side string) {
	c.mu.Lock()
	c.staged[full] = stagedCopy{dest, side}
	c.mu.Unlock()
}

func (c *cache) start(ctx context.Context, kv kvs.KV, errs *log.Logger) error {
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	es, rev, err := kv.List(lctx, kvsRoot+"/")
	cancel()
	if err != nil {
		close(c.done)
		return err
	}
	for _, e := range es {
		if m, err := wire.DecodeMeta(e.Value); err == nil {
			c.put(e.Key, m)
		}
	}
	go c.follow(ctx, kv, rev+1, errs)
	return nil
}

// follow applies KVS changes to the cache, re-listing after a broken watch.
func (c *cache) follow(ctx context.Context, kv kvs.KV, from int64, errs *log.Logger) {
	defer close(c.done)
	delay := 50 * time.Millisecond
	for ctx.Err() == nil {
		ch, err := kv.Watch(ctx, kvsRoot+"/", from)
		if err == nil {
			for ev := range ch {
				if ev.Err != nil {
					err = ev.Err
					break
				}
				from = ev.Rev + 1
				delay = 50 * time.Millisecond
				if ev.Deleted {
					c.mu.Lock()
					delete(c.metas, ev.Key)
					c.mu.Unlock()
					continue
				}
				if m, derr := wire.DecodeMeta(ev.Value); derr == nil {
					c.put(ev.Key, m)
				} else if !strings.HasSuffix(ev.Key, "/") {
					errs.Printf("cache: undecodable metadata at %q: %v", ev.Key, derr)
				}
			}
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil && strings.Contains(err.Error(), "compacted") {
			from = 0
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return
		}
		delay = min(2*delay, 2*time.Second)
	}
}

func (c *cache) wait() { <-c.done }
