package dtf

import (
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/transport"
)

// lookSignal is a transport whose only use here is to report each look for
// control messages; none ever arrives.
type lookSignal struct {
	transport.Transport
	looks chan bool
}

func (p *lookSignal) TryRecv(int) (transport.Message, bool, error) {
	p.looks <- true
	return transport.Message{}, false, nil
}

// TestBackgroundStaysOutOfMPIIO: while a thread is inside MPI-IO
// (mpi.LockIO held, as around every libpnetcdf call), the background
// goroutine tries the lock at each tick and never enters MPI; once it is
// released, it polls again. Open MPI's OMPIO crashed when the background's
// progress ran beside a collective write.
func TestBackgroundStaysOutOfMPIIO(t *testing.T) {
	tr := &lookSignal{looks: make(chan bool, 1000)}
	tries := make(chan bool, 1000)
	e := &engine{tr: tr, files: map[string]*File{}, tryIO: func() bool {
		ok := mpi.TryLockIO()
		tries <- ok
		return ok
	}}
	e.startBackground()
	defer func() { close(e.stop); <-e.bgDone }()
	// Each wait is bounded, so that a background that stopped trying fails
	// the test instead of hanging it.
	next := func(ch <-chan bool, what string) bool {
		select {
		case ok := <-ch:
			return ok
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s in 10 s", what)
			return false
		}
	}
	next(tr.looks, "look for messages") // the background polls

	mpi.LockIO() // waits out a poll in progress
	for len(tr.looks) > 0 {
		<-tr.looks
	}
	for len(tries) > 0 {
		<-tries
	}
	for range 3 {
		if next(tries, "try of the IO lock") {
			mpi.UnlockIO()
			t.Fatal("the background took the IO lock while it was held")
		}
	}
	if n := len(tr.looks); n != 0 {
		mpi.UnlockIO()
		t.Fatalf("the background looked for messages %d times while the IO lock was held", n)
	}
	mpi.UnlockIO()
	for !next(tries, "try of the IO lock") {
	}
	next(tr.looks, "look for messages") // and polls again
}
