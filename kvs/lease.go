package kvs

import (
	"context"
	"errors"
	"time"
)

// ErrUnreachable is wrapped by every operation that failed because the store did not
// answer; the error's text names the store's endpoints.
var ErrUnreachable = errors.New("unreachable")

// Leaser is implemented by stores that can tie keys to the liveness of their writer.
type Leaser interface {
	// Grant starts a lease of at least ttl, kept alive in the background until it is
	// revoked, the store is closed, or the store does not answer for longer than its TTL.
	Grant(ctx context.Context, ttl time.Duration) (Lease, error)
}

// Lease is a liveness lease: the store deletes the keys put through it when it ends.
type Lease interface {
	// Put stores val under key (an absolute key of the store) for the life of the lease.
	Put(ctx context.Context, key string, val []byte) (int64, error)
	// Lost is closed once the lease has ended or can no longer be kept alive.
	Lost() <-chan struct{}
	// TTL is the time the store keeps the lease after the last keepalive it received.
	TTL() time.Duration
	// Revoke ends the lease now, deleting its keys.
	Revoke(ctx context.Context) error
}
