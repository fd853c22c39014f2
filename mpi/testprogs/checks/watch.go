package main

import (
	"time"

	"github.com/couplet-hpc/couplet/mpi"
)

// watch checks mpi.Watcher on two ranks: its thread sees a message that rank
// 1 sent and wakes Wait; it stays out of MPI while rank 0 holds the MPI-IO
// exclusion, and sees the message once it is released; Pause and Resume let
// it look again; Close ends a Wait.
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
		tries, looks := wt.Counts()
		wt.Rearm()
		must(mpi.Barrier(w), "Barrier")
		// Three tries kept out by the exclusion, with the message waiting.
		deadline := time.Now().Add(driveDeadline)
		for t, _ := wt.Counts(); t < tries+3; t, _ = wt.Counts() {
			if time.Now().After(deadline) {
				fatalf("the watch tried %d times in %v, want 3", t-tries, driveDeadline)
			}
			time.Sleep(time.Millisecond)
		}
		if _, l := wt.Counts(); l != looks || len(fired) != 0 {
			failf("the watch looked %d times and fired %d while the MPI-IO exclusion was held", l-looks, len(fired))
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
	must(wt.Close(), "Close")
	if err := waitFired(fired, "the end of Wait at Close"); err == nil {
		failf("Wait returned no error after Close")
	}
	if t, l := wt.Counts(); t != 0 || l != 0 {
		failf("Counts after Close: %d, %d, want 0, 0", t, l)
	}
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
