// Command coupledbad makes PnetCDF's bad calls on a coupled file and on a
// disk twin with the same schema and data, in one MPMD mpirun: component "w"
// creates and writes "cpl.nc" (coupled) and "w_disk.nc"; component "r" opens
// "cpl.nc" read-only and reads its own disk twin "r_disk.nc". Each bad call
// must return the same NC_* code on both backends, equal to the expected one.
// Afterwards the reader gets every value and checks that nothing from a
// rejected put arrived (rejected puts carry -9 and '#').
//
// Each rank prints "ok <case> <code>" per agreeing case and "FAIL rank N:"
// lines (mpitest) for disagreements.
package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/couplet-hpc/couplet/dtf"
	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
	_ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name
)

func init() { runtime.LockOSThread() }

const nx = 6

// fam is the access family of a case.
type fam int

const (
	famVar fam = iota
	famVar1
	famVara
	famVars
	famVarn
)

// tc is one bad (or borderline) call.
type tc struct {
	name                 string
	side                 string // "w" (puts on the writer) or "r" (gets and puts on the reader)
	state                string // "", "define", "indep", "closed"
	get, indep           bool
	fam                  fam
	varName              string
	varid                *int
	start, count, stride []int64
	bt                   nc.Type
	want                 nc.Error
}

func iv(v int) *int { return &v }

var world, rank int

func cases(ny int64) []tc {
	s, c := []int64{0, 0}, []int64{1, nx}
	w := []tc{
		{name: "bad varid", fam: famVara, varid: iv(99), start: s, count: c, bt: nc.INT, want: nc.ENOTVAR},
		{name: "NC_GLOBAL varid", fam: famVara, varid: iv(nc.GLOBAL), start: s, count: c, bt: nc.INT, want: nc.EGLOBAL},
		{name: "negative varid", fam: famVara, varid: iv(-2), start: s, count: c, bt: nc.INT, want: nc.ENOTVAR},
		{name: "text into int", fam: famVara, varName: "iv", start: s, count: c, bt: nc.CHAR, want: nc.ECHAR},
		{name: "int into text", fam: famVara, varName: "cv", start: s, count: c, bt: nc.INT, want: nc.ECHAR},
		{name: "start past y", fam: famVara, varName: "iv", start: []int64{ny + 1, 0}, count: c, bt: nc.INT, want: nc.EINVALCOORDS},
		{name: "start at y", fam: famVara, varName: "iv", start: []int64{ny, 0}, count: c, bt: nc.INT, want: nc.EINVALCOORDS},
		{name: "start at y, count 0", fam: famVara, varName: "iv", start: []int64{ny, 0}, count: []int64{0, nx}, bt: nc.INT, want: nc.NOERR},
		{name: "negative start", fam: famVara, varName: "iv", start: []int64{-1, 0}, count: c, bt: nc.INT, want: nc.EINVALCOORDS},
		{name: "var1 start past x", fam: famVar1, varName: "iv", start: []int64{0, nx}, bt: nc.INT, want: nc.EINVALCOORDS},
		{name: "count past x", fam: famVara, varName: "iv", start: []int64{0, 3}, count: []int64{1, 4}, bt: nc.INT, want: nc.EEDGE},
		{name: "count larger than x", fam: famVara, varName: "iv", start: s, count: []int64{1, nx + 1}, bt: nc.INT, want: nc.EEDGE},
		{name: "negative count", fam: famVara, varName: "iv", start: s, count: []int64{1, -1}, bt: nc.INT, want: nc.ENEGATIVECNT},
		{name: "zero stride", fam: famVars, varName: "iv", start: s, count: []int64{1, 2}, stride: []int64{1, 0}, bt: nc.INT, want: nc.ESTRIDE},
		{name: "negative stride", fam: famVars, varName: "iv", start: s, count: []int64{1, 2}, stride: []int64{-1, 1}, bt: nc.INT, want: nc.ESTRIDE},
		{name: "stride past x", fam: famVars, varName: "iv", start: s, count: []int64{1, 3}, stride: []int64{1, 3}, bt: nc.INT, want: nc.EEDGE},
		{name: "NULL start vara", fam: famVara, varName: "iv", count: c, bt: nc.INT, want: nc.EINVALCOORDS},
		{name: "NULL start var1", fam: famVar1, varName: "iv", bt: nc.INT, want: nc.EINVALCOORDS},
		{name: "NULL starts varn", fam: famVarn, varName: "iv", count: c, bt: nc.INT, want: nc.ENULLSTART},
		{name: "NULL count vara", fam: famVara, varName: "iv", start: s, bt: nc.INT, want: nc.EEDGE},
		{name: "independent call in collective mode", indep: true, fam: famVara, varName: "iv", start: s, count: c, bt: nc.INT, want: nc.ENOTINDEP},
		{name: "collective call in independent mode", state: "indep", fam: famVara, varName: "iv", start: s, count: c, bt: nc.INT, want: nc.EINDEP},
		{name: "independent bad varid", state: "indep", indep: true, fam: famVara, varid: iv(42), start: s, count: c, bt: nc.INT, want: nc.ENOTVAR},
		{name: "independent bad edge", state: "indep", indep: true, fam: famVara, varName: "iv", start: s, count: []int64{1, 9}, bt: nc.INT, want: nc.EEDGE},
		{name: "put in define mode", state: "define", fam: famVara, varName: "iv", start: s, count: c, bt: nc.INT, want: nc.EINDEFINE},
		{name: "define mode before bad varid", state: "define", fam: famVara, varid: iv(99), start: s, count: c, bt: nc.INT, want: nc.EINDEFINE},
		{name: "put on closed file", state: "closed", fam: famVara, varName: "iv", start: s, count: c, bt: nc.INT, want: nc.EBADID},
	}
	var all []tc
	for _, c := range w {
		c.side = "w"
		all = append(all, c)
	}
	// The reader makes the same calls as gets where a get exists, plus the
	// read-only checks.
	for _, c := range w {
		if c.state == "define" || c.fam == famVarn {
			continue
		}
		c.side, c.get = "r", true
		c.name = "get: " + c.name
		all = append(all, c)
	}
	all = append(all,
		tc{name: "put on read-only file", side: "r", fam: famVara, varName: "iv", start: s, count: c, bt: nc.INT, want: nc.EPERM},
		tc{name: "read-only before varid check", side: "r", fam: famVara, varid: iv(99), start: s, count: c, bt: nc.INT, want: nc.EPERM},
		tc{name: "get past numrecs", side: "r", get: true, fam: famVara, varName: "rv", start: []int64{1, 0}, count: c, bt: nc.DOUBLE, want: nc.EINVALCOORDS},
		tc{name: "get across numrecs", side: "r", get: true, fam: famVara, varName: "rv", start: s, count: []int64{2, nx}, bt: nc.DOUBLE, want: nc.EEDGE},
		tc{name: "get var1 past numrecs", side: "r", get: true, fam: famVar1, varName: "rv", start: []int64{3, 0}, bt: nc.DOUBLE, want: nc.EINVALCOORDS},
		tc{name: "get on closed file (var)", side: "r", state: "closed", get: true, fam: famVar, varName: "iv", bt: nc.INT, want: nc.EBADID},
	)
	return all
}

// call makes c, with a buffer of garbage for puts.
func call(f *pnetcdf.File, varid int, c tc) error {
	switch c.bt {
	case nc.CHAR:
		return typed(f, varid, c, slices.Repeat([]nc.Text{'#'}, 64))
	case nc.DOUBLE:
		return typed(f, varid, c, slices.Repeat([]float64{-9}, 64))
	}
	return typed(f, varid, c, slices.Repeat([]int32{-9}, 64))
}

func typed[T nc.Elem](f *pnetcdf.File, varid int, c tc, buf []T) error {
	coll := !c.indep
	st, ct, sd := c.start, c.count, c.stride
	switch {
	case c.fam == famVar && !c.get:
		return pnetcdf.PutVarAll(f, varid, buf)
	case c.fam == famVar:
		return pnetcdf.GetVarAll(f, varid, buf)
	case c.fam == famVar1 && !c.get:
		return pnetcdf.PutVar1All(f, varid, st, buf)
	case c.fam == famVar1:
		return pnetcdf.GetVar1All(f, varid, st, buf)
	case c.fam == famVara && !c.get && coll:
		return pnetcdf.PutVaraAll(f, varid, st, ct, buf)
	case c.fam == famVara && !c.get:
		return pnetcdf.PutVara(f, varid, st, ct, buf)
	case c.fam == famVara && coll:
		return pnetcdf.GetVaraAll(f, varid, st, ct, buf)
	case c.fam == famVara:
		return pnetcdf.GetVara(f, varid, st, ct, buf)
	case c.fam == famVars && !c.get:
		return pnetcdf.PutVarsAll(f, varid, st, ct, sd, buf)
	case c.fam == famVars:
		return pnetcdf.GetVarsAll(f, varid, st, ct, sd, buf)
	case c.fam == famVarn && !c.get:
		return pnetcdf.PutVarnAll(f, varid, [][]int64{nil}, [][]int64{ct}, buf)
	}
	mpitest.Fatal(world, "case %q: no call for this combination", c.name)
	return nil
}

var varids = map[string]int{"iv": 0, "cv": 1, "rv": 2}

// run makes c on both files and checks the codes.
func run(c tc, cpl, disk *pnetcdf.File) {
	varid := varids[c.varName]
	if c.varid != nil {
		varid = *c.varid
	}
	cc, dc := nc.Code(call(cpl, varid, c)), nc.Code(call(disk, varid, c))
	if cc != dc || cc != c.want {
		mpitest.Fail(world, "%s: coupled %s, disk %s, want %s", c.name, cc.Name(), dc.Name(), c.want.Name())
		return
	}
	fmt.Printf("ok %-45s %s\n", c.name, cc.Name())
}

func must(err error, what string) {
	if err != nil {
		mpitest.Fatal(world, "%s: %v", what, err)
	}
}

// schema defines the dims and variables; it returns after the variables,
// still in define mode.
func schema(f *pnetcdf.File, ny int64) {
	y, err := f.DefDim("y", ny)
	must(err, "def y")
	x, err := f.DefDim("x", nx)
	must(err, "def x")
	t, err := f.DefDim("t", nc.UNLIMITED)
	must(err, "def t")
	for _, v := range []struct {
		name string
		t    nc.Type
		dims []int
	}{{"iv", nc.INT, []int{y, x}}, {"cv", nc.CHAR, []int{y, x}}, {"rv", nc.DOUBLE, []int{t, x}}} {
		_, err := f.DefVar(v.name, v.t, v.dims)
		must(err, "def "+v.name)
	}
}

// goodData is what every writer rank puts in its two rows.
func goodData(r int) (ints []int32, text []nc.Text, rec []float64) {
	ints = make([]int32, 2*nx)
	text = make([]nc.Text, 2*nx)
	for i := range ints {
		ints[i] = int32(2*r*nx + i)
		text[i] = nc.Text('a' + i)
	}
	return ints, text, []float64{1, 2, 3, 4, 5, 6}
}

// writeGood puts the good data of component rank r.
func writeGood(f *pnetcdf.File, r int) {
	ints, text, rec := goodData(r)
	blk, cnt := []int64{int64(2 * r), 0}, []int64{2, nx}
	must(pnetcdf.PutVaraAll(f, 0, blk, cnt, ints), "put iv")
	must(pnetcdf.PutVaraAll(f, 1, blk, cnt, text), "put cv")
	// Only rank 0 writes the record; the others join with an empty put.
	rs, rc := []int64{0, 0}, []int64{1, nx}
	if r != 0 {
		rc = []int64{0, nx}
	}
	must(pnetcdf.PutVaraAll(f, 2, rs, rc, rec), "put rv")
}

func byState(all []tc, side, state string) []tc {
	var out []tc
	for _, c := range all {
		if c.side == side && c.state == state {
			out = append(out, c)
		}
	}
	return out
}

func main() {
	cfg := flag.String("cfg", "", "dtf config")
	dir := flag.String("dir", ".", "directory")
	nw := flag.Int("nw", 2, "writer ranks (sets the y extent)")
	flag.Parse()
	must(dtf.Init(*cfg, ""), "dtf init")
	world = mpi.World().Rank()
	comm := dtf.Comm()
	rank = comm.Rank()
	ny := int64(2 * *nw)
	all := cases(ny)
	cplPath := filepath.Join(*dir, "cpl.nc")
	if dtf.ComponentName() == "w" {
		writer(comm, all, ny, cplPath, filepath.Join(*dir, "w_disk.nc"))
	} else {
		reader(comm, all, ny, *nw, cplPath, filepath.Join(*dir, "r_disk.nc"))
	}
	must(dtf.Finalize(), "dtf finalize")
	mpitest.Exit()
}

func writer(comm mpi.Comm, all []tc, ny int64, cplPath, diskPath string) {
	cpl, err := pnetcdf.Create(comm, cplPath, nc.CLOBBER)
	must(err, "create coupled")
	disk, err := pnetcdf.Create(comm, diskPath, nc.CLOBBER)
	must(err, "create disk")
	schema(cpl, ny)
	schema(disk, ny)
	for _, c := range byState(all, "w", "define") {
		run(c, cpl, disk)
	}
	must(cpl.EndDef(), "enddef coupled")
	must(disk.EndDef(), "enddef disk")
	for _, c := range byState(all, "w", "") {
		run(c, cpl, disk)
	}
	must(cpl.BeginIndepData(), "begin indep")
	must(disk.BeginIndepData(), "begin indep disk")
	for _, c := range byState(all, "w", "indep") {
		run(c, cpl, disk)
	}
	must(cpl.EndIndepData(), "end indep")
	must(disk.EndIndepData(), "end indep disk")
	writeGood(cpl, rank)
	writeGood(disk, rank)
	must(cpl.Close(), "close coupled")
	must(disk.Close(), "close disk")
	for _, c := range byState(all, "w", "closed") {
		run(c, cpl, disk)
	}
}

func reader(comm mpi.Comm, all []tc, ny int64, nw int, cplPath, diskPath string) {
	// The disk twin: the same schema and data, written by this component.
	disk, err := pnetcdf.Create(comm, diskPath, nc.CLOBBER)
	must(err, "create disk twin")
	schema(disk, ny)
	must(disk.EndDef(), "enddef disk twin")
	// Run with as many readers as writers: reader rank r writes writer r's rows.
	if comm.Size() != nw {
		mpitest.Fatal(world, "run with as many reader ranks as writer ranks (%d), not %d", nw, comm.Size())
	}
	writeGood(disk, rank)
	must(disk.Close(), "close disk twin")
	disk, err = pnetcdf.Open(comm, diskPath, nc.NOWRITE)
	must(err, "open disk twin")

	cpl, err := pnetcdf.Open(comm, cplPath, nc.NOWRITE)
	must(err, "open coupled")
	for _, c := range byState(all, "r", "") {
		run(c, cpl, disk)
	}
	must(cpl.BeginIndepData(), "begin indep")
	must(disk.BeginIndepData(), "begin indep disk")
	for _, c := range byState(all, "r", "indep") {
		run(c, cpl, disk)
	}
	must(cpl.EndIndepData(), "end indep")
	must(disk.EndIndepData(), "end indep disk")

	// Everything the writer put, and nothing it tried to put and was refused.
	n := int(ny) * nx
	gi, gt, gr := make([]int32, n), make([]nc.Text, n), make([]float64, nx)
	must(pnetcdf.GetVarAll(cpl, 0, gi), "get iv")
	must(pnetcdf.GetVarAll(cpl, 1, gt), "get cv")
	must(pnetcdf.GetVaraAll(cpl, 2, []int64{0, 0}, []int64{1, nx}, gr), "get rv")
	for i := range gi {
		if gi[i] != int32(i) || gt[i] != nc.Text('a'+i%(2*nx)) {
			mpitest.Fail(world, "coupled data at %d: %d %q (a rejected put arrived?)", i, gi[i], gt[i])
			break
		}
	}
	if _, _, rec := goodData(0); !slices.Equal(gr, rec) {
		mpitest.Fail(world, "coupled record: %v, want %v", gr, rec)
	}
	fmt.Printf("DATA rank %d checked %d values\n", rank, 2*n+nx)
	must(cpl.Close(), "close coupled")
	must(disk.Close(), "close disk")
	for _, c := range byState(all, "r", "closed") {
		run(c, cpl, disk)
	}
}
