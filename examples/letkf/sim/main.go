// Command sim is the ensemble model of the letkf example (see package
// letkf): -member members, each on its own sub-communicator with a 2-D
// process grid, write a history and a first-guess analysis file per cycle and
// read back the analysis that da computed.
//
//	mpirun -np 4 sim -cfg letkf.ini -member 2 : -np 2 da -cfg letkf.ini -member 2
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
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
	mem              bool
	cfg, dir, prc    string
	members, cycles  int
	nvars            int
	imax, jmax, kmax int64
}

func main() {
	var o options
	flag.StringVar(&o.cfg, "cfg", "letkf.ini", "dtf config (DTF_INI_FILE overrides it)")
	flag.StringVar(&o.dir, "dir", ".", "directory of the member directories")
	flag.StringVar(&o.prc, "prc", "", "process grid of a member, PYxPX (default: most square)")
	flag.IntVar(&o.members, "member", 2, "ensemble members")
	flag.IntVar(&o.cycles, "cycles", 4, "assimilation cycles")
	flag.IntVar(&o.nvars, "nvars", 20, "3-D variables per file")
	flag.Int64Var(&o.imax, "imax", 8, "i points per rank")
	flag.Int64Var(&o.jmax, "jmax", 6, "j points per rank")
	flag.Int64Var(&o.kmax, "kmax", 4, "k levels")
	flag.BoolVar(&o.mem, "mem", false, "report the largest live heap and resident set of any rank every cycle")
	flag.Parse()
	if err := dtf.Init(o.cfg, ""); err != nil {
		mpitest.Fatal(-1, "sim: %v", err)
	}
	world := mpi.World().Rank()
	if err := run(o); err != nil {
		// Exiting without finalize makes mpirun end the whole job
		// rather than leave the other ranks waiting.
		mpitest.Fatal(world, "sim: %v", err)
	}
	if err := dtf.Finalize(); err != nil {
		mpitest.Fatal(world, "sim: finalize: %v", err)
	}
	mpitest.Exit()
}

// member is this rank's place in the ensemble.
type member struct {
	m    int      // member index
	comm mpi.Comm // the member's sub-communicator
	dom  [3]int64 // the member's (k, j, i) extent
	blk  letkf.Box
}

func run(o options) error {
	if name := dtf.ComponentName(); name != "sim" {
		return fmt.Errorf("running as component %q: sim must be the config's component \"sim\"", name)
	}
	comm := dtf.Comm()
	size, rank := comm.Size(), comm.Rank()
	switch {
	case o.members < 1 || size%o.members != 0:
		return fmt.Errorf("%d ranks do not split into %d members", size, o.members)
	case o.nvars < 1 || o.cycles < 1 || o.imax < 1 || o.jmax < 1 || o.kmax < 1:
		return fmt.Errorf("bad sizes: -nvars %d -cycles %d -imax %d -jmax %d -kmax %d", o.nvars, o.cycles, o.imax, o.jmax, o.kmax)
	}
	per := size / o.members
	py, px, err := letkf.Grid(per, o.prc)
	if err != nil {
		return err
	}
	me := member{m: rank / per, dom: letkf.Domain(py, px, o.imax, o.jmax, o.kmax)}
	if me.comm, err = comm.Split(me.m, rank); err != nil {
		return err
	}
	defer me.comm.Free()
	me.blk = letkf.SimBlock(me.comm.Rank(), px, o.imax, o.jmax, o.kmax)
	if me.comm.Rank() == 0 {
		if err := os.MkdirAll(letkf.MemberDir(o.dir, me.m), 0o755); err != nil {
			return err
		}
	}
	if rank == 0 {
		fmt.Printf("letkf sim: %d members of %d ranks (%dx%d), domain %v, %d variables per file, %d cycles\n",
			o.members, per, py, px, me.dom, o.nvars, o.cycles)
	}

	// mirror holds every member's first guess on this rank's block, so the
	// analysis da sends back can be checked bit for bit; state is this
	// member's own first guess, always equal to mirror[me.m].
	mirror := make([][][]float32, o.members)
	for m := range mirror {
		mirror[m] = make([][]float32, o.nvars)
		for v := range mirror[m] {
			mirror[m][v] = letkf.InitialField(m, v, me.blk)
		}
	}
	state := mirror[me.m]
	for c := 0; c < o.cycles; c++ {
		start := time.Now()
		got, sum, io, err := cycle(o, me, c, state)
		if err != nil {
			return fmt.Errorf("member %d cycle %d: %w", me.m, c, err)
		}
		mirror = expected(mirror, me.blk, c)
		var errs []error
		for v := range got {
			errs = append(errs, letkf.Compare(fmt.Sprintf("cycle %d analysis %s of member %d", c, letkf.AnalVar(v), me.m), me.blk, got[v], mirror[me.m][v]))
		}
		if err := letkf.Agree(comm, errors.Join(errs...)); err != nil {
			return err
		}
		state = got
		line := fmt.Sprintf("letkf sim cycle %d: verified the analysis of %d members x %d variables (coupled I/O %.1f ms)",
			c, o.members, o.nvars, float64(io.Microseconds())/1000)
		if err := letkf.Report(comm, line, sum, start, o.mem); err != nil {
			return err
		}
	}
	return nil
}

// cycle writes this cycle's forecast and first guess and returns the
// analysis read back, with a checksum of what was read and the time spent
// in coupled I/O calls (create to close of the three sessions).
func cycle(o options, me member, c int, guess [][]float32) (anal [][]float32, sum uint64, io time.Duration, err error) {
	hist := make([][]float32, o.nvars)
	for v := range hist {
		hist[v] = letkf.Forecast(guess[v], me.m, v, c, me.blk)
	}
	start := time.Now()
	defer func() { io = time.Since(start) }()
	if err := writeFile(me, letkf.HistPath(o.dir, me.m, c), letkf.HistVar, hist, letkf.ForecastTime(c)); err != nil {
		return nil, 0, 0, fmt.Errorf("history: %w", err)
	}
	if err := writeFile(me, letkf.AnalPath(o.dir, me.m, c), letkf.AnalVar, guess, letkf.ForecastTime(c)); err != nil {
		return nil, 0, 0, fmt.Errorf("first guess: %w", err)
	}
	anal, sum, err = readAnalysis(me, letkf.AnalPath(o.dir, me.m, c), o.nvars, letkf.AnalysisTime(c))
	return anal, sum, 0, err
}

// writeFile creates path on the member's communicator and writes fields
// over the rank's block the way SCALE does: even variables with iput_vara,
// odd ones with bput_vara through an attached buffer, the scalar time with
// put_var1, everything completed by one wait_all.
func writeFile(me member, path string, name func(int) string, fields [][]float32, t float64) error {
	f, err := pnetcdf.Create(me.comm, path, nc.CLOBBER|nc.BIT64_DATA)
	if err != nil {
		return err
	}
	dims := make([]int, 3)
	for d, n := range []string{"k", "j", "i"} {
		if dims[d], err = f.DefDim(n, me.dom[d]); err != nil {
			return err
		}
	}
	for v := range fields {
		if _, err := f.DefVar(name(v), nc.FLOAT, dims); err != nil {
			return err
		}
	}
	tv, err := f.DefVar("time", nc.DOUBLE, nil)
	if err != nil {
		return err
	}
	if err := f.EndDef(); err != nil {
		return err
	}
	if nb := int64(len(fields)/2) * me.blk.Len() * 4; nb > 0 {
		if err := f.BufferAttach(nb); err != nil {
			return err
		}
	}
	for v, x := range fields {
		if v%2 == 0 {
			_, err = pnetcdf.IPutVara(f, v, me.blk.StartSlice(), me.blk.CountSlice(), x)
		} else {
			_, err = pnetcdf.BPutVara(f, v, me.blk.StartSlice(), me.blk.CountSlice(), x)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name(v), err)
		}
	}
	if err := pnetcdf.PutVar1All(f, tv, nil, []float64{t}); err != nil {
		return fmt.Errorf("time: %w", err)
	}
	if _, err := f.WaitAll(nc.REQ_ALL, nil); err != nil {
		return err
	}
	if nb := int64(len(fields)/2) * me.blk.Len() * 4; nb > 0 {
		if err := f.BufferDetach(); err != nil {
			return err
		}
	}
	return f.Close()
}

// readAnalysis opens the analysis file for da's session and reads the
// rank's block of every variable and the time with iget_vara + wait_all.
func readAnalysis(me member, path string, nvars int, wantTime float64) ([][]float32, uint64, error) {
	f, err := pnetcdf.Open(me.comm, path, nc.NOWRITE)
	if err != nil {
		return nil, 0, fmt.Errorf("analysis: %w", err)
	}
	if n, err := f.InqNVars(); err != nil || n != nvars+1 {
		return nil, 0, fmt.Errorf("analysis has %d variables (%v), want %d", n, err, nvars+1)
	}
	got := make([][]float32, nvars)
	for v := range got {
		got[v] = make([]float32, me.blk.Len())
		if _, err := pnetcdf.IGetVara(f, v, me.blk.StartSlice(), me.blk.CountSlice(), got[v]); err != nil {
			return nil, 0, fmt.Errorf("analysis %s: %w", letkf.AnalVar(v), err)
		}
	}
	t := []float64{-1}
	if _, err := pnetcdf.IGetVara(f, nvars, nil, nil, t); err != nil {
		return nil, 0, fmt.Errorf("analysis time: %w", err)
	}
	if _, err := f.WaitAll(nc.REQ_ALL, nil); err != nil {
		return nil, 0, fmt.Errorf("analysis: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, 0, fmt.Errorf("analysis: %w", err)
	}
	if t[0] != wantTime {
		return nil, 0, fmt.Errorf("analysis time is %v, want %v", t[0], wantTime)
	}
	sum := letkf.NewChecksum()
	for _, x := range got {
		sum.Float32s(x)
	}
	sum.Float64(t[0])
	return got, sum.Sum(), nil
}

// expected advances the ensemble mirror by cycle c the way da does: every
// member's forecast, then each first guess relaxed toward their mean.
func expected(mirror [][][]float32, b letkf.Box, c int) [][][]float32 {
	next := make([][][]float32, len(mirror))
	for m := range next {
		next[m] = make([][]float32, len(mirror[m]))
	}
	for v := range mirror[0] {
		fc := make([][]float32, len(mirror))
		for m := range mirror {
			fc[m] = letkf.Forecast(mirror[m][v], m, v, c, b)
		}
		for m := range mirror {
			next[m][v] = letkf.Relax(mirror[m][v], fc)
		}
	}
	return next
}
