package ucxtransport

import (
	"errors"
	"fmt"
	"time"

	"github.com/couplet-hpc/couplet/ucx"
)

// ErrCanceled is the outcome of a receive abandoned with Cancel.
var ErrCanceled = errors.New("ucxtransport: receive canceled")

// cancelTimeout bounds the wait for UCX to confirm a cancellation.
const cancelTimeout = 5 * time.Second

// sendPending is a send in flight: one UCX request per message.
type sendPending struct {
	t    *Transport
	what string
	reqs []*ucx.Request
	went int    // reqs[:went] have completed
	buf  []byte // the packed copy, kept alive until the send completes
}

// Test progresses the worker and reports whether every message went.
func (p *sendPending) Test() (bool, error) {
	if !p.allWent() {
		p.t.progress()
		if !p.allWent() {
			return false, nil
		}
	}
	p.t.stage.put(p.buf) // every message went: UCX is done with it
	p.buf = nil
	for _, r := range p.reqs {
		if err := r.Err(); err != nil {
			return true, fmt.Errorf("ucxtransport: %s: %w", p.what, err)
		}
	}
	return true, nil
}

// allWent reports whether every message went, looking only past those
// known to have gone: while a block of many chunks flows it is tested after
// every event, and testing every chunk each time cost its sender more CPU
// than any other Go code in case 6a over tcp (4% of the node's).
func (p *sendPending) allWent() bool {
	for p.went < len(p.reqs) && p.reqs[p.went].Done() {
		p.went++
	}
	return p.went == len(p.reqs)
}

// Cancel fails for a send that is still in flight: UCX cannot take back
// a tagged send.
func (p *sendPending) Cancel() error {
	if p.allWent() {
		return nil
	}
	return fmt.Errorf("ucxtransport: %s: a send in flight cannot be canceled", p.what)
}

// donePending is an operation that completed when it started.
type donePending struct {
	t   *Transport
	err error
}

func (p donePending) Test() (bool, error) {
	p.t.progress()
	return true, p.err
}

func (p donePending) Cancel() error { return nil }

// cancelAll cancels the requests that are still pending, waiting for UCX
// to confirm, so that their buffers are no longer written.
func cancelAll(reqs []*ucx.Request) error {
	var errs []error
	for _, r := range reqs {
		if err := r.Cancel(cancelTimeout); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
