package kvs

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// WaitCreate blocks until key exists and returns its value. It fails with an error
// wrapping ErrTimeout after timeout (timeout <= 0 means only ctx bounds the wait).
func WaitCreate(ctx context.Context, kv KV, key string, timeout time.Duration) ([]byte, error) {
	return WaitFor(ctx, kv, key, timeout, func([]byte) bool { return true })
}

// WaitFor blocks until key holds a value that accept approves and returns it. It reads
// once, then watches from the read's revision, so no change between the two is missed.
func WaitFor(ctx context.Context, kv KV, key string, timeout time.Duration, accept func([]byte) bool) ([]byte, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	for {
		val, found, rev, err := kv.Get(ctx, key)
		if err != nil {
			return nil, waitErr(ctx, key, timeout, err)
		}
		if found && accept(val) {
			return val, nil
		}
		val, ok, err := watchFor(ctx, kv, key, rev+1, accept)
		if err != nil {
			return nil, waitErr(ctx, key, timeout, err)
		}
		if ok {
			return val, nil
		}
		if ctx.Err() != nil {
			return nil, waitErr(ctx, key, timeout, ctx.Err())
		}
		// The watch broke (compaction, reconnect): read again and rewatch after a pause.
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return nil, waitErr(ctx, key, timeout, ctx.Err())
		}
	}
}

// watchFor watches key from rev until a value accept takes arrives (ok), the
// watch breaks (not ok, nil error: the caller reads again), or it cannot start.
// Each attempt has its own watch, cancelled when it ends.
func watchFor(ctx context.Context, kv KV, key string, rev int64, accept func([]byte) bool) ([]byte, bool, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := kv.Watch(wctx, key, rev)
	if err != nil {
		return nil, false, err
	}
	for ev := range ch {
		if ev.Err != nil {
			return nil, false, nil
		}
		if ev.Key == key && !ev.Deleted && accept(ev.Value) {
			return ev.Value, true, nil
		}
	}
	return nil, false, nil
}

func waitErr(ctx context.Context, key string, timeout time.Duration, err error) error {
	if errors.Is(err, ErrUnreachable) {
		return fmt.Errorf("kvs: waiting for key %q: %w", key, err)
	}
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("kvs: waiting for key %q: %w after %v", key, ErrTimeout, timeout)
	}
	return fmt.Errorf("kvs: waiting for key %q: %w", key, err)
}
