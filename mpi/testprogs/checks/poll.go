package main

import (
	"time"

	"github.com/couplet-hpc/couplet/mpi"
)

// poll checks Poll against Iprobe on an oversubscribed node (more ranks than
// cores, so Open MPI yields the CPU in idle progress calls): Iprobe yields,
// Poll never does, Iprobe still does afterwards (Poll restores the setting),
// and Poll finds a message sent while its rank slept.
func poll(w mpi.Comm, _ []string) {
	const tag, calls = 7, 1000
	if rank == 0 {
		iprobe := func() error { _, _, err := mpi.Iprobe(w, mpi.AnySource, tag); return err }
		before := yieldsOf(iprobe, calls)
		polled := yieldsOf(func() error { _, _, err := mpi.Poll(w, mpi.AnySource, tag); return err }, calls)
		after := yieldsOf(iprobe, calls)
		if before < calls/2 || after < calls/2 {
			failf("%d Iprobe calls yielded %d times before Poll and %d after; Open MPI should yield in most when oversubscribed", calls, before, after)
		}
		if polled != 0 {
			failf("%d Poll calls yielded %d times, want none", calls, polled)
		}
	}
	must(mpi.Barrier(w), "Barrier")
	if rank == 1 {
		must(mpi.Send(w, []byte("late"), 0, tag), "Send")
	}
	if rank != 0 {
		return
	}
	time.Sleep(50 * time.Millisecond)
	deadline := time.Now().Add(driveDeadline)
	for {
		st, ok, err := mpi.Poll(w, mpi.AnySource, tag)
		must(err, "Poll")
		if ok {
			buf := make([]byte, st.Count)
			_, err := mpi.Recv(w, buf, st.Source, tag)
			must(err, "Recv")
			if string(buf) != "late" || st.Source != 1 {
				failf("Poll found %q from rank %d, want \"late\" from rank 1", buf, st.Source)
			}
			return
		}
		if time.Now().After(deadline) {
			fatalf("Poll never found the message rank 1 sent")
		}
		time.Sleep(time.Millisecond)
	}
}

// yieldsOf makes n calls of probe and returns how often they yielded.
func yieldsOf(probe func() error, n int) int64 {
	start := yieldCount()
	for range n {
		must(probe(), "probe")
	}
	return yieldCount() - start
}
