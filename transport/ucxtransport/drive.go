package ucxtransport

import (
	"errors"
	"syscall"
	"time"

	"github.com/couplet-hpc/couplet/transport"
	"github.com/couplet-hpc/couplet/ucx"
)

var _ transport.Driver = (*Transport)(nil)

// Drive completes ps for about budget. It tests them in order (each Test
// progresses the worker) until all are done: while bytes of blocks move
// through UCX it looks again at once, yielding the CPU between looks (see
// moving), and otherwise it waits on the worker's event fd
// (ucx.Worker.Wait), so a rank that only awaits a peer (a single-copy
// read, an answer) leaves the core to it. With watch >= 0 it stops early
// once a control message with that tag has fully arrived. A budget <= 0
// makes one pass. A failed operation counts as complete; the first error
// is returned. Operations already complete may appear again.
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
	cond := func() bool { return all() || t.arrived(watch) }
	if moving(ps[next:]) {
		poll(budget, cond)
		return next == len(ps), first
	}
	err := t.w.WaitTimeout(budget, cond)
	if err != nil && !errors.Is(err, ucx.ErrTimeout) && first == nil {
		first = err
	}
	return next == len(ps), first
}

// moving reports whether ps holds a block send or receive whose bytes UCX
// moves itself (a single-copy one too, after a refused read), in messages
// that each need the worker progressed on both sides. Over tcp they arrive
// socket buffer by socket buffer, and waking on the event fd for every one
// costs a context switch each way: in interleaved pairs of launches of
// case 6a's exchange over tcp, rounds took 146-169 ms at 256 MiB waiting
// on the event fd against 140-158 polling as Open MPI does (and
// mpitransport while data is in flight), and 37-40 ms against 34-37 at
// 64 MiB (five and four pairs).
func moving(ps []transport.Pending) bool {
	for _, p := range ps {
		switch q := p.(type) {
		case *sendPending, *blockRecv:
			return true
		case *singleSend:
			if q.fb != nil && !q.done {
				return true
			}
		case *singleRecv:
			if q.fb != nil && !q.done {
				return true
			}
		}
	}
	return false
}

// poll evaluates cond until it holds or budget has passed, yielding the
// CPU between evaluations, so that ranks sharing a core with this one run.
func poll(budget time.Duration, cond func() bool) {
	end := time.Now().Add(budget)
	for !cond() && time.Now().Before(end) {
		syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
	}
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
