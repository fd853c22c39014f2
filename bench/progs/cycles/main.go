// Command cycles is the replay benchmark of `couplet bench` (case 3): one
// MPMD launch `mpirun -np 4 cycles ... : -np 2 cycles ...` whose component
// "w" writes a new coupled file every cycle and whose component "r" reads
// it, the pattern of a data-assimilation cycle. Every cycle moves nvars 3-D
// float64 variables T[z][y][x]: writers hold slabs along y and put each
// variable in -wblocks pieces along z; readers hold slabs along x and get
// each variable one z-plane at a time, so matching has many requests to pair.
//
// Cycles alternate between two file-name patterns the config couples in two
// sections, identical but for replay_io: on_cycle_*.nc (replay_io = 1) and
// off_cycle_*.nc (replay_io = 0). In the same run, replay on and off thus
// take turns on the same workload. Every cycle is timed between world
// barriers (create or open, requests, dtf.Transfer, close) and every value
// is checked. World rank 0 prints one line per cycle:
//
//	CYCLE mode=on cycle=3 bytes=16777216 seconds=0.0123 ok=1
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/couplet-hpc/couplet/dtf"
	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
	_ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name
)

func init() { runtime.LockOSThread() }

var (
	cfgPath = flag.String("cfg", "", "dtf config coupling on_cycle_*.nc (replay) and off_cycle_*.nc (no replay)")
	dir     = flag.String("dir", os.TempDir(), "directory of the coupled file names")
	cycles  = flag.Int("cycles", 6, "cycles per mode (the first of each mode records)")
	nvars   = flag.Int("nvars", 32, "variables per file")
	nz      = flag.Int64("nz", 16, "z extent")
	ny      = flag.Int64("ny", 64, "y extent (a multiple of the writer count)")
	nx      = flag.Int64("nx", 64, "x extent (a multiple of the reader count)")
	wblocks = flag.Int64("wblocks", 4, "puts per variable per writer, along z (divides nz)")
)

type run struct {
	writer       bool
	comm, world  mpi.Comm
	rank, size   int
	start, count []int64 // this rank's block
}

func main() {
	flag.Parse()
	if err := dtf.Init(*cfgPath, ""); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL rank -1:", err)
		os.Exit(1)
	}
	world := mpi.World()
	if err := body(world); err != nil {
		mpitest.Fail(world.Rank(), "%s: %v", dtf.ComponentName(), err)
		mpi.Abort(world, 1)
	}
	if err := dtf.Finalize(); err != nil {
		mpitest.Fail(world.Rank(), "finalize: %v", err)
	}
	mpitest.Exit()
}

func body(world mpi.Comm) error {
	c := dtf.Comm()
	r := &run{writer: dtf.ComponentName() == "w", comm: c, world: world, rank: c.Rank(), size: c.Size()}
	n := int64(r.size)
	if r.writer {
		if *ny%n != 0 || *nz%*wblocks != 0 {
			return fmt.Errorf("ny %d over %d writers, nz %d in %d blocks: not even", *ny, n, *nz, *wblocks)
		}
		r.start = []int64{0, int64(r.rank) * (*ny / n), 0}
		r.count = []int64{*nz, *ny / n, *nx}
	} else {
		if *nx%n != 0 {
			return fmt.Errorf("nx %d over %d readers: not even", *nx, n)
		}
		r.start = []int64{0, 0, int64(r.rank) * (*nx / n)}
		r.count = []int64{*nz, *ny, *nx / n}
	}
	bytes := int64(*nvars) * *nz * *ny * *nx * 8
	for k := 0; k < *cycles; k++ {
		// Alternate which mode goes first, so that drift hits both alike.
		modes := []string{"on", "off"}
		if k%2 == 1 {
			modes[0], modes[1] = modes[1], modes[0]
		}
		for _, m := range modes {
			path := filepath.Join(*dir, fmt.Sprintf("%s_cycle_%03d.nc", m, k))
			if err := mpi.Barrier(world); err != nil {
				return err
			}
			t0 := time.Now()
			var bad int64
			var err error
			if r.writer {
				err = r.write(path, k)
			} else {
				bad, err = r.read(path, k)
			}
			if err != nil {
				return fmt.Errorf("%s cycle %d: %w", m, k, err)
			}
			if err := mpi.Barrier(world); err != nil {
				return err
			}
			secs := time.Since(t0).Seconds()
			all := []int64{0}
			if err := mpi.Allreduce(world, []int64{bad}, all, mpi.Sum); err != nil {
				return err
			}
			if all[0] != 0 {
				return fmt.Errorf("%s cycle %d: readers received %d wrong values", m, k, all[0])
			}
			if world.Rank() == 0 {
				fmt.Printf("CYCLE mode=%s cycle=%d bytes=%d seconds=%.6f ok=1\n", m, k, bytes, secs)
			}
		}
	}
	return nil
}

// value is variable v at (z, y, x) in cycle k: exact in float64.
func value(v int, z, y, x int64, k int) float64 {
	return float64((((int64(v)**nz+z)**ny+y)**nx+x)*16 + int64(k%16))
}

func (r *run) write(path string, k int) error {
	f, err := pnetcdf.Create(r.comm, path, nc.CLOBBER|nc.BIT64_DATA)
	if err != nil {
		return err
	}
	z, err1 := f.DefDim("z", *nz)
	y, err2 := f.DefDim("y", *ny)
	x, err3 := f.DefDim("x", *nx)
	errs := []error{err1, err2, err3}
	for v := 0; v < *nvars; v++ {
		_, err := f.DefVar(fmt.Sprintf("v%02d", v), nc.DOUBLE, []int{z, y, x})
		errs = append(errs, err)
	}
	if err := errors.Join(append(errs, f.EndDef())...); err != nil {
		f.Close()
		return err
	}
	dz := *nz / *wblocks
	// The buffers stay untouched until Transfer returns (buffer_data = 0).
	for v := 0; v < *nvars; v++ {
		for b := int64(0); b < *wblocks; b++ {
			st := []int64{b * dz, r.start[1], r.start[2]}
			ct := []int64{dz, r.count[1], r.count[2]}
			buf := make([]float64, 0, ct[0]*ct[1]*ct[2])
			for zz := st[0]; zz < st[0]+ct[0]; zz++ {
				for yy := st[1]; yy < st[1]+ct[1]; yy++ {
					for xx := st[2]; xx < st[2]+ct[2]; xx++ {
						buf = append(buf, value(v, zz, yy, xx, k))
					}
				}
			}
			if err := pnetcdf.PutVaraAll(f, v, st, ct, buf); err != nil {
				return err
			}
		}
	}
	return errors.Join(dtf.Transfer(path), f.Close())
}

func (r *run) read(path string, k int) (int64, error) {
	f, err := pnetcdf.Open(r.comm, path, nc.NOWRITE)
	if err != nil {
		return 0, err
	}
	plane := r.count[1] * r.count[2]
	bufs := make([][]float64, *nvars)
	for v := range bufs {
		bufs[v] = make([]float64, *nz*plane)
		for zz := int64(0); zz < *nz; zz++ {
			st := []int64{zz, r.start[1], r.start[2]}
			ct := []int64{1, r.count[1], r.count[2]}
			if _, err := pnetcdf.IGetVara(f, v, st, ct, bufs[v][zz*plane:(zz+1)*plane]); err != nil {
				f.Close()
				return 0, err
			}
		}
	}
	if err := dtf.Transfer(path); err != nil {
		f.Close()
		return 0, err
	}
	var bad int64
	for v, buf := range bufs {
		i := 0
		for zz := int64(0); zz < *nz; zz++ {
			for yy := int64(0); yy < *ny; yy++ {
				for xx := r.start[2]; xx < r.start[2]+r.count[2]; xx++ {
					if buf[i] != value(v, zz, yy, xx, k) {
						bad++
					}
					i++
				}
			}
		}
	}
	return bad, f.Close()
}
