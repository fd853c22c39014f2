// Command heat is a 2-D heat-diffusion solver: explicit finite differences
// on a block decomposition over a 2-D process grid, with halo exchange on
// the component's communicator. Every -every steps it writes the
// temperature T (double), the gradient magnitude flux (float) and the step
// (int64 scalar) to OUTDIR/heat_NNNN.nc through pnetcdf, with a checksum of
// the global field as global attributes.
//
// With -config (or DTF_INI_FILE) it runs as a dtf component, normally
// launched as `mpirun -np 4 heat -config c.ini : -np 3 analyze -config c.ini`;
// whether the files reach the reader by messages or on disk is then the
// config's business. Without a config it writes plain files.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/couplet-hpc/couplet/examples/heat/heatfile"
	_ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name
)

// MPI below THREAD_MULTIPLE wants its calls from the thread that
// initialised it: keep main on one OS thread.
func init() { runtime.LockOSThread() }

func main() {
	var o options
	flag.Int64Var(&o.nx, "nx", 512, "grid columns")
	flag.Int64Var(&o.ny, "ny", 512, "grid rows")
	flag.IntVar(&o.steps, "steps", 100, "time steps")
	flag.IntVar(&o.every, "every", 20, "write a file every this many steps")
	flag.StringVar(&o.dir, "out", ".", "output directory")
	flag.StringVar(&o.config, "config", "", "dtf config file (default: none, plain files)")
	flag.BoolVar(&o.explicit, "explicit", false, "end each coupled file's epoch with dtf.Transfer (the reader must use -explicit too)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "heat:", err)
		os.Exit(1)
	}
}

// options are the command-line settings.
type options struct {
	nx, ny       int64
	steps, every int
	dir, config  string
	explicit     bool
}

func run(o options) error {
	if o.nx < 3 || o.ny < 3 || o.steps < 0 || o.every <= 0 {
		return fmt.Errorf("bad sizes: -nx %d -ny %d -steps %d -every %d", o.nx, o.ny, o.steps, o.every)
	}
	comm, finish, err := heatfile.Join(o.config)
	if err != nil {
		return err
	}
	g, err := newGrid(comm, o.ny, o.nx)
	if err == nil {
		err = simulate(g, o)
	}
	if err != nil {
		// Exit without finalising: mpirun then ends the other ranks, which
		// may be blocked in a collective this rank will never join.
		return err
	}
	return finish()
}

// simulate runs the time loop and writes the output steps.
func simulate(g *grid, o options) error {
	rank := g.comm.Rank()
	if rank == 0 {
		fmt.Printf("heat: %dx%d grid on %dx%d ranks, %d steps, a file every %d steps\n",
			g.ny, g.nx, g.py, g.px, o.steps, o.every)
	}
	g.initial()
	start := time.Now()
	var ioTime time.Duration
	for step := 1; step <= o.steps; step++ {
		if err := g.exchange(); err != nil {
			return err
		}
		g.step()
		if step%o.every != 0 {
			continue
		}
		path := heatfile.FileName(o.dir, step)
		s, err := g.snapshot(path, int64(step))
		if err != nil {
			return err
		}
		t0 := time.Now()
		if err := g.write(s, o.explicit); err != nil {
			return err
		}
		dt := time.Since(t0)
		ioTime += dt
		if rank == 0 {
			fmt.Printf("heat: step %04d wrote %s: T sum=%.6e min=%.4g max=%.4g (%.1f ms)\n",
				step, path, s.check.Sum, s.check.Min, s.check.Max, ms(dt))
		}
	}
	if rank == 0 {
		fmt.Printf("heat: done in %.2f s (%.2f s in output)\n", time.Since(start).Seconds(), ioTime.Seconds())
	}
	return nil
}

// ms converts a duration to milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }
