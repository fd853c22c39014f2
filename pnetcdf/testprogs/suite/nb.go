package main

import (
	"fmt"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
)

// runNonblocking posts iput, bput and iget requests on several variables,
// waits for them collectively and independently, and cancels one.
func runNonblocking(path string) {
	const nvars = 5
	f, err := pnetcdf.Create(world, path, nc.CLOBBER)
	must(err, "create")
	y, _ := f.DefDim("y", int64(2*nprocs))
	x, _ := f.DefDim("x", nx)
	t, _ := f.DefDim("t", nc.UNLIMITED)
	var ids []int
	for v := 0; v < nvars; v++ {
		id, err := f.DefVar(fmt.Sprintf("v%d", v), nc.FLOAT, []int{y, x})
		must(err, "def var")
		ids = append(ids, id)
	}
	rec, err := f.DefVar("rec", nc.INT, []int{t, x})
	must(err, "def rec")
	cancelled, err := f.DefVar("cancelled", nc.SHORT, []int{y, x})
	must(err, "def cancelled")
	must(pnetcdf.DefVarFill(f, cancelled, false, []int16{-7}), "def var fill")
	must(f.EndDef(), "enddef")

	r0 := int64(2 * rank)
	bufs := make([][]float32, nvars)
	var reqs []int
	for v := range bufs {
		bufs[v] = make([]float32, 2*nx)
		for i := range bufs[v] {
			bufs[v][i] = float32(v*1000) + float32(r0*nx+int64(i))
		}
		var id int
		if v%2 == 0 {
			id, err = pnetcdf.IPutVara(f, ids[v], []int64{r0, 0}, []int64{2, nx}, bufs[v])
		} else {
			id, err = pnetcdf.IPutVarn(f, ids[v], [][]int64{{r0, 0}, {r0 + 1, 0}}, [][]int64{{1, nx}, {1, nx}}, bufs[v])
		}
		must(err, "iput v%d", v)
		reqs = append(reqs, id)
	}
	// bput: the buffer is copied at post time, so it can be reused at once.
	must(f.BufferAttach(2*nx*4), "buffer attach")
	rb := make([]int32, nx)
	for i := range rb {
		rb[i] = int32(rank*100 + i)
	}
	bid, err := pnetcdf.BPutVara(f, rec, []int64{int64(rank), 0}, []int64{1, nx}, rb)
	must(err, "bput")
	for i := range rb {
		rb[i] = -1
	}
	if u, err := f.InqBufferUsage(); err != nil || u != nx*4 {
		mpitest.Fail(rank, "buffer usage %d, %v; want %d", u, err, nx*4)
	}
	_, err = pnetcdf.BPutVara(f, rec, []int64{int64(rank), 0}, []int64{2, nx}, make([]int32, 2*nx))
	wantCode(err, nc.EINSUFFBUF, "bput past the attached buffer")
	wantCode(f.BufferDetach(), nc.EPENDINGBPUT, "detach with a pending bput")

	// A cancelled iput writes nothing: the variable keeps its fill value.
	cid, err := pnetcdf.IPutVara(f, cancelled, []int64{r0, 0}, []int64{2, nx}, make([]int16, 2*nx))
	must(err, "iput cancelled")
	st, err := f.Cancel(1, []int{cid})
	must(err, "cancel")
	if st[0] != nil {
		mpitest.Fail(rank, "cancel status %v", st[0])
	}
	if n, _ := f.InqNReqs(); n != nvars+1 {
		mpitest.Fail(rank, "%d pending requests, want %d", n, nvars+1)
	}
	st, err = f.WaitAll(len(reqs)+2, append(append(reqs, bid), 12345))
	must(err, "wait_all")
	for i, s := range st[:len(reqs)+1] {
		if s != nil {
			mpitest.Fail(rank, "request %d status %v", i, s)
		}
	}
	wantCode(st[len(reqs)+1], nc.EINVAL_REQUEST, "status of an unknown request")
	must(f.BufferDetach(), "buffer detach")
	if n, _ := f.InqDimLen(t); n != int64(nprocs) {
		mpitest.Fail(rank, "numrecs %d after bput, want %d", n, nprocs)
	}
	if sz, _ := f.InqPutSize(); sz != nvars*2*nx*4+nx*4 {
		mpitest.Fail(rank, "put size %d", sz)
	}
	must(f.Close(), "close")

	// Read back with igets in another decomposition, completed by REQ_ALL.
	f, err = pnetcdf.Open(world, path, nc.NOWRITE)
	must(err, "reopen")
	r1 := int64(2 * ((rank + 1) % nprocs))
	got := make([][]float64, nvars)
	for v := range got {
		got[v] = make([]float64, 2*nx)
		_, err := pnetcdf.IGetVara(f, ids[v], []int64{r1, 0}, []int64{2, nx}, got[v])
		must(err, "iget")
	}
	allRec := make([]int32, nprocs*nx)
	_, err = pnetcdf.IGetVar(f, rec, allRec)
	must(err, "iget rec")
	fill := make([]int16, 2*nx)
	_, err = pnetcdf.IGetVara(f, cancelled, []int64{r1, 0}, []int64{2, nx}, fill)
	must(err, "iget cancelled")
	st, err = f.WaitAll(nc.REQ_ALL, nil)
	must(err, "wait_all REQ_ALL")
	if st != nil {
		mpitest.Fail(rank, "REQ_ALL statuses %v", st)
	}
	for v := range got {
		for i := range got[v] {
			if want := float64(v*1000) + float64(r1*nx+int64(i)); got[v][i] != want {
				mpitest.Fail(rank, "v%d element %d: %v want %v", v, i, got[v][i], want)
				break
			}
		}
	}
	for r := 0; r < nprocs; r++ {
		for i := 0; i < nx; i++ {
			if allRec[r*nx+i] != int32(r*100+i) {
				mpitest.Fail(rank, "rec[%d][%d] = %d", r, i, allRec[r*nx+i])
			}
		}
	}
	for i, v := range fill {
		if v != -7 {
			mpitest.Fail(rank, "cancelled element %d is %d, want the fill value -7", i, v)
			break
		}
	}
	if sz, _ := f.InqGetSize(); sz != nvars*2*nx*4+int64(nprocs)*nx*4+2*nx*2 {
		mpitest.Fail(rank, "get size %d", sz)
	}
	must(f.Close(), "close")
}
