package main

import (
	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
)

// runRecords grows a record variable collectively, then independently from
// rank 0 only, and reads it back with rows shifted one rank over.
func runRecords(path string) {
	const nt = 3
	f, err := pnetcdf.Create(world, path, nc.CLOBBER|nc.BIT64_OFFSET)
	must(err, "create")
	tdim, err := f.DefDim("time", nc.UNLIMITED)
	must(err, "def time")
	ydim, err := f.DefDim("y", int64(2*nprocs))
	must(err, "def y")
	xdim, err := f.DefDim("x", nx)
	must(err, "def x")
	temp, err := f.DefVar("temp", nc.DOUBLE, []int{tdim, ydim, xdim})
	must(err, "def temp")
	step, err := f.DefVar("step", nc.INT, []int{tdim})
	must(err, "def step")
	_, err = f.DefDim("t2", nc.UNLIMITED)
	wantCode(err, nc.EUNLIMIT, "second record dimension")
	_, err = f.DefVar("bad", nc.INT, []int{ydim, tdim})
	wantCode(err, nc.EUNLIMPOS, "record dimension not first")
	must(f.EndDef(), "enddef")

	val := func(t, k int64) float64 { return float64(t*1000 + k) }
	r0 := int64(2 * rank)
	for t := int64(0); t < nt; t++ {
		b := make([]float64, 2*nx)
		for i := range b {
			b[i] = val(t, r0*nx+int64(i))
		}
		must(pnetcdf.PutVaraAll(f, temp, []int64{t, r0, 0}, []int64{1, 2, nx}, b), "put record %d", t)
		n, err := f.InqDimLen(tdim)
		must(err, "inq numrecs")
		if n != t+1 {
			mpitest.Fail(rank, "after record %d numrecs is %d", t, n)
		}
	}
	// Record nt is written by rank 0 alone, independently.
	must(f.BeginIndepData(), "begin indep")
	if rank == 0 {
		all := make([]float64, 2*int64(nprocs)*nx)
		for i := range all {
			all[i] = val(nt, int64(i))
		}
		must(pnetcdf.PutVara(f, temp, []int64{nt, 0, 0}, []int64{1, int64(2 * nprocs), nx}, all), "indep record")
		steps := []int32{0, 10, 20, 30}
		must(pnetcdf.PutVara(f, step, []int64{0}, []int64{nt + 1}, steps), "put steps")
	}
	must(f.EndIndepData(), "end indep")
	n, err := f.InqDimLen(tdim)
	must(err, "inq numrecs")
	if n != nt+1 {
		mpitest.Fail(rank, "after independent record numrecs is %d, want %d", n, nt+1)
	}
	must(f.Close(), "close")

	f, err = pnetcdf.Open(world, path, nc.NOWRITE)
	must(err, "reopen")
	if fm, _ := f.InqFormat(); fm != nc.Format64BitOffst {
		mpitest.Fail(rank, "format %v", fm)
	}
	if n, _ := f.InqDimLen(tdim); n != nt+1 {
		mpitest.Fail(rank, "reopened numrecs %d", n)
	}
	r1 := int64(2 * ((rank + 1) % nprocs))
	b := make([]float64, (nt+1)*2*nx)
	must(pnetcdf.GetVaraAll(f, temp, []int64{0, r1, 0}, []int64{nt + 1, 2, nx}, b), "get records")
	for t := int64(0); t <= nt; t++ {
		for i := int64(0); i < 2*nx; i++ {
			if got, want := b[t*2*nx+i], val(t, r1*nx+i); got != want {
				mpitest.Fail(rank, "record %d element %d: %v want %v", t, i, got, want)
				return
			}
		}
	}
	steps := make([]int64, nt+1) // read int as int64
	must(pnetcdf.GetVarAll(f, step, steps), "get steps")
	if steps[3] != 30 {
		mpitest.Fail(rank, "steps %v", steps)
	}
	// Reads past the record count fail as in PnetCDF.
	one := make([]float64, 2*nx)
	err = pnetcdf.GetVaraAll(f, temp, []int64{nt + 1, r1, 0}, []int64{1, 2, nx}, one)
	wantCode(err, nc.EINVALCOORDS, "read past numrecs")
	err = pnetcdf.GetVaraAll(f, temp, []int64{nt, r1, 0}, []int64{2, 2, nx}, make([]float64, 4*nx))
	wantCode(err, nc.EEDGE, "read across numrecs")
	must(f.Close(), "close")
}
