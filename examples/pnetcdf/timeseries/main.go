// Command timeseries appends one time step per collective write to a record
// variable (each rank owns a part of a 1-D field), records the step's time in
// a 1-D record variable, then reopens the file, checks the record count and
// reads the whole history of another rank's part.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
	_ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name
)

func field(t, x int64) float32 { return float32(math.Sin(float64(x)/10 + float64(t))) }

func run(path string, steps, local int64) error {
	w := mpi.World()
	rank, np := int64(w.Rank()), int64(w.Size())
	f, err := pnetcdf.Create(w, path, nc.CLOBBER)
	if err != nil {
		return err
	}
	td, _ := f.DefDim("time", nc.UNLIMITED)
	xd, _ := f.DefDim("x", local*np)
	tv, err := f.DefVar("time", nc.DOUBLE, []int{td})
	if err != nil {
		return err
	}
	uv, err := f.DefVar("u", nc.FLOAT, []int{td, xd})
	if err != nil {
		return err
	}
	f.PutAttText(tv, "units", "seconds")
	if err := f.EndDef(); err != nil {
		return err
	}
	buf := make([]float32, local)
	for t := int64(0); t < steps; t++ {
		for i := range buf {
			buf[i] = field(t, rank*local+int64(i))
		}
		if err := pnetcdf.PutVaraAll(f, uv, []int64{t, rank * local}, []int64{1, local}, buf); err != nil {
			return err
		}
		// Only rank 0 has a time value to write; the others join with an empty request.
		var cnt int64
		if rank == 0 {
			cnt = 1
		}
		if err := pnetcdf.PutVaraAll(f, tv, []int64{t}, []int64{cnt}, []float64{float64(t) * 0.5}); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}

	f, err = pnetcdf.Open(w, path, nc.NOWRITE)
	if err != nil {
		return err
	}
	defer f.Close()
	if n, err := f.InqDimLen(td); err != nil || n != steps {
		return fmt.Errorf("record count %d (%v), want %d", n, err, steps)
	}
	other := (rank + 1) % np
	hist := make([]float32, steps*local)
	if err := pnetcdf.GetVaraAll(f, uv, []int64{0, other * local}, []int64{steps, local}, hist); err != nil {
		return err
	}
	for t := int64(0); t < steps; t++ {
		for i := int64(0); i < local; i++ {
			if got, want := hist[t*local+i], field(t, other*local+i); got != want {
				return fmt.Errorf("u[%d][%d] = %v, want %v", t, other*local+i, got, want)
			}
		}
	}
	times := make([]float64, steps)
	if err := pnetcdf.GetVarAll(f, tv, times); err != nil {
		return err
	}
	if times[steps-1] != float64(steps-1)*0.5 {
		return fmt.Errorf("time = %v", times)
	}
	fmt.Printf("rank %d: %d steps verified for x in [%d,%d)\n", rank, steps, other*local, (other+1)*local)
	return nil
}

func main() {
	path := flag.String("o", "timeseries.nc", "output file")
	steps := flag.Int64("steps", 10, "time steps")
	local := flag.Int64("local", 16, "points per rank")
	flag.Parse()
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err := run(*path, *steps, *local)
	mpi.Finalize()
	if err != nil {
		fmt.Fprintln(os.Stderr, "timeseries:", err)
		os.Exit(1)
	}
}
