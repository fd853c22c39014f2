package ucxtransport

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Bounds of Close: a peer that is gone must not hang it.
const (
	flushTimeout   = 5 * time.Second
	closeBudget    = 5 * time.Second // all endpoint closes together
	epCloseTimeout = time.Second     // one endpoint close
	kvsTimeout     = 5 * time.Second
)

// Close flushes outgoing messages, closes the endpoints, the worker and
// the context, and deletes this rank's keys (rank 0 of a component also
// its size). Operations still pending are abandoned. Only a failed flush
// (data possibly undelivered) or KVS clean-up is reported: endpoint
// closes fail routinely when peers close first.
func (t *Transport) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	var errs []error
	if r, err := t.w.Flush(); err != nil {
		errs = append(errs, fmt.Errorf("ucxtransport: flush: %w", err))
	} else if err := r.Wait(flushTimeout); err != nil {
		errs = append(errs, fmt.Errorf("ucxtransport: flush: %w", err))
	}
	deadline := time.Now().Add(closeBudget)
	ranks := make([]int, 0, len(t.eps))
	for r := range t.eps {
		ranks = append(ranks, r)
	}
	slices.Sort(ranks)
	for _, r := range ranks {
		d := min(epCloseTimeout, max(time.Until(deadline), time.Millisecond))
		// Peers close at the same time, so a reset or a timeout here is
		// routine: the flush above already delivered what was sent.
		t.eps[r].Close(d)
		delete(t.eps, r)
	}
	return errors.Join(append(errs, t.release())...)
}

// release frees the worker and context and deletes this rank's keys; it
// also cleans up after a failed Join.
func (t *Transport) release() error {
	if t.w != nil {
		t.w.Close()
	}
	if t.ctx != nil {
		t.ctx.Close()
	}
	if !t.published {
		return nil
	}
	t.published = false
	ctx, cancel := context.WithTimeout(context.Background(), kvsTimeout)
	defer cancel()
	name, crank := t.o.Components[t.o.Comp], t.crank
	keys := []string{addrKey(t.o.Namespace, name, crank)}
	if crank == 0 {
		keys = append(keys, sizeKey(t.o.Namespace, name))
	}
	var errs []error
	for _, k := range keys {
		if err := t.o.KV.Delete(ctx, k); err != nil {
			errs = append(errs, fmt.Errorf("ucxtransport: delete key %q: %w", k, err))
		}
	}
	return errors.Join(errs...)
}
