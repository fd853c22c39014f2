// Command bench writes a 3-D float64 variable with a slab decomposition along
// the first dimension and reads it back with one along the last, through
// real files, and prints the time spent: the "exchange through files"
// baseline that coupling must beat.
package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
	_ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name
)

func main() {
	dir := flag.String("dir", ".", "output directory")
	n := flag.Int64("n", 64, "edge of the global n^3 array")
	iters := flag.Int("iters", 1, "write+read rounds")
	flag.Parse()
	if err := mpi.Init(); err != nil {
		mpitest.Fatal(-1, "mpi init: %v", err)
	}
	w := mpi.World()
	rank, np := w.Rank(), int64(w.Size())
	fail := func(err error, what string) {
		if err != nil {
			mpitest.Fatal(rank, "%s: %v", what, err)
		}
	}
	if *n%np != 0 {
		mpitest.Fatal(rank, "n=%d not divisible by %d ranks", *n, np)
	}
	N, slab := *n, *n/np
	r := int64(rank)
	wbuf := make([]float64, slab*N*N) // rows [r*slab, (r+1)*slab) x all x all
	for i := range wbuf {
		wbuf[i] = float64(r*slab*N*N + int64(i))
	}
	rbuf := make([]float64, N*N*slab) // all x all x cols [r*slab, (r+1)*slab)
	var total time.Duration
	for it := 0; it < *iters; it++ {
		path := filepath.Join(*dir, fmt.Sprintf("bench%d.nc", it%2))
		fail(mpi.Barrier(w), "barrier")
		t0 := time.Now()
		f, err := pnetcdf.Create(w, path, nc.CLOBBER|nc.BIT64_DATA)
		fail(err, "create")
		z, _ := f.DefDim("z", N)
		y, _ := f.DefDim("y", N)
		x, _ := f.DefDim("x", N)
		v, err := f.DefVar("a", nc.DOUBLE, []int{z, y, x})
		fail(err, "def var")
		fail(f.EndDef(), "enddef")
		fail(pnetcdf.PutVaraAll(f, v, []int64{r * slab, 0, 0}, []int64{slab, N, N}, wbuf), "put")
		fail(f.Close(), "close")
		f, err = pnetcdf.Open(w, path, nc.NOWRITE)
		fail(err, "open")
		fail(pnetcdf.GetVaraAll(f, v, []int64{0, 0, r * slab}, []int64{N, N, slab}, rbuf), "get")
		fail(f.Close(), "close")
		fail(mpi.Barrier(w), "barrier")
		total += time.Since(t0)
	}
	for i, got := range rbuf { // element (k, j, r*slab+c) holds its flat index
		k, j, c := int64(i)/(N*slab), int64(i)/slab%N, int64(i)%slab
		if want := float64(k*N*N + j*N + r*slab + c); got != want {
			mpitest.Fatal(rank, "element %d: %v want %v", i, got, want)
		}
	}
	if rank == 0 {
		fmt.Printf("BENCH bytes=%d seconds=%.6f\n", 2*8*N*N*N*int64(*iters), total.Seconds())
	}
	fail(mpi.Finalize(), "finalize")
	mpitest.Exit()
}
