// Command redef defines coupled files with a redef between two enddefs, in
// one MPMD mpirun: component "w" creates and writes them, component "r"
// opens them read-only. Two cases, one file each:
//
//   - "before": the writer redefines before any data moves;
//   - "after": the writer puts T, ends the epoch with Transfer, then
//     redefines (the reader's open can only have seen the first header).
//
// The second define phase renames T to Temp, sets the file's fill mode (so
// Temp and later variables fill), defines F with fill value -5, G in no-fill
// mode and the record variable R, and replaces the global "title". The
// writer leaves rows 2-3 of F and G and record 0 of R unwritten.
//
// Writer rank 0 and every reader rank print "HEADER <case> <header>"; the
// readers check their data and print "OK <case> rank N". As in PnetCDF, the
// unwritten part of fixed-size F reads as its fill value, while G (no fill)
// and R (record variables are never filled by themselves) fail with
// NC_ENODATA naming the variable.
package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/couplet-hpc/couplet/dtf"
	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
	_ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name
)

func init() { runtime.LockOSThread() }

const (
	ny, nx = 4, 6
	fillF  = -5
)

var world int

func must(err error, what string) {
	if err != nil {
		mpitest.Fatal(world, "%s: %v", what, err)
	}
}

func temp(y, x int) float64 { return 100*float64(y) + float64(x) + 0.5 }
func ival(y, x int) int32   { return int32(10*y + x) }
func rval(x int) float32    { return 1.5 * float32(x) }

func main() {
	cfg := flag.String("cfg", "", "dtf config")
	dir := flag.String("dir", ".", "directory")
	flag.Parse()
	must(dtf.Init(*cfg, ""), "dtf init")
	world = mpi.World().Rank()
	comm := dtf.Comm()
	if comm.Size() != 2 {
		mpitest.Fatal(world, "run with 2 ranks per component, not %d", comm.Size())
	}
	for _, c := range []string{"before", "after"} {
		path := filepath.Join(*dir, "redef_"+c+".nc")
		if dtf.ComponentName() == "w" {
			writer(comm, c, path)
		} else {
			reader(comm, c, path)
		}
	}
	must(dtf.Finalize(), "dtf finalize")
	mpitest.Exit()
}

func printHeader(c string, f *pnetcdf.File) {
	h, err := f.Header()
	must(err, "header")
	fmt.Printf("HEADER %s %+v\n", c, *h)
}

// rows returns this writer rank's rows: rank r writes rows 2r and 2r+1.
func rows(r int) (start, count []int64) { return []int64{int64(2 * r), 0}, []int64{2, nx} }

func writer(comm mpi.Comm, c, path string) {
	r := comm.Rank()
	f, err := pnetcdf.Create(comm, path, nc.CLOBBER)
	must(err, "create")
	y, err := f.DefDim("y", ny)
	must(err, "def y")
	x, err := f.DefDim("x", nx)
	must(err, "def x")
	tv, err := f.DefVar("T", nc.DOUBLE, []int{y, x})
	must(err, "def T")
	must(f.PutAttText(nc.GLOBAL, "title", "first"), "put title")
	must(f.EndDef(), "enddef 1")

	st, ct := rows(r)
	tbuf := make([]float64, 2*nx)
	for i := range tbuf {
		tbuf[i] = temp(int(st[0])+i/nx, i%nx)
	}
	if c == "after" {
		must(pnetcdf.PutVaraAll(f, tv, st, ct, tbuf), "put T")
		must(dtf.Transfer(path), "transfer")
	}

	must(f.Redef(), "redef")
	t, err := f.DefDim("t", nc.UNLIMITED)
	must(err, "def t")
	old, err := f.SetFill(nc.FILL)
	must(err, "set_fill")
	if old != nc.NOFILL {
		mpitest.Fail(world, "set_fill returned old mode %d, want NC_NOFILL", old)
	}
	fv, err := f.DefVar("F", nc.INT, []int{y, x})
	must(err, "def F")
	must(pnetcdf.DefVarFill(f, fv, false, []int32{fillF}), "def_var_fill F")
	gv, err := f.DefVar("G", nc.INT, []int{y, x})
	must(err, "def G")
	must(pnetcdf.DefVarFill[int32](f, gv, true, nil), "def_var_fill G")
	rv, err := f.DefVar("R", nc.FLOAT, []int{t, x})
	must(err, "def R")
	must(f.RenameVar(tv, "Temp"), "rename T")
	must(f.PutAttText(nc.GLOBAL, "title", "second"), "put title 2")
	must(f.EndDef(), "enddef 2")

	// Temp whole; F and G rows 0-1 only (rank 1 joins with empty puts);
	// record 1 of R, half per rank.
	must(pnetcdf.PutVaraAll(f, tv, st, ct, tbuf), "put Temp")
	ibuf := make([]int32, 2*nx)
	for i := range ibuf {
		ibuf[i] = ival(i/nx, i%nx)
	}
	ist, ict := []int64{0, 0}, []int64{2, nx}
	if r != 0 {
		ict = []int64{0, nx}
	}
	must(pnetcdf.PutVaraAll(f, fv, ist, ict, ibuf), "put F")
	must(pnetcdf.PutVaraAll(f, gv, ist, ict, ibuf), "put G")
	half := nx / 2
	rbuf := make([]float32, half)
	for i := range rbuf {
		rbuf[i] = rval(r*half + i)
	}
	must(pnetcdf.PutVaraAll(f, rv, []int64{1, int64(r * half)}, []int64{1, int64(half)}, rbuf), "put R")
	if r == 0 {
		printHeader(c, f)
	}
	must(f.Close(), "close")
}

func reader(comm mpi.Comm, c, path string) {
	f, err := pnetcdf.Open(comm, path, nc.NOWRITE)
	must(err, "open")
	if c == "after" {
		// The writer redefines only after this epoch, which needs this
		// reader: its open saw the first header.
		n, err := f.InqNVars()
		must(err, "inq nvars")
		if n != 1 {
			mpitest.Fail(world, "after: %d variables at open, want the first header's 1", n)
		}
		got := make([]float64, ny*nx)
		must(pnetcdf.GetVarAll(f, 0, got), "get T")
		must(checkTemp(got), "T")
		must(dtf.Transfer(path), "transfer")
	}
	// A get ends a read round, after which the reader holds the writer's
	// final header.
	got := make([]float64, ny*nx)
	must(pnetcdf.GetVarAll(f, 0, got), "get Temp")
	must(checkTemp(got), "Temp")
	printHeader(c, f)

	fv, err := f.InqVarID("F")
	must(err, "inq F")
	gv, err := f.InqVarID("G")
	must(err, "inq G")
	rv, err := f.InqVarID("R")
	must(err, "inq R")
	ibuf := make([]int32, ny*nx)
	must(pnetcdf.GetVarAll(f, fv, ibuf), "get F")
	for i, v := range ibuf {
		y, x := i/nx, i%nx
		want := int32(fillF)
		if y < 2 {
			want = ival(y, x)
		}
		if v != want {
			mpitest.Fail(world, "%s: F[%d][%d] = %d, want %d", c, y, x, v, want)
			break
		}
	}
	rbuf := make([]float32, nx)
	must(pnetcdf.GetVaraAll(f, rv, []int64{1, 0}, []int64{1, nx}, rbuf), "get R record 1")
	for x, v := range rbuf {
		if v != rval(x) {
			mpitest.Fail(world, "%s: R[1][%d] = %v, want %v", c, x, v, rval(x))
			break
		}
	}
	unwritten(c, "G", pnetcdf.GetVaraAll(f, gv, []int64{2, 0}, []int64{2, nx}, ibuf[:2*nx]))
	unwritten(c, "R", pnetcdf.GetVaraAll(f, rv, []int64{0, 0}, []int64{1, nx}, rbuf))
	must(f.Close(), "close")
	fmt.Printf("OK %s rank %d\n", c, comm.Rank())
}

func checkTemp(got []float64) error {
	for i, v := range got {
		if want := temp(i/nx, i%nx); v != want {
			return fmt.Errorf("element %d = %v, want %v", i, v, want)
		}
	}
	return nil
}

// unwritten checks that a read of never-written data failed with
// NC_ENODATA naming the variable.
func unwritten(c, name string, err error) {
	if !errors.Is(err, nc.ENODATA) || !strings.Contains(err.Error(), `"`+name+`"`) {
		mpitest.Fail(world, "%s: read of unwritten %s: %v, want NC_ENODATA naming it", c, name, err)
	}
}
