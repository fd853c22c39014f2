package main

import (
	"github.com/couplet-hpc/couplet/mpi"
)

// celsius checks that named types with an Elem underlying type work.
type celsius float32

// p2p passes messages of several element types around the ring and checks
// Probe, Iprobe, wildcards and status counts. World size must be even.
func p2p(w mpi.Comm, _ []string) {
	size := w.Size()
	next, prev := (rank+1)%size, (rank+size-1)%size
	ringCheck[int8](w, next, prev, 1, 13)
	ringCheck[uint16](w, next, prev, 2, 1000)
	ringCheck[int32](w, next, prev, 3, 4099)
	ringCheck[uint64](w, next, prev, 4, 77)
	ringCheck[float64](w, next, prev, 5, 1<<16)
	ringCheck[celsius](w, next, prev, 6, 5)
	ringCheck[float32](w, next, prev, 7, 0)

	// Probe then receive a message of unknown length from anyone.
	n := 10 + rank
	if rank%2 == 0 {
		must(mpi.Send(w, make([]int32, n), next, 20), "Send for Probe")
	}
	if size%2 == 0 && rank%2 == 1 {
		st, err := mpi.Probe(w, mpi.AnySource, mpi.AnyTag)
		must(err, "Probe")
		if st.Source != prev || st.Tag != 20 || st.Elems(4) != int64(10+prev) {
			failf("Probe status %+v, want source %d tag 20 elems %d", st, prev, 10+prev)
		}
		buf := make([]int32, st.Elems(4))
		got, err := mpi.Recv(w, buf, st.Source, st.Tag)
		must(err, "Recv after Probe")
		if got != st {
			failf("Recv status %+v differs from Probe status %+v", got, st)
		}
	}
	must(mpi.Barrier(w), "Barrier")
	// Nothing is pending now: Iprobe must say so without blocking.
	if _, ok, err := mpi.Iprobe(w, mpi.AnySource, mpi.AnyTag); err != nil || ok {
		failf("Iprobe on an empty queue: ok=%v err=%v", ok, err)
	}
}

// ringCheck sends n values of T to next and checks the n values from prev.
func ringCheck[T mpi.Elem](w mpi.Comm, next, prev, tag, n int) {
	send := make([]T, n)
	for i := range send {
		send[i] = T(rank*7 + i%100)
	}
	recv := make([]T, n+3) // larger than the message: Status tells the length
	var st mpi.Status
	var err error
	if rank%2 == 0 {
		must(mpi.Send(w, send, next, tag), "Send")
		st, err = mpi.Recv(w, recv, mpi.AnySource, tag)
	} else {
		st, err = mpi.Recv(w, recv, prev, mpi.AnyTag)
		if err == nil {
			err = mpi.Send(w, send, next, tag)
		}
	}
	must(err, "ring exchange")
	var zero T
	es := sizeOf(zero)
	if st.Source != prev || st.Tag != tag || st.Count != int64(n*es) || st.Elems(es) != int64(n) {
		failf("%T: status %+v, want source %d tag %d count %d", zero, st, prev, tag, n*es)
	}
	for i := range n {
		if want := T(prev*7 + i%100); recv[i] != want {
			failf("%T: element %d = %v, want %v", zero, i, recv[i], want)
			return
		}
	}
}
