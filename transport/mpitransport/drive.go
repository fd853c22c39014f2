package mpitransport

import (
	"fmt"
	"syscall"
	"time"

	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/transport"
)

var _ transport.Driver = (*Transport)(nil)

// Waits of Drive while only single-copy operations are outstanding: their
// bytes need no MPI progress from this rank (the receiver copies, or a
// descriptor or answer is on its way), so Drive sleeps between looks,
// backing off from minSleep to maxSleep, and leaves the core to the ranks
// that copy. A sender whose blocks are being read waits at least as long
// as the reads take, so its longest sleep grows with the bytes it waits
// on, as long as reading them takes at readRate, up to maxReadSleep:
// waking every 100 us while a receiver reads megabytes takes the core
// from the copy thousands of times a second, each look an MPI call that
// yields when idle. With MPI data in flight as well, the C loop runs in
// slices of singleSlice so that the single-copy operations move on in
// between.
const (
	minSleep     = 2 * time.Microsecond
	maxSleep     = 100 * time.Microsecond
	maxReadSleep = time.Millisecond
	readRate     = 32e9 // bytes per second: faster than any read here, so the cap errs short
	singleSlice  = 100 * time.Microsecond
)

// A rank that reads with one way holds the blocks whose descriptors came
// while others of the same Drive have not, so as to read them together
// (readAll, cma.ReadEach): blocks of several writers that tile one array
// then fill it front to back, and the writers sharing the reader's core
// finish their epochs meanwhile. It holds only blocks of holdMin bytes or
// more, and for at most holdFor. Measured in couplet bench's case 1
// (interleaved launches, single-copy / raw MPI within each): with 32 MiB
// blocks (256 MiB rounds) 1.40-1.65 against 1.10-1.59 reading them as
// they came, with 128 MiB blocks (1 GiB) 2.11-2.22 against 1.56-1.59; but
// with 8 MiB blocks (64 MiB) holding them read 0.85-0.93 against
// 0.97-1.18: the descriptors of a round often come more than a
// millisecond apart (in about half the rounds at 256 MiB), about as long
// as copying such a block takes, and the copies no longer overlapped the
// wait. Smaller blocks are read as they come (1.13-1.26 against
// 1.12-1.25).
// The bound on the time keeps a sender that offers its next block only
// after the answer to this one from waiting on the reader for long.
const (
	holdMin = 16 << 20
	holdFor = 20 * time.Millisecond
)

// holding reports whether the reads of ready, whose descriptors came, are
// still held at now: all of them large, none held for holdFor yet.
func holding(ready []*singleRecv, now time.Time) bool {
	for _, r := range ready {
		if r.b.Bytes() < holdMin || now.Sub(r.came) >= holdFor {
			return false
		}
	}
	return true
}

// sleepCap is the longest sleep of a Drive that waits on single-copy
// sends of reading bytes in all (see maxReadSleep).
func sleepCap(reading int64) time.Duration {
	d := time.Duration(float64(reading) / readRate * float64(time.Second))
	return min(maxReadSleep, max(maxSleep, d))
}

// Drive completes ps with mpi.TestallFor: Open MPI moves large messages
// only inside MPI calls, and one C loop of MPI_Testall drives them for
// about budget without a cgo round trip per poll, probing for watched
// control messages between rounds. Single-copy operations advance between
// those loops (a receive reads its block there), and while nothing but
// them is outstanding Drive sleeps instead of polling. When all are
// complete (or one failed) the datatypes are freed. Every element of ps
// must be a Pending this transport returned; completed ones may appear
// again.
func (t *Transport) Drive(ps []transport.Pending, budget time.Duration, watch int) (bool, error) {
	var w *mpi.Watch
	if watch >= 0 {
		w = &mpi.Watch{Comm: t.world, Tag: watch}
	}
	deadline := time.Now().Add(budget)
	sleep := minSleep
	var first error
	note := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for {
		var reqs []*mpi.Request
		var ready []*singleRecv
		waiting := false  // a single-copy operation waits on its peer
		awaiting := false // a single-copy receive waits for its descriptor
		var reading int64 // bytes of single-copy sends that their receivers read
		for i, p := range ps {
			switch q := p.(type) {
			case *pending:
				if q.req.Active() {
					reqs = append(reqs, q.req)
				}
			case singleOp:
				done, bulk, err := q.advance()
				note(err)
				if r, ok := q.(*singleRecv); ok && r.ready() {
					ready = append(ready, r)
				} else if bulk != nil {
					reqs = append(reqs, bulk)
				} else if !done {
					waiting = true
					if r, ok := q.(*singleRecv); ok && r.awaiting() {
						awaiting = true
					}
					if s, ok := q.(*singleSend); ok && s.offered() {
						reading += s.b.Bytes()
					}
				}
			default:
				return false, fmt.Errorf("mpitransport: Drive: operation %d is a %T, not one of this transport's", i, p)
			}
		}
		if len(ready) > 0 && !(awaiting && t.sc.ways == 1 && holding(ready, time.Now())) {
			t.readAll(ready)
			continue // answer the senders, then look again
		}
		left := time.Until(deadline)
		if len(reqs) > 0 {
			slice := left
			if waiting {
				slice = min(slice, singleSlice)
			}
			done, err := mpi.TestallFor(reqs, slice, w)
			if err != nil {
				note(err)
				freeAll(ps)
				return done && !waiting, first
			}
			if done && !waiting {
				freeAll(ps)
				return true, first
			}
			if done {
				continue // the single-copy operations may move on now
			}
			if !waiting || left <= slice || t.watched(w) {
				return false, first
			}
			continue
		}
		if !waiting {
			freeAll(ps)
			return true, first
		}
		if left <= 0 || t.watched(w) {
			return false, first
		}
		ts := syscall.NsecToTimespec(min(sleep, left).Nanoseconds())
		syscall.Nanosleep(&ts, nil)
		sleep = min(2*sleep, sleepCap(reading))
	}
}

// watched reports whether a message of the watch is waiting (a failed
// probe counts, so that the caller looks).
func (t *Transport) watched(w *mpi.Watch) bool {
	if w == nil {
		return false
	}
	_, ok, err := mpi.Poll(w.Comm, mpi.AnySource, w.Tag)
	return ok || err != nil
}

// freeAll frees the datatypes of ps's MPI operations: MPI keeps a freed
// type alive while operations still use it.
func freeAll(ps []transport.Pending) {
	for _, p := range ps {
		if q, ok := p.(*pending); ok {
			q.free()
		}
	}
}
