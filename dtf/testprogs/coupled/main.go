// Command coupled is the multi-rank helper of dtf's integration tests: a
// writer component "w" and a reader component "r" in one MPMD mpirun exchange
// data through pnetcdf calls on coupled files, and the reader verifies every
// value. The -case flag picks the scenario.
package main

import (
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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
	cfgPath  = flag.String("cfg", "", "dtf config")
	caseArg  = flag.String("case", "decomp", "scenario")
	dir      = flag.String("dir", ".", "directory for coupled file names")
	wgrid    = flag.String("wgrid", "2x2", "writer process grid (rows x cols)")
	rgrid    = flag.String("rgrid", "2x1", "reader process grid")
	ny       = flag.Int64("ny", 13, "global rows")
	nx       = flag.Int64("nx", 11, "global columns")
	cycles   = flag.Int("cycles", 3, "cycles or epochs")
	fill     = flag.Bool("fill", false, "uncovered: expect the fill value instead of an error")
	change   = flag.Int("change", -1, "cycles: from this cycle on the readers use -rgrid2 and the writers add a variable")
	rgrid2   = flag.String("rgrid2", "1x3", "cycles: reader grid after -change")
	flip     = flag.Bool("flip", false, "cycles: the reader writes the file back and the writer reads it (roles flip)")
	nvars    = flag.Int("nvars", 1, "cycles: variables per file")
	explicit = flag.Bool("explicit", false, "cycles: end each file's epoch with dtf.Transfer instead of wait_all")
	split    = flag.Int("split", -1, "cycles: from cycle -change on, only this reader rank changes its pattern (variable 0 in two gets)")
	wsplit   = flag.Int("wsplit", -1, "cycles: from cycle -change on, only this writer rank changes its pattern (variable 0 in two puts)")
	wdelay   = flag.Duration("wdelay", 0, "cycles: the writers sleep this long after their puts, before ending the epoch")
	rdelay   = flag.Duration("rdelay", 0, "cycles: the readers sleep this long after their gets, before waiting")
	twoWaits = flag.Int("twowaits", 0, "cycles: before this cycle the readers wait for their gets in two wait_alls (variable 0, then the rest)")
	epochs   = flag.Int("epochs", 1, "cycles with -explicit: epochs per file (each writes and reads every variable again)")
	closeAt  = flag.Int("closeearly", -1, "cycles with -epochs: from this cycle on the readers close the file after the first epoch")
)

// env is what every scenario gets.
type env struct {
	writer bool
	comm   mpi.Comm
	rank   int
	size   int
}

var cases = map[string]func(env) error{
	"decomp":      caseDecomp,
	"types":       caseTypes,
	"families":    caseFamilies,
	"nonblocking": caseNonblocking,
	"record":      caseRecord,
	"twofiles":    caseTwoFiles,
	"epochs":      caseEpochs,
	"pattern":     casePattern,
	"uncovered":   caseUncovered,
	"cycles":      caseCycles,
}

func main() {
	flag.Parse()
	if err := dtf.Init(*cfgPath, ""); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL rank -1:", err)
		os.Exit(1)
	}
	c := dtf.Comm()
	e := env{writer: dtf.ComponentName() == "w", comm: c, rank: c.Rank(), size: c.Size()}
	world := mpi.World().Rank()
	run, ok := cases[*caseArg]
	if !ok {
		mpitest.Fatal(world, "unknown case %q", *caseArg)
	}
	if err := run(e); err != nil {
		mpitest.Fail(world, "%s %s: %v", dtf.ComponentName(), *caseArg, err)
	}
	if err := dtf.Finalize(); err != nil {
		mpitest.Fail(world, "finalize: %v", err)
	}
	mpitest.Exit()
}

// value is the expected element of variable v at linear index lin, small
// enough for every type.
func value(v int, lin int64) float64 { return float64((lin*7 + int64(v)*3) % 100) }

// block returns this rank's block of an ny x nx array on a PxQ grid, with
// uneven splits.
func block(grid string, rank int, ny, nx int64) (start, count []int64) {
	var p, q int
	fmt.Sscanf(grid, "%dx%d", &p, &q)
	i, j := int64(rank/q), int64(rank%q)
	y0, y1 := i*ny/int64(p), (i+1)*ny/int64(p)
	x0, x1 := j*nx/int64(q), (j+1)*nx/int64(q)
	return []int64{y0, x0}, []int64{y1 - y0, x1 - x0}
}

// fillBlock returns the values of variable v over a 2-D block.
func fillBlock[T nc.Numeric](v int, start, count []int64, nx int64) []T {
	out := make([]T, 0, count[0]*count[1])
	for y := start[0]; y < start[0]+count[0]; y++ {
		for x := start[1]; x < start[1]+count[1]; x++ {
			out = append(out, T(value(v, y*nx+x)))
		}
	}
	return out
}

// checkBlock compares a received block with the expected values.
func checkBlock[T nc.Numeric](what string, v int, start, count []int64, nx int64, got []T) error {
	want := fillBlock[T](v, start, count, nx)
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Errorf("%s: element %d of block %v+%v is %v, want %v", what, i, start, count, got[i], want[i])
		}
	}
	return nil
}

// define creates path with dims y,x and the named variables of type t.
func define(e env, path string, t nc.Type, names ...string) (*pnetcdf.File, error) {
	f, err := pnetcdf.Create(e.comm, path, nc.CLOBBER|nc.BIT64_DATA)
	if err != nil {
		return nil, err
	}
	y, _ := f.DefDim("y", *ny)
	x, _ := f.DefDim("x", *nx)
	for _, n := range names {
		if _, err := f.DefVar(n, t, []int{y, x}); err != nil {
			return nil, err
		}
	}
	return f, f.EndDef()
}

func fileName(n string) string { return filepath.Join(*dir, n) }

// digest prints a hash of what a reader received, so two runs (transfer and
// file mode) can be compared.
func digest(e env, name string, b []byte) {
	h := fnv.New64a()
	h.Write(b)
	fmt.Printf("DIGEST %s rank %d %x\n", name, e.rank, h.Sum64())
}

func caseDecomp(e env) error {
	path := fileName("decomp.nc")
	if e.writer {
		f, err := define(e, path, nc.DOUBLE, "T")
		if err != nil {
			return err
		}
		st, ct := block(*wgrid, e.rank, *ny, *nx)
		if err := pnetcdf.PutVaraAll(f, 0, st, ct, fillBlock[float64](0, st, ct, *nx)); err != nil {
			return err
		}
		return f.Close()
	}
	f, err := pnetcdf.Open(e.comm, path, nc.NOWRITE)
	if err != nil {
		return err
	}
	if _, l, err := f.InqDim(1); err != nil || l != *nx {
		return fmt.Errorf("reader's inquiry: x has length %d (%v), want %d", l, err, *nx)
	}
	st, ct := block(*rgrid, e.rank, *ny, *nx)
	got := make([]float64, ct[0]*ct[1])
	if err := pnetcdf.GetVaraAll(f, 0, st, ct, got); err != nil {
		return err
	}
	digest(e, "T", nc.Bytes(got))
	return errors.Join(checkBlock("T", 0, st, ct, *nx, got), f.Close())
}

func caseTypes(e env) error {
	path := fileName("types.nc")
	names := make([]string, len(nc.AllTypes))
	if e.writer {
		f, err := pnetcdf.Create(e.comm, path, nc.CLOBBER|nc.BIT64_DATA)
		if err != nil {
			return err
		}
		y, _ := f.DefDim("y", *ny)
		x, _ := f.DefDim("x", *nx)
		for i, t := range nc.AllTypes {
			names[i] = t.String()
			if _, err := f.DefVar(names[i], t, []int{y, x}); err != nil {
				return err
			}
		}
		if err := f.EndDef(); err != nil {
			return err
		}
		st, ct := block(*wgrid, e.rank, *ny, *nx)
		for v, t := range nc.AllTypes {
			if err := putTyped(f, v, t, st, ct); err != nil {
				return fmt.Errorf("%s: %w", t, err)
			}
		}
		return f.Close()
	}
	f, err := pnetcdf.Open(e.comm, path, nc.NOWRITE)
	if err != nil {
		return err
	}
	st, ct := block(*rgrid, e.rank, *ny, *nx)
	var errs []error
	for v, t := range nc.AllTypes {
		errs = append(errs, getTyped(f, v, t, st, ct))
	}
	// A double variable read as float: conversion happens on the reader.
	got := make([]float32, ct[0]*ct[1])
	errs = append(errs, pnetcdf.GetVaraAll(f, int(nc.DOUBLE)-1, st, ct, got), checkBlock("double as float", int(nc.DOUBLE)-1, st, ct, *nx, got))
	return errors.Join(append(errs, f.Close())...)
}

func putTyped(f *pnetcdf.File, v int, t nc.Type, st, ct []int64) error {
	switch t {
	case nc.BYTE:
		return pnetcdf.PutVaraAll(f, v, st, ct, fillBlock[int8](v, st, ct, *nx))
	case nc.CHAR:
		b := fillBlock[uint8](v, st, ct, *nx)
		txt := make([]nc.Text, len(b))
		for i := range b {
			txt[i] = nc.Text(b[i])
		}
		return pnetcdf.PutVaraAll(f, v, st, ct, txt)
	case nc.SHORT:
		return pnetcdf.PutVaraAll(f, v, st, ct, fillBlock[int16](v, st, ct, *nx))
	case nc.INT:
		return pnetcdf.PutVaraAll(f, v, st, ct, fillBlock[int32](v, st, ct, *nx))
	case nc.FLOAT:
		return pnetcdf.PutVaraAll(f, v, st, ct, fillBlock[float32](v, st, ct, *nx))
	case nc.DOUBLE:
		return pnetcdf.PutVaraAll(f, v, st, ct, fillBlock[float64](v, st, ct, *nx))
	case nc.UBYTE:
		return pnetcdf.PutVaraAll(f, v, st, ct, fillBlock[uint8](v, st, ct, *nx))
	case nc.USHORT:
		return pnetcdf.PutVaraAll(f, v, st, ct, fillBlock[uint16](v, st, ct, *nx))
	case nc.UINT:
		return pnetcdf.PutVaraAll(f, v, st, ct, fillBlock[uint32](v, st, ct, *nx))
	case nc.INT64:
		return pnetcdf.PutVaraAll(f, v, st, ct, fillBlock[int64](v, st, ct, *nx))
	case nc.UINT64:
		return pnetcdf.PutVaraAll(f, v, st, ct, fillBlock[uint64](v, st, ct, *nx))
	}
	return fmt.Errorf("type %v", t)
}

func getCheck[T nc.Numeric](f *pnetcdf.File, v int, st, ct []int64) error {
	got := make([]T, ct[0]*ct[1])
	if err := pnetcdf.GetVaraAll(f, v, st, ct, got); err != nil {
		return err
	}
	return checkBlock(fmt.Sprintf("var %d", v), v, st, ct, *nx, got)
}

func getTyped(f *pnetcdf.File, v int, t nc.Type, st, ct []int64) error {
	switch t {
	case nc.BYTE:
		return getCheck[int8](f, v, st, ct)
	case nc.CHAR:
		got := make([]nc.Text, ct[0]*ct[1])
		if err := pnetcdf.GetVaraAll(f, v, st, ct, got); err != nil {
			return err
		}
		b := make([]uint8, len(got))
		for i := range got {
			b[i] = uint8(got[i])
		}
		return checkBlock("char", v, st, ct, *nx, b)
	case nc.SHORT:
		return getCheck[int16](f, v, st, ct)
	case nc.INT:
		return getCheck[int32](f, v, st, ct)
	case nc.FLOAT:
		return getCheck[float32](f, v, st, ct)
	case nc.DOUBLE:
		return getCheck[float64](f, v, st, ct)
	case nc.UBYTE:
		return getCheck[uint8](f, v, st, ct)
	case nc.USHORT:
		return getCheck[uint16](f, v, st, ct)
	case nc.UINT:
		return getCheck[uint32](f, v, st, ct)
	case nc.INT64:
		return getCheck[int64](f, v, st, ct)
	case nc.UINT64:
		return getCheck[uint64](f, v, st, ct)
	}
	return fmt.Errorf("type %v", t)
}

// writeT writes variable T (index 0) in the writer's blocks, and a scalar
// (index 1) with put_var1.
func writeT(e env, path string) error {
	f, err := pnetcdf.Create(e.comm, path, nc.CLOBBER|nc.BIT64_DATA)
	if err != nil {
		return err
	}
	y, _ := f.DefDim("y", *ny)
	x, _ := f.DefDim("x", *nx)
	f.DefVar("T", nc.DOUBLE, []int{y, x})
	f.DefVar("scalar", nc.INT64, nil)
	if err := f.EndDef(); err != nil {
		return err
	}
	st, ct := block(*wgrid, e.rank, *ny, *nx)
	if err := pnetcdf.PutVaraAll(f, 0, st, ct, fillBlock[float64](0, st, ct, *nx)); err != nil {
		return err
	}
	if err := pnetcdf.PutVar1All(f, 1, nil, []int64{42}); err != nil {
		return err
	}
	return f.Close()
}

func caseFamilies(e env) error {
	path := fileName("families.nc")
	if e.writer {
		return writeT(e, path)
	}
	f, err := pnetcdf.Open(e.comm, path, nc.NOWRITE)
	if err != nil {
		return err
	}
	N := *nx
	at := func(y, x int64) float64 { return value(0, y*N+x) }
	var errs []error
	expect := func(what string, got []float64, want func(i int) float64) {
		for i := range got {
			if got[i] != want(i) {
				errs = append(errs, fmt.Errorf("%s: element %d = %v, want %v", what, i, got[i], want(i)))
				return
			}
		}
	}
	all := make([]float64, *ny**nx)
	errs = append(errs, pnetcdf.GetVarAll(f, 0, all))
	expect("var", all, func(i int) float64 { return at(int64(i)/N, int64(i)%N) })

	one := make([]float64, 1)
	y1, x1 := int64(e.rank+3)%*ny, int64(e.rank*5+1)%N
	errs = append(errs, pnetcdf.GetVar1All(f, 0, []int64{y1, x1}, one))
	expect("var1", one, func(int) float64 { return at(y1, x1) })

	st, ct := block(*rgrid, e.rank, *ny, *nx)
	blk := make([]float64, ct[0]*ct[1])
	errs = append(errs, pnetcdf.GetVaraAll(f, 0, st, ct, blk))
	expect("vara", blk, func(i int) float64 { return at(st[0]+int64(i)/ct[1], st[1]+int64(i)%ct[1]) })

	// Every other row and every third column, starting at (1, e.rank).
	sst, sct, stride := []int64{1, int64(e.rank)}, []int64{(*ny - 1 + 1) / 2, (N - int64(e.rank) + 2) / 3}, []int64{2, 3}
	strided := make([]float64, sct[0]*sct[1])
	errs = append(errs, pnetcdf.GetVarsAll(f, 0, sst, sct, stride, strided))
	expect("vars", strided, func(i int) float64 {
		return at(sst[0]+int64(i)/sct[1]*2, sst[1]+int64(i)%sct[1]*3)
	})

	// A transposed read: imap puts x first in memory.
	mct := []int64{3, 4}
	mapped := make([]float64, 12)
	errs = append(errs, pnetcdf.GetVarmAll(f, 0, []int64{2, 1}, mct, nil, []int64{1, 3}, mapped))
	expect("varm", mapped, func(i int) float64 { return at(2+int64(i)%3, 1+int64(i)/3) })

	starts := [][]int64{{0, 0}, {5, 2}, {*ny - 1, N - 3}}
	counts := [][]int64{{1, 4}, {2, 2}, {1, 3}}
	varn := make([]float64, 4+4+3)
	errs = append(errs, pnetcdf.GetVarnAll(f, 0, starts, counts, varn))
	var want []float64
	for k := range starts {
		for y := starts[k][0]; y < starts[k][0]+counts[k][0]; y++ {
			for x := starts[k][1]; x < starts[k][1]+counts[k][1]; x++ {
				want = append(want, at(y, x))
			}
		}
	}
	expect("varn", varn, func(i int) float64 { return want[i] })

	scalar := []int64{0}
	errs = append(errs, pnetcdf.GetVarAll(f, 1, scalar))
	if scalar[0] != 42 {
		errs = append(errs, fmt.Errorf("scalar = %d, want 42", scalar[0]))
	}
	return errors.Join(append(errs, f.Close())...)
}

func caseNonblocking(e env) error {
	path := fileName("nonblocking.nc")
	st, ct := block(*wgrid, e.rank, *ny, *nx)
	if e.writer {
		f, err := define(e, path, nc.DOUBLE, "A", "B", "C")
		if err != nil {
			return err
		}
		var ids []int
		for v := 0; v < 3; v++ {
			id, err := pnetcdf.IPutVara(f, v, st, ct, fillBlock[float64](v, st, ct, *nx))
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		if _, err := f.WaitAll(len(ids), ids); err != nil {
			return err
		}
		return f.Close()
	}
	f, err := pnetcdf.Open(e.comm, path, nc.NOWRITE)
	if err != nil {
		return err
	}
	st, ct = block(*rgrid, e.rank, *ny, *nx)
	bufs := make([][]float64, 3)
	for v := range bufs {
		bufs[v] = make([]float64, ct[0]*ct[1])
		if _, err := pnetcdf.IGetVara(f, v, st, ct, bufs[v]); err != nil {
			return err
		}
	}
	if _, err := f.WaitAll(nc.REQ_ALL, nil); err != nil {
		return err
	}
	var errs []error
	for v := range bufs {
		errs = append(errs, checkBlock(fmt.Sprintf("var %d", v), v, st, ct, *nx, bufs[v]))
	}
	return errors.Join(append(errs, f.Close())...)
}

func caseRecord(e env) error {
	path := fileName("record.nc")
	nrec := int64(*cycles)
	if e.writer {
		f, err := pnetcdf.Create(e.comm, path, nc.CLOBBER)
		if err != nil {
			return err
		}
		t, _ := f.DefDim("time", nc.UNLIMITED)
		x, _ := f.DefDim("x", *nx)
		if _, err := f.DefVar("series", nc.DOUBLE, []int{t, x}); err != nil {
			return err
		}
		if err := f.EndDef(); err != nil {
			return err
		}
		_, ct := block(fmt.Sprintf("1x%d", e.size), e.rank, 1, *nx)
		st, _ := block(fmt.Sprintf("1x%d", e.size), e.rank, 1, *nx)
		for r := int64(0); r < nrec; r++ {
			vals := fillBlock[float64](int(r), []int64{0, st[1]}, []int64{1, ct[1]}, *nx)
			if err := pnetcdf.PutVaraAll(f, 0, []int64{r, st[1]}, []int64{1, ct[1]}, vals); err != nil {
				return err
			}
		}
		return f.Close()
	}
	f, err := pnetcdf.Open(e.comm, path, nc.NOWRITE)
	if err != nil {
		return err
	}
	var errs []error
	for r := int64(0); r < nrec; r++ {
		got := make([]float64, *nx)
		if err := pnetcdf.GetVaraAll(f, 0, []int64{r, 0}, []int64{1, *nx}, got); err != nil {
			return err
		}
		errs = append(errs, checkBlock(fmt.Sprintf("record %d", r), int(r), []int64{0, 0}, []int64{1, *nx}, *nx, got))
	}
	if n, err := f.InqDimLen(0); err != nil || n != nrec {
		errs = append(errs, fmt.Errorf("record count %d (%v), want %d", n, err, nrec))
	}
	return errors.Join(append(errs, f.Close())...)
}

func caseTwoFiles(e env) error {
	paths := []string{fileName("a.nc"), fileName("b.nc")}
	var files []*pnetcdf.File
	if e.writer {
		st, ct := block(*wgrid, e.rank, *ny, *nx)
		for i, p := range paths {
			f, err := define(e, p, nc.DOUBLE, "T")
			if err != nil {
				return err
			}
			if err := pnetcdf.PutVaraAll(f, 0, st, ct, fillBlock[float64](i, st, ct, *nx)); err != nil {
				return err
			}
			files = append(files, f)
		}
		if err := dtf.TransferAll(); err != nil {
			return err
		}
	} else {
		st, ct := block(*rgrid, e.rank, *ny, *nx)
		bufs := make([][]float64, len(paths))
		for i, p := range paths {
			f, err := pnetcdf.Open(e.comm, p, nc.NOWRITE)
			if err != nil {
				return err
			}
			bufs[i] = make([]float64, ct[0]*ct[1])
			if _, err := pnetcdf.IGetVara(f, 0, st, ct, bufs[i]); err != nil {
				return err
			}
			files = append(files, f)
		}
		if err := dtf.TransferAll(); err != nil {
			return err
		}
		for i := range paths {
			if err := checkBlock(paths[i], i, st, ct, *nx, bufs[i]); err != nil {
				return err
			}
		}
	}
	var errs []error
	for _, f := range files {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

func caseEpochs(e env) error {
	path := fileName("epochs.nc")
	var f *pnetcdf.File
	var err error
	if e.writer {
		f, err = define(e, path, nc.DOUBLE, "T")
	} else {
		f, err = pnetcdf.Open(e.comm, path, nc.NOWRITE)
	}
	if err != nil {
		return err
	}
	for k := 0; k < *cycles; k++ {
		if e.writer {
			st, ct := block(*wgrid, e.rank, *ny, *nx)
			buf := fillBlock[float64](k, st, ct, *nx)
			if err := pnetcdf.PutVaraAll(f, 0, st, ct, buf); err != nil {
				return err
			}
			if err := dtf.Transfer(path); err != nil {
				return fmt.Errorf("epoch %d: %w", k, err)
			}
			continue
		}
		st, ct := block(*rgrid, e.rank, *ny, *nx)
		got := make([]float64, ct[0]*ct[1])
		id, err := pnetcdf.IGetVara(f, 0, st, ct, got)
		if err != nil {
			return err
		}
		if err := dtf.Transfer(path); err != nil {
			return fmt.Errorf("epoch %d: %w", k, err)
		}
		// Transfer served the request; a PnetCDF program still waits on it.
		if st, err := f.WaitAll(1, []int{id}); err != nil || st[0] != nil {
			return fmt.Errorf("epoch %d: wait after Transfer: %v %v", k, err, st)
		}
		if err := checkBlock(fmt.Sprintf("epoch %d", k), k, st, ct, *nx, got); err != nil {
			return err
		}
	}
	return f.Close()
}

func casePattern(e env) error {
	for k := 0; k < *cycles; k++ {
		path := fileName(fmt.Sprintf("cycle_%03d.nc", k))
		if e.writer {
			f, err := define(e, path, nc.FLOAT, "T")
			if err != nil {
				return err
			}
			st, ct := block(*wgrid, e.rank, *ny, *nx)
			if err := pnetcdf.PutVaraAll(f, 0, st, ct, fillBlock[float32](k, st, ct, *nx)); err != nil {
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
			continue
		}
		f, err := pnetcdf.Open(e.comm, path, nc.NOWRITE)
		if err != nil {
			return err
		}
		st, ct := block(*rgrid, e.rank, *ny, *nx)
		got := make([]float32, ct[0]*ct[1])
		if err := pnetcdf.GetVaraAll(f, 0, st, ct, got); err != nil {
			return err
		}
		if err := errors.Join(checkBlock(path, k, st, ct, *nx, got), f.Close()); err != nil {
			return err
		}
	}
	return nil
}

// caseUncovered: the writers leave the last row unwritten; a reader whose
// block includes it gets an error naming the variable and the box.
func caseUncovered(e env) error {
	path := fileName("uncovered.nc")
	if e.writer {
		f, err := define(e, path, nc.DOUBLE, "T")
		if err != nil {
			return err
		}
		st, ct := block(*wgrid, e.rank, *ny-1, *nx)
		if err := pnetcdf.PutVaraAll(f, 0, st, ct, fillBlock[float64](0, st, ct, *nx)); err != nil {
			return err
		}
		return f.Close()
	}
	f, err := pnetcdf.Open(e.comm, path, nc.NOWRITE)
	if err != nil {
		return err
	}
	st, ct := block(*rgrid, e.rank, *ny, *nx)
	got := make([]float64, ct[0]*ct[1])
	err = pnetcdf.GetVaraAll(f, 0, st, ct, got)
	last := st[0]+ct[0] == *ny
	if *fill {
		if err != nil {
			return err
		}
		for i, g := range got {
			y := st[0] + int64(i)/ct[1]
			want := value(0, y**nx+st[1]+int64(i)%ct[1])
			if y == *ny-1 {
				want = nc.FillDouble
			}
			if g != want {
				return fmt.Errorf("fill: element %d (row %d) = %v, want %v", i, y, g, want)
			}
		}
		fmt.Printf("FILLED rank %d\n", e.rank)
		return f.Close()
	}
	switch {
	case last && err == nil:
		return errors.New("read of the unwritten last row succeeded")
	case last && !strings.Contains(err.Error(), `"T"`):
		return fmt.Errorf("error does not name the variable: %v", err)
	case last:
		fmt.Printf("UNCOVERED rank %d: %v\n", e.rank, err)
	case err != nil:
		return err
	}
	return f.Close()
}

// caseCycles is the iterative workflow replay serves: one file per cycle with
// the same pattern, read with iget + wait_all; optionally the pattern changes
// at cycle -change, and with -flip the reader writes the file back in a second
// session that the writer reads.
func caseCycles(e env) error {
	for k := 0; k < *cycles; k++ {
		path := fileName(fmt.Sprintf("cycle_%03d.nc", k))
		changed := *change >= 0 && k >= *change
		halves := changed && (*split >= 0 || *wsplit >= 0) // one rank changes, nothing else
		if halves {
			changed = false
		}
		names := []string{"T"}
		for i := 1; i < *nvars; i++ {
			names = append(names, fmt.Sprintf("T%d", i))
		}
		if changed {
			names = append(names, "U")
		}
		if e.writer {
			if err := cycleWrite(e, path, names, *wgrid, k, halves && e.rank == *wsplit); err != nil {
				return fmt.Errorf("cycle %d: %w", k, err)
			}
			if *flip {
				if err := cycleReadBack(e, path, *wgrid, k); err != nil {
					return fmt.Errorf("cycle %d read-back: %w", k, err)
				}
			}
			continue
		}
		grid := *rgrid
		if changed {
			grid = *rgrid2
		}
		if err := cycleRead(e, path, len(names), grid, k, halves && e.rank == *split, k < *twoWaits); err != nil {
			return fmt.Errorf("cycle %d: %w", k, err)
		}
	}
	return nil
}

// cycleWrite writes every variable of cycle k's file; with halves, variable
// 0 goes in two puts of half its rows each.
func cycleWrite(e env, path string, names []string, grid string, k int, halves bool) error {
	f, err := define(e, path, nc.DOUBLE, names...)
	if err != nil {
		return err
	}
	st, ct := block(grid, e.rank, *ny, *nx)
	for v := range names {
		data := fillBlock[float64](v+k, st, ct, *nx)
		if v == 0 && halves && ct[0] >= 2 {
			for _, p := range rowHalves(st, ct) {
				if err := pnetcdf.PutVaraAll(f, v, p.st, p.ct, data[p.lo:p.hi]); err != nil {
					return err
				}
			}
			continue
		}
		if err := pnetcdf.PutVaraAll(f, v, st, ct, data); err != nil {
			return err
		}
	}
	// A late writer: the readers' rounds wait at the matchers meanwhile.
	time.Sleep(*wdelay)
	if *explicit {
		if err := dtf.Transfer(path); err != nil {
			return err
		}
		for ep := 1; ep < *epochs; ep++ {
			for v := range names {
				if err := pnetcdf.PutVaraAll(f, v, st, ct, fillBlock[float64](v+k+100*ep, st, ct, *nx)); err != nil {
					return err
				}
			}
			if err := dtf.Transfer(path); err != nil {
				return err
			}
		}
	}
	return f.Close()
}

// rowPart is one half of a 2-D block: its start, count and element range
// within the block's buffer.
type rowPart struct {
	st, ct []int64
	lo, hi int64
}

// rowHalves splits the block (st, ct) into its top and bottom rows.
func rowHalves(st, ct []int64) [2]rowPart {
	h := ct[0] / 2
	return [2]rowPart{
		{st, []int64{h, ct[1]}, 0, h * ct[1]},
		{[]int64{st[0] + h, st[1]}, []int64{ct[0] - h, ct[1]}, h * ct[1], ct[0] * ct[1]},
	}
}

// cycleRead reads every variable of cycle k's file; with halves, variable 0
// comes in two gets of half its rows each; with twoWaits, variable 0's gets
// complete in a wait_all of their own before the others'.
func cycleRead(e env, path string, nvars int, grid string, k int, halves, twoWaits bool) error {
	f, err := pnetcdf.Open(e.comm, path, nc.NOWRITE)
	if err != nil {
		return err
	}
	st, ct := block(grid, e.rank, *ny, *nx)
	bufs := make([][]float64, nvars)
	for v := range bufs {
		bufs[v] = make([]float64, ct[0]*ct[1])
		if v == 0 && halves && ct[0] >= 2 {
			for _, p := range rowHalves(st, ct) {
				if _, err := pnetcdf.IGetVara(f, v, p.st, p.ct, bufs[v][p.lo:p.hi]); err != nil {
					return err
				}
			}
		} else if _, err := pnetcdf.IGetVara(f, v, st, ct, bufs[v]); err != nil {
			return err
		}
		if v == 0 && twoWaits {
			time.Sleep(*rdelay)
			if _, err := f.WaitAll(nc.REQ_ALL, nil); err != nil {
				return err
			}
		}
	}
	// A late reader: the writers' epoch ends first.
	time.Sleep(*rdelay)
	if *explicit {
		err = dtf.Transfer(path)
	} else {
		_, err = f.WaitAll(nc.REQ_ALL, nil)
	}
	if err != nil {
		return err
	}
	for v := range bufs {
		if err := checkBlock(fmt.Sprintf("var %d", v), v+k, st, ct, *nx, bufs[v]); err != nil {
			return err
		}
		digest(e, fmt.Sprintf("cycle%d.var%d", k, v), nc.Bytes(bufs[v]))
	}
	if err := laterEpochs(f, path, bufs, st, ct, k); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if !*flip {
		return nil
	}
	// Second session: the reader becomes the writer of the analysis.
	f, err = pnetcdf.Open(e.comm, path, nc.WRITE)
	if err != nil {
		return err
	}
	if err := pnetcdf.PutVaraAll(f, 0, st, ct, fillBlock[float64](k+50, st, ct, *nx)); err != nil {
		return err
	}
	return f.Close()
}

// laterEpochs reads every variable again in each further epoch of -epochs,
// unless the readers close early (-closeearly) from this cycle on.
func laterEpochs(f *pnetcdf.File, path string, bufs [][]float64, st, ct []int64, k int) error {
	if *closeAt >= 0 && k >= *closeAt {
		return nil
	}
	for ep := 1; ep < *epochs; ep++ {
		for v := range bufs {
			if _, err := pnetcdf.IGetVara(f, v, st, ct, bufs[v]); err != nil {
				return err
			}
		}
		if err := dtf.Transfer(path); err != nil {
			return err
		}
		for v := range bufs {
			if err := checkBlock(fmt.Sprintf("epoch %d var %d", ep, v), v+k+100*ep, st, ct, *nx, bufs[v]); err != nil {
				return err
			}
		}
	}
	return nil
}

func cycleReadBack(e env, path, grid string, k int) error {
	f, err := pnetcdf.Open(e.comm, path, nc.NOWRITE)
	if err != nil {
		return err
	}
	st, ct := block(grid, e.rank, *ny, *nx)
	got := make([]float64, ct[0]*ct[1])
	if err := pnetcdf.GetVaraAll(f, 0, st, ct, got); err != nil {
		return err
	}
	return errors.Join(checkBlock("analysis", k+50, st, ct, *nx, got), f.Close())
}
