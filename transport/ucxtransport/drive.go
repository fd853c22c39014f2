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
// still on the way leaves the core to the sender. A budget <= 0 makes one
// pass. A failed operation counts as complete; the first error is
// returned. Operations already complete may appear again.
func (t *Transport) Drive(ps []transport.Pending, budget time.Duration) (bool, error) {
	next := 0 // ps[:next] are complete
	var first error
	all := func() bool {
		for next < len(ps) {
			done, err := ps[next].Test()
			if err != nil && first == nil {
				first = err
			}
			if !done {
				return false
			}
			next++
		}
		return true
	}
	if all() || budget <= 0 {
		return next == len(ps), first
	}
	err := t.w.WaitTimeout(budget, all)
	if err != nil && !errors.Is(err, ucx.ErrTimeout) && first == nil {
		first = err
	}
	return next == len(ps), first
}
