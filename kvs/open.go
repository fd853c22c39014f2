package kvs

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"sync"
)

// Opener opens a store from a parsed URL.
type Opener func(ctx context.Context, u *url.URL) (KV, error)

var (
	mu      sync.Mutex
	openers = map[string]Opener{}
)

// Register makes a backend available to Open under a URL scheme. Backends call it from
// init. As with database/sql, registering a nil opener or the same scheme twice panics:
// two backends claiming one scheme is a build mistake, not a choice to make at run time.
func Register(scheme string, o Opener) {
	mu.Lock()
	defer mu.Unlock()
	if o == nil {
		panic("kvs: Register opener is nil for scheme " + scheme)
	}
	if _, dup := openers[scheme]; dup {
		panic("kvs: Register called twice for scheme " + scheme)
	}
	openers[scheme] = o
}

// Open opens the store named by rawURL, e.g. "etcd://127.0.0.1:2379,127.0.0.1:22379".
// The backend's package must be imported (for etcd: kvs/etcdkv).
func Open(ctx context.Context, rawURL string) (KV, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("kvs: bad store URL %q: %w", rawURL, err)
	}
	mu.Lock()
	o, ok := openers[u.Scheme]
	var known []string
	for k := range openers {
		known = append(known, k)
	}
	mu.Unlock()
	if !ok {
		sort.Strings(known)
		return nil, fmt.Errorf("kvs: unknown store scheme %q in %q (known: %v)", u.Scheme, rawURL, known)
	}
	return o(ctx, u)
}
