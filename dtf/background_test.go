package dtf

import (
	"errors"
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

// fakeWatch is a transport.Watch driven by the test: Wait returns when the
// test fires it, and every other call is reported on calls.
type fakeWatch struct {
	fire  chan error
	calls chan string
}

func (w *fakeWatch) Wait() error  { return <-w.fire }
func (w *fakeWatch) Pause()       { w.calls <- "pause" }
func (w *fakeWatch) Resume()      { w.calls <- "resume" }
func (w *fakeWatch) Rearm()       { w.calls <- "rearm" }
func (w *fakeWatch) Close() error { w.fire <- errors.New("closed"); return nil }

// watchSignal is lookSignal with a watch.
type watchSignal struct {
	lookSignal
	w *fakeWatch
}

func (p *watchSignal) Watch(tag int, min, max time.Duration) (transport.Watch, error) {
	if tag != tagCtl || min != bgMinIdle || max != bgMaxIdle {
		return nil, errors.New("unexpected watch")
	}
	return p.w, nil
}

// TestBackgroundWatch: over a transport that watches for messages, the
// background goroutine looks for messages once each time the watch fires
// and rearms it; an application call's wait pauses the watch and its end
// resumes it; a fire while a wait holds the engine only rearms; closing
// the watch ends the goroutine.
func TestBackgroundWatch(t *testing.T) {
	w := &fakeWatch{fire: make(chan error), calls: make(chan string, 100)}
	tr := &watchSignal{lookSignal{looks: make(chan bool, 100)}, w}
	e := &engine{tr: tr, files: map[string]*File{}, tryIO: mpi.TryLockIO}
	e.startBackground()
	if e.watch == nil || e.stop != nil {
		t.Fatal("the background did not take the transport's watch")
	}
	for range 2 {
		w.fire <- nil
		nextEvent(t, tr.looks, "look for messages after a fire")
		if c := nextEvent(t, w.calls, "rearm"); c != "rearm" {
			t.Fatalf("after a look the background called %s, want rearm", c)
		}
	}

	e.mu.Lock()
	e.enterWait()
	e.enterWait() // nested waits pause once
	if c := nextEvent(t, w.calls, "pause"); c != "pause" {
		t.Fatalf("entering a wait called %s, want pause", c)
	}
	e.mu.Unlock()
	w.fire <- nil // fired just before the pause took hold
	if c := nextEvent(t, w.calls, "rearm"); c != "rearm" {
		t.Fatalf("a fire during a wait called %s, want rearm", c)
	}
	if n := len(tr.looks); n != 0 {
		t.Fatalf("the background looked for messages %d times while a wait progressed the engine", n)
	}
	e.mu.Lock()
	e.leaveWait()
	if n := len(w.calls); n != 0 {
		t.Fatalf("leaving the inner wait made %d calls, want none", n)
	}
	e.leaveWait()
	e.mu.Unlock()
	if c := nextEvent(t, w.calls, "resume"); c != "resume" {
		t.Fatalf("leaving the last wait called %s, want resume", c)
	}

	go e.watch.Close()
	nextEvent(t, e.bgDone, "end of the background goroutine")
}
