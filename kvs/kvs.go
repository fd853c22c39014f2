// Package kvs is couplet's key-value store interface: where file-staging metadata lives.
// Implementations live in subpackages (kvs/etcdkv) and are chosen by URL scheme through
// Open, in the manner of database/sql.
package kvs

import (
	"context"
	"errors"
)

// Entry is one key and its value, as read from the store.
type Entry struct {
	Key   string
	Value []byte
	// ModRev is the store revision at which the key was last modified.
	ModRev int64
}

// Event is one change seen by Watch.
type Event struct {
	Key     string
	Value   []byte
	Rev     int64
	Deleted bool
	// Err is set on the last event of a watch that failed; the channel closes after it.
	Err error
}

// KV is a key-value store with revisions, prefix listing and watches.
// Keys are arbitrary strings; implementations must not interpret them beyond prefixes.
type KV interface {
	// Put stores val under key and returns the new store revision.
	Put(ctx context.Context, key string, val []byte) (int64, error)
	// Get returns the value of key, whether it exists, and the store revision of the read,
	// from which a Watch can continue without missing a change.
	Get(ctx context.Context, key string) (val []byte, found bool, rev int64, err error)
	// List returns every entry whose key starts with prefix and the store revision of the read.
	List(ctx context.Context, prefix string) ([]Entry, int64, error)
	// Update atomically replaces the value of key with fn(old); fn may run several times.
	Update(ctx context.Context, key string, fn func(old []byte, found bool) ([]byte, error)) ([]byte, error)
	// Delete removes key; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// Watch reports changes to keys under prefix made after revision fromRev (0: from now).
	// The channel closes when ctx ends or the watch fails (the last event then carries Err).
	Watch(ctx context.Context, prefix string, fromRev int64) (<-chan Event, error)
	// Close releases the store's connections.
	Close() error
}

// ErrTimeout is wrapped by every wait that ran out of time.
var ErrTimeout = errors.New("timed out")
