package main

import (
	"github.com/couplet-hpc/couplet/mpi"
)

// large runs with COUPLET_MPI_MAX_COUNT=1000 so
// that small buffers take the paths built for more than 2^31 elements:
// messages, collectives and subarrays whose counts exceed the limit.
func large(w mpi.Comm, _ []string) {
	size := w.Size()
	next, prev := (rank+1)%size, (rank+size-1)%size
	const n = 2*1000 + 537 // two full blocks of the lowered limit plus a remainder

	// Point to point, blocking and nonblocking, into a larger buffer.
	send := make([]int32, n)
	for i := range send {
		send[i] = int32(rank*10000 + i)
	}
	recv := make([]int32, n+2000)
	rr, err := mpi.Irecv(w, recv, prev, 50)
	must(err, "Irecv")
	must(mpi.Send(w, send, next, 50), "Send")
	st, err := rr.Wait()
	must(err, "Wait")
	if st.Elems(4) != n || st.Count != 4*n {
		failf("large Irecv status %+v, want %d elements", st, n)
	}
	checkRun("p2p", recv[:n], prev)
	if recv[n] != 0 {
		failf("p2p wrote past the message: recv[%d] = %d", n, recv[n])
	}
	sr, err := mpi.Isend(w, send, next, 51)
	must(err, "Isend")
	clear(recv)
	_, err = mpi.Recv(w, recv[:n], prev, 51)
	must(err, "Recv")
	must(mpi.Waitall([]*mpi.Request{sr}), "Waitall")
	checkRun("p2p blocking", recv[:n], prev)

	// Collectives.
	b := make([]int32, n)
	if rank == 0 {
		copy(b, send)
	}
	must(mpi.Bcast(w, b, 0), "Bcast")
	checkRun("Bcast", b, 0)
	all := make([]int32, n*size)
	must(mpi.Allgather(w, send, all), "Allgather")
	for r := range size {
		checkRun("Allgather", all[r*n:(r+1)*n], r)
	}
	g := make([]int32, n*size)
	must(mpi.Gather(w, send, g, 0), "Gather")
	if rank == 0 {
		for r := range size {
			checkRun("Gather", g[r*n:(r+1)*n], r)
		}
	}
	counts := make([]int, size)
	for r := range counts {
		counts[r] = n - r*400
	}
	agv := make([]int32, n*size)
	must(mpi.Allgatherv(w, send[:counts[rank]], agv, counts), "Allgatherv")
	off := 0
	for r := range size {
		checkRun("Allgatherv", agv[off:off+counts[r]], r)
		off += counts[r]
	}
	red := make([]int64, n)
	one := make([]int64, n)
	for i := range one {
		one[i] = int64(i + rank)
	}
	must(mpi.AllreduceInt64(w, one, red, mpi.Sum), "AllreduceInt64")
	for i, v := range red {
		if want := int64(size*i + size*(size-1)/2); v != want {
			failf("Allreduce: red[%d] = %d, want %d", i, v, want)
			break
		}
	}

	// A subarray with dimensions and counts above the limit.
	sizes := []int64{3, 2100, 4}
	counts3 := []int64{2, 2050, 3}
	starts := []int64{1, 30, 1}
	dt, err := mpi.NewSubarray(2, sizes, counts3, starts)
	must(err, "NewSubarray")
	defer dt.Free()
	if dt.Size() != 2*2*2050*3 || dt.Extent() > 2*3*2100*4 {
		failf("large subarray size %d extent %d", dt.Size(), dt.Extent())
	}
	arr := make([]uint16, 3*2100*4)
	for i := range arr {
		arr[i] = uint16(rank*7 + i)
	}
	got := make([]uint16, len(arr))
	rq, err := mpi.IrecvType(w, asBytes(got), dt, prev, 52)
	must(err, "IrecvType")
	must(mpi.SendType(w, asBytes(arr), dt, next, 52), "SendType")
	_, err = rq.Wait()
	must(err, "Wait")
	bad := 0
	for i := range sizes[0] {
		for j := range sizes[1] {
			for k := range sizes[2] {
				l := (i*sizes[1]+j)*sizes[2] + k
				in := i >= starts[0] && i < starts[0]+counts3[0] && j >= starts[1] && j < starts[1]+counts3[1] && k >= starts[2] && k < starts[2]+counts3[2]
				want := uint16(0)
				if in {
					want = uint16(prev*7 + int(l))
				}
				if got[l] != want && bad < 5 {
					bad++
					failf("large subarray [%d,%d,%d] = %d, want %d", i, j, k, got[l], want)
				}
			}
		}
	}
}

// checkRun checks that got holds rank*10000+i at each index i.
func checkRun(what string, got []int32, from int) {
	for i, v := range got {
		if v != int32(from*10000+i) {
			failf("%s: element %d from rank %d = %d, want %d", what, i, from, v, from*10000+i)
			return
		}
	}
}
