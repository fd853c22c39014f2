package ucxtransport

import (
	"errors"
	"time"

	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/ucx"
)

var _ transport.Driver = (*Transport)(nil)

// Drive completes ps for about budget. It tests them in order (each Test
// progresses the worker) and, while one is not done, waits on the worker's
// event fd (ucx.Worker.Wait) rather than spinning, so a rank whose data is
// still on the way leaves the core to the sender. With watch >= 0 it stops
// early once a control message with that tag has fully arrived. A budget
// <= 0 makes one pass. A failed operation counts as complete; the first
// error is returned. Operations already complete may appear again.
func (t *Transport) Drive(ps []transport.Pending, budget time.Duration, watch int) (bool, error) {
	next := 0 // ps[:next] are complete
	var first error
	// Every pass tests every operation not known complete, not just up to
	// the first pending one: a pipelined block receive posts its next
	// chunks only inside its Test, and its sender waits for them.
	all := func() bool {
		complete := true
		for i := next; i < len(ps); i++ {
			done, err := ps[i].Test()
			if err != nil && first == nil {
				first = err
			}
			if !done {
				complete = false
			} else if complete {
				next = i + 1
			}
		}
		return complete
	}
	if all() || budget <= 0 {
		return next == len(ps), first
	}
	err := t.w.WaitTimeout(budget, func() bool { return all() || t.arrived(watch) })
	if err != nil && !errors.Is(err, ucx.ErrTimeout) && first == nil {
		first = err
	}
	return next == len(ps), first
}

// arrived reports whether a control message with tag (if >= 0) is complete
// in the inbox, taking in those UCX has queued. A probe error is left for
// TryRecv to report: it ends the wait all the same.
func (t *Transport) arrived(tag int) bool {
	if tag < 0 {
		return false
	}
	if t.probe(tag) != nil {
		return true
	}
	for _, m := range t.inbox[tag] {
		if m.req == nil || m.req.Done() {
			return true
		}
	}
	return false
}
