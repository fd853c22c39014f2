package ucxtransport

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/couplet-hpc/couplet/transport/cma"
)

// Bounds of Close: a peer that is gone must not hang it.
const (
	flushTimeout   = 5 * time.Second
	closeBudget    = 5 * time.Second // all endpoint closes together
	epCloseTimeout = time.Second     // one endpoint close
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
	t.stage.close()
	// The senders' memory this rank mapped for single-copy reads: every
	// read answered, so no block of this transport needs it any more.
	cma.Detach()
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
	if err := t.dir.Leave(); err != nil {
		return fmt.Errorf("ucxtransport: %w", err)
	}
	return nil
}
