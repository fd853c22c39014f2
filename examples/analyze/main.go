// Command analyze reads the step files of examples/heat with its own
// decomposition (bands of whole rows, split as evenly as possible, so 3
// readers of a 2×2-block writer each need data from several writers),
// computes statistics of the temperature with gonum, and verifies them
// against the checksum the writer stored as global attributes.
//
// Per step rank 0 prints
//
//	step 0020: mean=... std=... min=... max=... verification OK (3.1 MB in 4.2 ms, 0.740 GB/s)
//
// and at the end "verification OK: N steps, X MB moved, Y GB/s", or
// "verification FAILED: ..." with exit status 1.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/couplet-hpc/couplet/examples/heat/heatfile"
	"github.com/couplet-hpc/couplet/mpi"
	_ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name
)

// MPI below THREAD_MULTIPLE wants its calls from the thread that
// initialised it: keep main on one OS thread.
func init() { runtime.LockOSThread() }

func main() {
	var o options
	flag.IntVar(&o.steps, "steps", 100, "time steps of the heat run")
	flag.IntVar(&o.every, "every", 20, "the heat run writes a file every this many steps")
	flag.StringVar(&o.dir, "out", ".", "directory of the step files")
	flag.StringVar(&o.config, "config", "", "dtf config file (default: none, plain files)")
	flag.BoolVar(&o.explicit, "explicit", false, "nonblocking gets completed by dtf.Transfer and WaitAll (heat must use -explicit too)")
	flag.Parse()
	ok, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "analyze:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

// options are the command-line settings.
type options struct {
	steps, every int
	dir, config  string
	explicit     bool
}

// run reads and verifies every step; ok is false when verification failed.
func run(o options) (ok bool, err error) {
	steps := heatfile.OutputSteps(o.steps, o.every)
	if len(steps) == 0 {
		return false, fmt.Errorf("no output steps in -steps %d -every %d", o.steps, o.every)
	}
	comm, finish, err := heatfile.Join(o.config)
	if err != nil {
		return false, err
	}
	ok, err = analyseAll(comm, o, steps)
	if err != nil {
		// Exit without finalising: mpirun then ends the other ranks.
		return false, err
	}
	return ok, finish()
}

// analyseAll reads, analyses and verifies each step file in turn. Every rank
// reaches the same verdict, since the checks use reduced values.
func analyseAll(comm mpi.Comm, o options, steps []int) (bool, error) {
	rank := comm.Rank()
	var bytes float64
	var busy time.Duration
	failed := 0
	for _, step := range steps {
		path := heatfile.FileName(o.dir, step)
		s, err := readStep(comm, path, o.explicit)
		if err != nil {
			return false, err
		}
		fs, err := analyse(comm, s)
		if err != nil {
			return false, err
		}
		// The step's rate counts every rank's bytes over the slowest rank's time.
		io := make([]float64, 2)
		if err := mpi.AllreduceFloat64(comm, []float64{float64(s.bytes)}, io[:1], mpi.Sum); err != nil {
			return false, err
		}
		if err := mpi.AllreduceFloat64(comm, []float64{s.read.Seconds()}, io[1:], mpi.Max); err != nil {
			return false, err
		}
		bytes += io[0]
		busy += time.Duration(io[1] * float64(time.Second))
		verdict := "verification OK"
		if bad := verify(fs, s, step); len(bad) > 0 {
			failed++
			verdict = "verification FAILED: " + strings.Join(bad, "; ")
		}
		if rank == 0 {
			fmt.Printf("step %04d: mean=%.6g std=%.6g min=%.6g max=%.6g %s (%.1f MB in %.1f ms, %.3f GB/s)\n",
				step, fs.mean, fs.std, fs.check.Min, fs.check.Max, verdict,
				io[0]/1e6, io[1]*1e3, io[0]/1e9/io[1])
		}
	}
	if rank == 0 {
		rate := bytes / 1e9 / busy.Seconds() // SI GB/s, as everywhere in couplet
		if failed > 0 {
			fmt.Printf("verification FAILED: %d of %d steps, %.1f MB moved, %.3f GB/s\n", failed, len(steps), bytes/1e6, rate)
		} else {
			fmt.Printf("verification OK: %d steps, %.1f MB moved, %.3f GB/s\n", len(steps), bytes/1e6, rate)
		}
	}
	return failed == 0, nil
}
