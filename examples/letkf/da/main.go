// Command da is the data assimilation of the letkf example (see package
// letkf): one sub-group of ranks per ensemble member reads row slabs of the
// member's history and first-guess files, relaxes the first guess toward the
// ensemble mean of the forecasts, and writes the analysis back into the same
// file in a second session.
//
//	mpirun -np 4 sim -cfg letkf.ini -member 2 : -np 2 da -cfg letkf.ini -member 2
package main

import (
	"errors"
	"flag"
	"fmt"
	"runtime"
	"time"

	"github.com/couplet-hpc/couplet/dtf"
	"github.com/couplet-hpc/couplet/examples/letkf"
	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
	_ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name
)

// MPI calls outside THREAD_MULTIPLE want the thread that initialised it.
func init() { runtime.LockOSThread() }

// options are the command-line settings.
type options struct {
	mem             bool
	cfg, dir        string
	members, cycles int
}

func main() {
	var o options
	flag.StringVar(&o.cfg, "cfg", "letkf.ini", "dtf config (DTF_INI_FILE overrides it)")
	flag.StringVar(&o.dir, "dir", ".", "directory of the member directories")
	flag.IntVar(&o.members, "member", 2, "ensemble members (as given to sim)")
	flag.IntVar(&o.cycles, "cycles", 4, "assimilation cycles (as given to sim)")
	flag.BoolVar(&o.mem, "mem", false, "report the largest live heap and resident set of any rank every cycle")
	flag.Parse()
	if err := dtf.Init(o.cfg, ""); err != nil {
		mpitest.Fatal(-1, "da: %v", err)
	}
	world := mpi.World().Rank()
	if err := run(o); err != nil {
		// Exiting without finalize makes mpirun end the whole job
		// rather than leave the other ranks waiting.
		mpitest.Fatal(world, "da: %v", err)
	}
	if err := dtf.Finalize(); err != nil {
		mpitest.Fatal(world, "da: finalize: %v", err)
	}
	mpitest.Exit()
}

// place is this rank's part of the assimilation.
type place struct {
	m     int      // the member whose files this rank reads
	slab  int      // which slab of the member's domain, of slabs
	slabs int      // ranks per member group
	all   mpi.Comm // the whole component
	group mpi.Comm // the ranks reading member m's files
	ens   mpi.Comm // the ranks holding this slab of every member, in member order
}

func run(o options) error {
	if name := dtf.ComponentName(); name != "da" {
		return fmt.Errorf("running as component %q: da must be the config's component \"da\"", name)
	}
	comm := dtf.Comm()
	size, rank := comm.Size(), comm.Rank()
	if o.members < 1 || size%o.members != 0 || o.cycles < 1 {
		return fmt.Errorf("%d ranks do not split into %d member groups (cycles %d)", size, o.members, o.cycles)
	}
	g := size / o.members
	p := place{m: rank / g, slab: rank % g, slabs: g, all: comm}
	var err error
	if p.group, err = comm.Split(p.m, rank); err != nil {
		return err
	}
	defer p.group.Free()
	if p.ens, err = comm.Split(p.slab, rank); err != nil {
		return err
	}
	defer p.ens.Free()
	if rank == 0 {
		fmt.Printf("letkf da: %d member groups of %d ranks, %d cycles\n", o.members, g, o.cycles)
	}
	var guess [][]float32 // what this rank wrote back last cycle: the member's next first guess
	for c := 0; c < o.cycles; c++ {
		start := time.Now()
		next, line, sum, err := assimilate(o, p, c, guess)
		if err != nil {
			return fmt.Errorf("member %d cycle %d: %w", p.m, c, err)
		}
		guess = next
		if err := letkf.Report(comm, line, sum, start, o.mem); err != nil {
			return err
		}
	}
	return nil
}

// fields is what one file delivered to this rank.
type fields struct {
	dom  [3]int64
	blk  letkf.Box
	vars [][]float32
	time float64
}

// assimilate runs cycle c on this rank: read, check, update, write back. It
// returns the analysis it wrote, the cycle's report line and a checksum of
// what it read.
func assimilate(o options, p place, c int, guess [][]float32) ([][]float32, string, uint64, error) {
	hist, err := readFile(p, letkf.HistPath(o.dir, p.m, c), nil)
	if err != nil {
		return nil, "", 0, fmt.Errorf("history: %w", err)
	}
	anal, err := readFile(p, letkf.AnalPath(o.dir, p.m, c), &hist)
	if err != nil {
		return nil, "", 0, fmt.Errorf("first guess: %w", err)
	}
	nvars := len(hist.vars)
	if guess == nil {
		guess = make([][]float32, nvars)
		for v := range guess {
			guess[v] = letkf.InitialField(p.m, v, hist.blk)
		}
	}
	// What sim must have sent: its first guess is what we wrote back last
	// cycle, its forecast that plus the member's perturbation.
	errs := []error{checkTime("history", hist.time, letkf.ForecastTime(c)), checkTime("first guess", anal.time, letkf.ForecastTime(c))}
	sum := letkf.NewChecksum()
	for v := 0; v < nvars; v++ {
		errs = append(errs,
			letkf.Compare("history "+letkf.HistVar(v), hist.blk, hist.vars[v], letkf.Forecast(guess[v], p.m, v, c, hist.blk)),
			letkf.Compare("first guess "+letkf.AnalVar(v), anal.blk, anal.vars[v], guess[v]))
		sum.Float32s(hist.vars[v])
		sum.Float32s(anal.vars[v])
	}
	sum.Float64(hist.time)
	sum.Float64(anal.time)
	// Every rank agrees before the collectives of the update, so a
	// failed check stops them all instead of leaving them waiting.
	if err := letkf.Agree(p.all, errors.Join(errs...)); err != nil {
		return nil, "", 0, err
	}
	next, err := update(p, hist, anal)
	if err != nil {
		return nil, "", 0, err
	}
	if err := writeBack(p, letkf.AnalPath(o.dir, p.m, c), anal.blk, next, letkf.AnalysisTime(c)); err != nil {
		return nil, "", 0, fmt.Errorf("analysis: %w", err)
	}
	line := fmt.Sprintf("letkf da cycle %d: verified the forecast and first guess of %d members x %d variables", c, o.members, nvars)
	return next, line, sum.Sum(), nil
}

// readFile opens path read-only on the member group, learns the domain and
// variables from the header (they must equal like's, if given) and reads
// this rank's slab of every variable and the time with iget_vara + wait_all.
func readFile(p place, path string, like *fields) (fields, error) {
	var out fields
	f, err := pnetcdf.Open(p.group, path, nc.NOWRITE)
	if err != nil {
		return out, err
	}
	for d := range out.dom {
		if out.dom[d], err = f.InqDimLen(d); err != nil {
			return out, err
		}
	}
	n, err := f.InqNVars()
	if err != nil {
		return out, err
	}
	tv, err := f.InqVarID("time")
	if err != nil || tv != n-1 {
		return out, fmt.Errorf("no scalar time as the last variable (%v)", err)
	}
	switch {
	case like != nil && (out.dom != like.dom || n-1 != len(like.vars)):
		return out, fmt.Errorf("domain %v with %d variables, but the history has %v with %d", out.dom, n-1, like.dom, len(like.vars))
	case out.dom[1] < int64(p.slabs):
		return out, fmt.Errorf("%d j rows cannot be split among %d ranks", out.dom[1], p.slabs)
	}
	out.blk = letkf.Slab(p.slab, p.slabs, out.dom)
	out.vars = make([][]float32, n-1)
	for v := range out.vars {
		out.vars[v] = make([]float32, out.blk.Len())
		if _, err := pnetcdf.IGetVara(f, v, out.blk.StartSlice(), out.blk.CountSlice(), out.vars[v]); err != nil {
			return out, fmt.Errorf("variable %d: %w", v, err)
		}
	}
	t := []float64{-1}
	if _, err := pnetcdf.IGetVara(f, tv, nil, nil, t); err != nil {
		return out, fmt.Errorf("time: %w", err)
	}
	if _, err := f.WaitAll(nc.REQ_ALL, nil); err != nil {
		return out, err
	}
	out.time = t[0]
	return out, f.Close()
}

// update gathers every member's forecast of this slab (one collective over
// the slab's ranks) and relaxes this member's first guess toward their mean.
func update(p place, hist, anal fields) ([][]float32, error) {
	l := int(hist.blk.Len())
	mine := make([]float32, 0, l*len(hist.vars))
	for _, x := range hist.vars {
		mine = append(mine, x...)
	}
	all := make([]float32, len(mine)*p.ens.Size())
	if err := mpi.Allgather(p.ens, mine, all); err != nil {
		return nil, err
	}
	next := make([][]float32, len(anal.vars))
	fc := make([][]float32, p.ens.Size())
	for v := range next {
		for m := range fc {
			off := (m*len(hist.vars) + v) * l
			fc[m] = all[off : off+l]
		}
		next[v] = letkf.Relax(anal.vars[v], fc)
	}
	return next, nil
}

// writeBack reopens the analysis file for writing (da becomes the writer of
// its second session) and writes the analysis with iput_vara, the time with
// put_var1 and one wait_all.
func writeBack(p place, path string, blk letkf.Box, anal [][]float32, t float64) error {
	f, err := pnetcdf.Open(p.group, path, nc.WRITE)
	if err != nil {
		return err
	}
	for v, x := range anal {
		if _, err := pnetcdf.IPutVara(f, v, blk.StartSlice(), blk.CountSlice(), x); err != nil {
			return fmt.Errorf("%s: %w", letkf.AnalVar(v), err)
		}
	}
	if err := pnetcdf.PutVar1All(f, len(anal), nil, []float64{t}); err != nil {
		return fmt.Errorf("time: %w", err)
	}
	if _, err := f.WaitAll(nc.REQ_ALL, nil); err != nil {
		return err
	}
	return f.Close()
}

func checkTime(what string, got, want float64) error {
	if got != want {
		return fmt.Errorf("%s: time is %v, want %v", what, got, want)
	}
	return nil
}
