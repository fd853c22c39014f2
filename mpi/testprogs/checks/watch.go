package main

import (
	"time"

	"github.com/couplet-hpc/couplet/mpi"
)

// watch checks mpi.Watcher on two ranks: its thread sees a message that rank
// 1 sent and wakes Wait; it stays out of MPI while rank 0 holds the MPI-IO
// exclusion, and sees the message once it is released; Pause and Resume let
// it look again without waking a sleeping thread; Close ends a Wait.
func watch(w mpi.Comm, _ []string) {
	const tag = 11
	var wt *mpi.Watcher
	fired := make(chan error, 1)
	if rank == 0 {
		var err error
		wt, err = mpi.NewWatcher(w, tag, 100*time.Microsecond, time.Millisecond)
		must(err, "NewWatcher")
		go func() {
			for {
				err := wt.Wait()
				fired <- err
				if err != nil {
					return
				}
			}
		}()
	}
	send := func(msg string) {
		if rank == 1 {
			must(mpi.Send(w, []byte(msg), 0, tag), "Send")
		}
	}
	// take receives the message the watch saw.
	take := func(want string) {
		buf := make([]byte, len(want))
		_, err := mpi.Recv(w, buf, 1, tag)
		must(err, "Recv")
		if string(buf) != want {
			failf("received %q, want %q", buf, want)
		}
	}

	must(mpi.Barrier(w), "Barrier")
	send("first")
	if rank == 0 {
		if err := waitFired(fired, "the first message"); err != nil {
			fatalf("Wait: %v", err)
		}
		take("first")
		mpi.LockIO()
		c0 := wt.Counts()
		wt.Rearm()
		must(mpi.Barrier(w), "Barrier")
		// Three tries kept out by the exclusion, with the message waiting.
		deadline := time.Now().Add(driveDeadline)
		for c := wt.Counts(); c.Tries < c0.Tries+3; c = wt.Counts() {
			if time.Now().After(deadline) {
				fatalf("the watch tried %d times in %v, want 3", c.Tries-c0.Tries, driveDeadline)
			}
			time.Sleep(time.Millisecond)
		}
		if c := wt.Counts(); c.Looks != c0.Looks || len(fired) != 0 {
			failf("the watch looked %d times and fired %d while the MPI-IO exclusion was held", c.Looks-c0.Looks, len(fired))
		}
		mpi.UnlockIO()
		if err := waitFired(fired, "the message after the exclusion"); err != nil {
			fatalf("Wait: %v", err)
		}
		take("second")
		wt.Pause()
		wt.Rearm()
		wt.Resume()
	} else {
		must(mpi.Barrier(w), "Barrier")
		send("second")
	}
	must(mpi.Barrier(w), "Barrier")
	send("third")
	if rank != 0 {
		return
	}
	if err := waitFired(fired, "the message after Pause and Resume"); err != nil {
		fatalf("Wait: %v", err)
	}
	take("third")
	wt.Rearm()
	pauseAsleep(w)
	must(wt.Close(), "Close")
	if err := waitFired(fired, "the end of Wait at Close"); err == nil {
		failf("Wait returned no error after Close")
	}
	if c := wt.Counts(); c != (mpi.WatchCounts{}) {
		failf("Counts after Close: %+v, want all 0", c)
	}
}

// pauseAsleep checks that pausing and resuming a watch whose thread sleeps
// between looks does not wake the thread: an application call pauses the
// watch at each of its waits.
func pauseAsleep(w mpi.Comm) {
	wt, err := mpi.NewWatcher(w, 12, 200*time.Millisecond, time.Hour)
	must(err, "NewWatcher")
	// After its first look (nothing waits on tag 12) the thread sleeps 400 ms.
	deadline := time.Now().Add(driveDeadline)
	for wt.Counts().Tries == 0 {
		if time.Now().After(deadline) {
			fatalf("the watch did not look in %v", driveDeadline)
		}
		time.Sleep(time.Millisecond)
	}
	// Pauses as long as a short wait of a call, each leaving the core to the
	// thread, were it woken.
	for range 20 {
		wt.Pause()
		time.Sleep(100 * time.Microsecond)
		wt.Resume()
		time.Sleep(100 * time.Microsecond)
	}
	// Should the sleep end during a pause (this rank descheduled for most of
	// it), the thread stops for it and the resume after wakes it, once; a
	// second wake would take this loop 200 ms more.
	if c := wt.Counts(); c.Wakes > 1 {
		failf("20 pauses and resumes of a sleeping watch woke its thread %d times, want at most 1", c.Wakes)
	}
	must(wt.Close(), "Close of the sleeping watch")
}

// waitFired returns the next outcome of Wait, failing the job if none comes
// within driveDeadline.
func waitFired(fired <-chan error, what string) error {
	select {
	case err := <-fired:
		return err
	case <-time.After(driveDeadline):
		fatalf("no Wait return for %s in %v", what, driveDeadline)
		return nil
	}
}
