package main

import (
	"github.com/couplet-hpc/couplet/mpi"
)

// box is a sub-block of a 3-D array: its shape, start and extent.
type box struct{ sizes, starts, counts []int64 }

// idx is the C-order linear index of (i, j, k) in an array of shape s.
func idx(s []int64, i, j, k int64) int64 { return (i*s[1]+j)*s[2] + k }

// subarray sends a sub-block of a 3-D float64 array straight from the
// sender's array into a different position of a differently shaped array on
// the receiver, blocking and nonblocking, and checks every value of the
// receiver's array (the block and the untouched rest).
func subarray(w mpi.Comm, _ []string) {
	size := w.Size()
	next, prev := (rank+1)%size, (rank+size-1)%size
	counts := []int64{3, 4, 5}
	src := box{sizes: []int64{6, 7, 8}, starts: []int64{2, 1, 3}, counts: counts}
	dst := box{sizes: []int64{5, 9, 6}, starts: []int64{1, 4, 0}, counts: counts}

	a := make([]float64, src.sizes[0]*src.sizes[1]*src.sizes[2])
	for i := range a {
		a[i] = float64(rank*100000 + i)
	}
	st, err := mpi.NewSubarray(8, src.sizes, src.counts, src.starts)
	must(err, "NewSubarray src")
	defer st.Free()
	dt, err := mpi.NewSubarray(8, dst.sizes, dst.counts, dst.starts)
	must(err, "NewSubarray dst")
	defer dt.Free()
	if want := int64(3 * 4 * 5 * 8); st.Size() != want || dt.Size() != want {
		failf("Size = %d, %d; want %d", st.Size(), dt.Size(), want)
	}

	for _, nonblock := range []bool{false, true} {
		const sentinel = -1.5
		b := make([]float64, dst.sizes[0]*dst.sizes[1]*dst.sizes[2])
		for i := range b {
			b[i] = sentinel
		}
		if nonblock {
			rr, err := mpi.IrecvType(w, asBytes(b), dt, prev, 40)
			must(err, "IrecvType")
			sr, err := mpi.IsendType(w, asBytes(a), st, next, 40)
			must(err, "IsendType")
			must(mpi.Waitall([]*mpi.Request{rr, sr}), "Waitall")
			s, _ := rr.Wait()
			if s.Count != dt.Size() || s.Source != prev {
				failf("IrecvType status %+v", s)
			}
		} else if rank%2 == 0 {
			must(mpi.SendType(w, asBytes(a), st, next, 40), "SendType")
			_, err = mpi.RecvType(w, asBytes(b), dt, prev, 40)
			must(err, "RecvType")
		} else {
			s, err := mpi.RecvType(w, asBytes(b), dt, prev, 40)
			must(err, "RecvType")
			if s.Count != dt.Size() {
				failf("RecvType count %d, want %d", s.Count, dt.Size())
			}
			must(mpi.SendType(w, asBytes(a), st, next, 40), "SendType")
		}
		bad := 0
		for i := range dst.sizes[0] {
			for j := range dst.sizes[1] {
				for k := range dst.sizes[2] {
					got := b[idx(dst.sizes, i, j, k)]
					want := sentinel
					si, sj, sk := i-dst.starts[0], j-dst.starts[1], k-dst.starts[2]
					if si >= 0 && si < counts[0] && sj >= 0 && sj < counts[1] && sk >= 0 && sk < counts[2] {
						want = float64(prev*100000) + float64(idx(src.sizes, si+src.starts[0], sj+src.starts[1], sk+src.starts[2]))
					}
					if got != want && bad < 5 {
						bad++
						failf("nonblocking=%v: b[%d,%d,%d] = %v, want %v", nonblock, i, j, k, got, want)
					}
				}
			}
		}
	}

	// A buffer shorter than the datatype's extent is an error, not a crash.
	if err := mpi.SendType(w, asBytes(a[:len(a)-1]), st, next, 41); err == nil {
		failf("SendType with a short buffer returned no error")
	}
	if _, err := mpi.IrecvType(w, asBytes(a[:10]), st, prev, 41); err == nil {
		failf("IrecvType with a short buffer returned no error")
	}
	// Bad boxes are rejected before MPI sees them.
	for _, c := range []box{
		{sizes: []int64{4, 4}, counts: []int64{2, 2}, starts: []int64{3, 0}},
		{sizes: []int64{4, 4}, counts: []int64{0, 2}, starts: []int64{0, 0}},
		{sizes: []int64{4, 4}, counts: []int64{2}, starts: []int64{0, 0}},
	} {
		if d, err := mpi.NewSubarray(8, c.sizes, c.counts, c.starts); err == nil {
			d.Free()
			failf("NewSubarray(%v, %v, %v) returned no error", c.sizes, c.counts, c.starts)
		}
	}
}
