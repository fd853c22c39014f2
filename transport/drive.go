package transport

import "time"

// Driver is implemented by a Transport that can complete a set of its
// operations more cheaply than by testing them one at a time.
type Driver interface {
	// Drive completes as many of ps as possible within about budget and
	// reports done when all are complete; a transport whose progress lives
	// in C drives it there, without a round trip to Go per poll. With
	// watch >= 0 it returns early, not done, once a control message with
	// that tag is waiting for TryRecv, so a caller that serves control
	// messages may pass long budgets; watch < 0 watches nothing. ps holds
	// operations this transport started; completed ones may appear again.
	// An operation that fails counts as complete, and Drive returns the
	// first such error. How Drive waits within its budget is the
	// transport's: mpitransport polls MPI in C and sleeps while only
	// single-copy reads are outstanding; ucxtransport polls, yielding the
	// CPU, while block bytes move and otherwise sleeps on its worker's
	// event fd. The caller decides how to wait between calls.
	Drive(ps []Pending, budget time.Duration, watch int) (done bool, err error)
}

// Drive completes ps through t: with t's Driver when it has one, else by
// testing each pending once in order, stopping at the first one not done
// (one pass, so budget and watch do not matter). It is the one entry point
// for callers, with the semantics of Driver.Drive. Operations already
// complete are tested again, so Test on a completed Pending must report
// done again (those of mpitransport and ucxtransport do).
func Drive(t Transport, ps []Pending, budget time.Duration, watch int) (done bool, err error) {
	if d, ok := t.(Driver); ok {
		return d.Drive(ps, budget, watch)
	}
	for _, p := range ps {
		ok, e := p.Test()
		if e != nil && err == nil {
			err = e
		}
		if !ok {
			return false, err
		}
	}
	return true, err
}
