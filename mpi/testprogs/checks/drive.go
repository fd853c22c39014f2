package main

import (
	"errors"
	"runtime"
	"strings"
	"time"

	"github.com/couplet-hpc/couplet/mpi"
)

// driveDeadline bounds every completion loop so that a bug fails, not hangs.
const driveDeadline = 20 * time.Second

// drive checks TestallFor: every pair of ranks exchanges a rendezvous-sized
// and an eager message completed by repeated TestallFor calls with a budget
// (and again with budget 0), while the garbage collector runs; a set that
// cannot complete reports false after at least its budget and stays
// pending; completed and nil requests are skipped; a truncated receive
// comes back as an error that completes the set.
func drive(w mpi.Comm, _ []string) {
	for _, budget := range []time.Duration{time.Millisecond, 0} {
		driveExchange(w, budget)
	}
	driveIncomplete(w)
	driveTruncated(w)
}

// driveExchange sends n float64 (3 MiB: rendezvous) and one short int32
// message to every other rank and completes them all with TestallFor.
func driveExchange(w mpi.Comm, budget time.Duration) {
	size := w.Size()
	const n = 3 << 17
	var reqs []*mpi.Request
	recvs := make([][]float64, size)
	shorts := make([][]int32, size)
	for p := range size {
		if p == rank {
			continue
		}
		recvs[p] = make([]float64, n)
		shorts[p] = make([]int32, 4)
		r, err := mpi.Irecv(w, recvs[p], p, 40)
		must(err, "Irecv")
		s, err := mpi.Irecv(w, shorts[p], p, 41)
		must(err, "Irecv")
		reqs = append(reqs, r, s)
	}
	for p := range size {
		if p == rank {
			continue
		}
		buf := make([]float64, n)
		for i := range buf {
			buf[i] = float64(rank*1000000 + p*1000 + i)
		}
		r, err := mpi.Isend(w, buf, p, 40)
		must(err, "Isend")
		s, err := mpi.Isend(w, []int32{int32(rank), int32(p), 7, 8}, p, 41)
		must(err, "Isend")
		reqs = append(reqs, r, s)
	}
	runtime.GC()
	reqs = append(reqs, nil) // nil entries are skipped
	deadline := time.Now().Add(driveDeadline)
	calls := 0
	for {
		done, err := mpi.TestallFor(reqs, budget, nil)
		must(err, "TestallFor")
		calls++
		if done {
			break
		}
		if time.Now().After(deadline) {
			fatalf("budget %v: exchange not complete after %v (%d calls)", budget, driveDeadline, calls)
		}
		if budget <= 0 {
			time.Sleep(50 * time.Microsecond)
		}
		runtime.GC()
	}
	for i, r := range reqs[:2*(size-1)] { // the receives: status kept
		st, err := r.Wait()
		want := int64(n)
		if i%2 == 1 {
			want = 4
		}
		elem := 8 - 4*(i%2)
		if err != nil || st.Elems(elem) != want || st.Tag != 40+i%2 {
			failf("budget %v: status of receive %d: %+v, %v", budget, i, st, err)
		}
	}
	for p := range size {
		if p == rank {
			continue
		}
		for i, v := range recvs[p] {
			if want := float64(p*1000000 + rank*1000 + i); v != want {
				failf("budget %v: from %d: element %d = %v, want %v", budget, p, i, v, want)
				break
			}
		}
		if s := shorts[p]; s[0] != int32(p) || s[1] != int32(rank) || s[3] != 8 {
			failf("budget %v: short message from %d = %v", budget, p, s)
		}
	}
	// A completed set is done at once, without waiting for the budget.
	start := time.Now()
	if done, err := mpi.TestallFor(reqs, time.Second, nil); !done || err != nil {
		failf("TestallFor on a completed set: %v, %v", done, err)
	}
	if el := time.Since(start); el > 500*time.Millisecond {
		failf("TestallFor on a completed set took %v", el)
	}
	must(mpi.Barrier(w), "Barrier")
}

// driveIncomplete gives TestallFor a set with a receive nobody sends to.
func driveIncomplete(w mpi.Comm) {
	next, prev := (rank+1)%w.Size(), (rank+w.Size()-1)%w.Size()
	in := make([]int64, 2)
	got, err := mpi.Irecv(w, in, prev, 42)
	must(err, "Irecv")
	orphan, err := mpi.Irecv(w, make([]int8, 4), next, 999)
	must(err, "Irecv")
	sent, err := mpi.Isend(w, []int64{int64(rank), 5}, next, 42)
	must(err, "Isend")
	must(mpi.Barrier(w), "Barrier")
	const budget = 5 * time.Millisecond
	start := time.Now()
	done, err := mpi.TestallFor([]*mpi.Request{got, orphan}, budget, nil)
	if el := time.Since(start); done || err != nil || el < budget {
		failf("TestallFor with an unmatched receive: done=%v err=%v after %v, want false after >= %v", done, err, el, budget)
	}
	// got has arrived by now but must still be completable on its own.
	if done, err := mpi.TestallFor([]*mpi.Request{got}, time.Second, nil); !done || err != nil {
		failf("TestallFor on the matched receive alone: %v, %v", done, err)
	}
	if in[0] != int64(prev) || in[1] != 5 {
		failf("receive completed by TestallFor holds %v", in)
	}
	if done, err := mpi.TestallFor([]*mpi.Request{orphan}, 0, nil); done || err != nil {
		failf("TestallFor budget 0 on an unmatched receive: %v, %v", done, err)
	}
	must(orphan.Cancel(), "Cancel")
	if _, err := sent.WaitTimeout(driveDeadline); err != nil {
		failf("send next to the unmatched receive: %v", err)
	}
	must(mpi.Barrier(w), "Barrier")
}

// driveTruncated receives an 8-element message into a 4-element buffer: the
// set completes with MPI's truncation error, and its good request completes.
func driveTruncated(w mpi.Comm) {
	next, prev := (rank+1)%w.Size(), (rank+w.Size()-1)%w.Size()
	small := make([]int32, 4)
	bad, err := mpi.Irecv(w, small, prev, 43)
	must(err, "Irecv")
	ok := make([]int32, 1)
	good, err := mpi.Irecv(w, ok, prev, 44)
	must(err, "Irecv")
	s1, err := mpi.Isend(w, make([]int32, 8), next, 43)
	must(err, "Isend")
	s2, err := mpi.Isend(w, []int32{9}, next, 44)
	must(err, "Isend")
	reqs := []*mpi.Request{bad, good, s1, s2}
	deadline := time.Now().Add(driveDeadline)
	for {
		done, err := mpi.TestallFor(reqs, time.Millisecond, nil)
		if err != nil {
			var me *mpi.Error
			if !errors.As(err, &me) || !strings.Contains(me.Msg, "TRUNCATE") {
				failf("truncated receive: error %v, want MPI_ERR_TRUNCATE", err)
			}
			if !done {
				failf("truncated receive: set not done after the error")
			}
			break
		}
		if done {
			failf("truncated receive completed without an error")
			break
		}
		if time.Now().After(deadline) {
			fatalf("truncated receive: no outcome after %v", driveDeadline)
		}
	}
	if st, err := good.Wait(); err != nil || ok[0] != 9 || st.Tag != 44 {
		failf("good receive next to the truncated one: %v, %+v, data %v", err, st, ok)
	}
	must(mpi.Barrier(w), "Barrier")
}
