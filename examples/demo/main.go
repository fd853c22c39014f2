// Command demo runs the array-coupling example end to end (`make demo`):
// it builds examples/heat and examples/analyze, writes a dtf config, and
// launches
//
//	mpirun -np 4 heat : -np 3 analyze
//
// heat solves 2-D heat diffusion on 2×2 blocks and writes a file per output
// step; analyze reads each as 3 uneven row bands and verifies statistics
// against the writer's checksum. With -mode transfer (default) the arrays
// move by MPI messages and no file is written; with -mode file the same
// programs write real netCDF files, which the demo checks with ncvalidator.
//
// In transfer mode every step file repeats the first one's I/O pattern, so
// replay serves all but the first without matching; the demo checks that in
// the dtf statistics it keeps (-stats), which `couplet stats` then tabulates.
// The exit status is non-zero when anything fails.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/couplet-hpc/couplet/dtf/config"
	_ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name
)

func main() {
	mode := flag.String("mode", "transfer", "coupling mode: transfer | file")
	j := job{writers: 4, readers: 3}
	flag.IntVar(&j.nx, "nx", 512, "grid columns")
	flag.IntVar(&j.ny, "ny", 512, "grid rows")
	flag.IntVar(&j.steps, "steps", 100, "time steps")
	flag.IntVar(&j.every, "every", 20, "write a step file every this many steps")
	flag.BoolVar(&j.explicit, "explicit", false, "explicit epochs: nonblocking gets and dtf.Transfer")
	out := flag.String("out", "", "directory for the step files (default: a new temporary directory)")
	stats := flag.String("stats", "", "transfer mode: keep the dtf statistics in this file (default: a new temporary file)")
	timeout := flag.Duration("timeout", 2*time.Minute, "end the run if it takes longer")
	flag.Parse()
	if err := run(config.FileMode(*mode), j, *out, *stats, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "demo: FAILED:", err)
		os.Exit(1)
	}
}

func run(mode config.FileMode, j job, out, stats string, timeout time.Duration) error {
	if mode != config.ModeTransfer && mode != config.ModeFile {
		return fmt.Errorf("unknown -mode %q (transfer | file)", mode)
	}
	tmp, err := os.MkdirTemp("", "couplet-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if out == "" {
		out = filepath.Join(tmp, "out")
		if mode == config.ModeFile {
			// File mode leaves its files for the user to look at.
			if out, err = os.MkdirTemp("", "couplet-heat-files-"); err != nil {
				return err
			}
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	j.out, _ = filepath.Abs(out)
	fmt.Println("demo: building heat and analyze")
	if j.heat, j.analyze, err = build(tmp); err != nil {
		return err
	}
	if mode == config.ModeFile {
		stats = "" // no transfer epochs to report
	} else if stats, err = keptStats(stats); err != nil {
		return err
	}
	j.config = filepath.Join(tmp, "couple.ini")
	if err := writeConfig(j.config, mode, stats); err != nil {
		return err
	}
	fmt.Printf("demo: mode=%s: mpirun -np %d heat : -np %d analyze (%dx%d grid, %d steps, a file every %d)\n",
		mode, j.writers, j.readers, j.ny, j.nx, j.steps, j.every)
	start := time.Now()
	if err := runJob(j, timeout); err != nil {
		return err
	}
	fmt.Printf("demo: coupled run took %.2f s\n", time.Since(start).Seconds())
	var report []string
	if mode == config.ModeTransfer {
		report, err = checkTransfer(j, stats)
	} else {
		report, err = checkFiles(j)
	}
	for _, line := range report {
		fmt.Println("demo:", line)
	}
	if err != nil {
		return err
	}
	if mode == config.ModeFile {
		fmt.Printf("demo: the step files are in %s\n", j.out)
	} else {
		fmt.Printf("demo: statistics kept in %s (couplet stats FILE -o DIR tabulates and plots them)\n", stats)
	}
	fmt.Printf("demo: OK (mode=%s)\n", mode)
	return nil
}

// keptStats prepares the statistics file the demo keeps: path emptied (dtf
// appends to it), or a new temporary file if path is empty.
func keptStats(path string) (string, error) {
	if path == "" {
		f, err := os.CreateTemp("", "couplet-demo-stats-*.jsonl")
		if err != nil {
			return "", err
		}
		f.Close()
		return filepath.Abs(f.Name())
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		return "", err
	}
	return filepath.Abs(path)
}

// errNoSteps says a run produced nothing to check.
var errNoSteps = errors.New("no output steps")
