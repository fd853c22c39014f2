package dtf

import (
	"testing"
	"time"

	"github.com/couplet-hpc/couplet/dtf/config"
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

// nextEvent returns the next value on ch, failing the test after 10 s
// without one: a party that stopped acting fails the test instead of
// hanging it.
func nextEvent[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s in 10 s", what)
		var zero T
		return zero
	}
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
	nextEvent(t, tr.looks, "look for messages") // the background polls

	mpi.LockIO() // waits out a poll in progress
	for len(tr.looks) > 0 {
		<-tr.looks
	}
	for len(tries) > 0 {
		<-tries
	}
	for range 3 {
		if nextEvent(t, tries, "try of the IO lock") {
			mpi.UnlockIO()
			t.Fatal("the background took the IO lock while it was held")
		}
	}
	if n := len(tr.looks); n != 0 {
		mpi.UnlockIO()
		t.Fatalf("the background looked for messages %d times while the IO lock was held", n)
	}
	mpi.UnlockIO()
	for !nextEvent(t, tries, "try of the IO lock") {
	}
	nextEvent(t, tr.looks, "look for messages") // and polls again
}

// TestWaitStaysOutOfMPIIO: while another thread is inside MPI-IO, an
// application call's wait (waitFor) neither looks for messages nor drives
// its data (done), both of which enter MPI; it tries the lock between
// sleeps, and once the lock is released it looks, finds the wait over and
// returns.
func TestWaitStaysOutOfMPIIO(t *testing.T) {
	tr := &lookSignal{looks: make(chan bool, 1000)}
	tries := make(chan bool, 1000)
	e := &engine{cfg: &config.Config{Timeout: time.Minute}, tr: tr, files: map[string]*File{}, tryIO: func() bool {
		ok := mpi.TryLockIO()
		tries <- ok
		return ok
	}}
	held, release := make(chan struct{}), make(chan struct{})
	go func() { // the thread inside MPI-IO
		mpi.LockIO()
		close(held)
		<-release
		mpi.UnlockIO()
	}()
	<-held
	dones := make(chan bool, 1000)
	errc := make(chan error, 1)
	go func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		errc <- e.waitFor(func() string { return "the test" }, func() (bool, error) {
			dones <- true
			return true, nil
		})
	}()
	for range 3 {
		if nextEvent(t, tries, "try of the IO lock") {
			t.Fatal("the wait took the IO lock while another thread held it")
		}
	}
	if len(tr.looks) != 0 || len(dones) != 0 {
		t.Fatalf("the wait entered MPI while the IO lock was held: %d looks, %d calls of done", len(tr.looks), len(dones))
	}
	close(release)
	if err := nextEvent(t, errc, "end of the wait after the IO lock was released"); err != nil {
		t.Fatal(err)
	}
	if len(tr.looks) != 1 || len(dones) != 1 {
		t.Fatalf("after the release: %d looks and %d calls of done, want 1 and 1", len(tr.looks), len(dones))
	}
}
