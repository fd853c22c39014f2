// Command errcheck makes the same bad calls through couplet's pnetcdf API and
// directly through libpnetcdf (cpnc) on twin files, and reports any case
// where the NC_* codes differ from each other or from the expected code. It
// then checks that no bad call changed either file.
package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
	"github.com/couplet-hpc/couplet/pnetcdf/internal/cpnc"
	_ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name
)

const nx = 6

var rank, nprocs int

func must(err error, what string) {
	if err != nil {
		mpitest.Fatal(rank, "%s: %v", what, err)
	}
}

// tc is one bad (or borderline) call.
type tc struct {
	name                 string
	state                string // "", "define", "indep", "readonly", "closed"
	get, indep           bool
	fam                  cpnc.Family
	varName              string
	varid                *int // overrides varName
	start, count, stride []int64
	bt                   nc.Type
	rank0                bool // only rank 0 makes the bad call; others a good one
	want                 nc.Error
}

func iv(v int) *int { return &v }

func cases(ny int64) []tc {
	s, c := []int64{0, 0}, []int64{1, nx}
	return []tc{
		{name: "bad varid", fam: cpnc.Vara, varid: iv(99), start: s, count: c, bt: nc.INT, want: nc.ENOTVAR},
		{name: "NC_GLOBAL varid", fam: cpnc.Vara, varid: iv(nc.GLOBAL), start: s, count: c, bt: nc.INT, want: nc.EGLOBAL},
		{name: "negative varid", fam: cpnc.Vara, varid: iv(-2), start: s, count: c, bt: nc.INT, want: nc.ENOTVAR},
		{name: "text into int", fam: cpnc.Vara, varName: "iv", start: s, count: c, bt: nc.CHAR, want: nc.ECHAR},
		{name: "int into text", fam: cpnc.Vara, varName: "cv", start: s, count: c, bt: nc.INT, want: nc.ECHAR},
		{name: "get text as int", get: true, fam: cpnc.Vara, varName: "cv", start: s, count: c, bt: nc.INT, want: nc.ECHAR},
		{name: "start past y", fam: cpnc.Vara, varName: "iv", start: []int64{ny + 1, 0}, count: c, bt: nc.INT, want: nc.EINVALCOORDS},
		{name: "start at y", fam: cpnc.Vara, varName: "iv", start: []int64{ny, 0}, count: c, bt: nc.INT, want: nc.EINVALCOORDS},
		{name: "start at y, count 0", fam: cpnc.Vara, varName: "iv", start: []int64{ny, 0}, count: []int64{0, nx}, bt: nc.INT, want: nc.NOERR},
		{name: "negative start", fam: cpnc.Vara, varName: "iv", start: []int64{-1, 0}, count: c, bt: nc.INT, want: nc.EINVALCOORDS},
		{name: "var1 start past x", fam: cpnc.Var1, varName: "iv", start: []int64{0, nx}, bt: nc.INT, want: nc.EINVALCOORDS},
		{name: "count past x", fam: cpnc.Vara, varName: "iv", start: []int64{0, 3}, count: []int64{1, 4}, bt: nc.INT, want: nc.EEDGE},
		{name: "count larger than x", fam: cpnc.Vara, varName: "iv", start: s, count: []int64{1, nx + 1}, bt: nc.INT, want: nc.EEDGE},
		{name: "negative count", fam: cpnc.Vara, varName: "iv", start: s, count: []int64{1, -1}, bt: nc.INT, want: nc.ENEGATIVECNT},
		{name: "zero stride", fam: cpnc.Vars, varName: "iv", start: s, count: []int64{1, 2}, stride: []int64{1, 0}, bt: nc.INT, want: nc.ESTRIDE},
		{name: "negative stride", fam: cpnc.Vars, varName: "iv", start: s, count: []int64{1, 2}, stride: []int64{-1, 1}, bt: nc.INT, want: nc.ESTRIDE},
		{name: "stride past x", fam: cpnc.Vars, varName: "iv", start: s, count: []int64{1, 3}, stride: []int64{1, 3}, bt: nc.INT, want: nc.EEDGE},
		{name: "NULL start vara", fam: cpnc.Vara, varName: "iv", count: c, bt: nc.INT, want: nc.EINVALCOORDS},
		{name: "NULL start var1", fam: cpnc.Var1, varName: "iv", bt: nc.INT, want: nc.EINVALCOORDS},
		{name: "NULL starts varn", fam: cpnc.Varn, varName: "iv", count: c, bt: nc.INT, want: nc.ENULLSTART},
		{name: "NULL count vara", fam: cpnc.Vara, varName: "iv", start: s, bt: nc.INT, want: nc.EEDGE},
		{name: "get past numrecs", get: true, fam: cpnc.Vara, varName: "rv", start: []int64{1, 0}, count: c, bt: nc.DOUBLE, want: nc.EINVALCOORDS},
		{name: "get across numrecs", get: true, fam: cpnc.Vara, varName: "rv", start: s, count: []int64{2, nx}, bt: nc.DOUBLE, want: nc.EEDGE},
		{name: "get at numrecs, count 0", get: true, fam: cpnc.Vara, varName: "rv", start: []int64{1, 0}, count: []int64{0, nx}, bt: nc.DOUBLE, want: nc.NOERR},
		{name: "get var1 past numrecs", get: true, fam: cpnc.Var1, varName: "rv", start: []int64{3, 0}, bt: nc.DOUBLE, want: nc.EINVALCOORDS},
		{name: "rank 0 alone bad start", fam: cpnc.Vara, varName: "iv", start: []int64{ny + 5, 0}, count: c, bt: nc.INT, rank0: true, want: nc.EINVALCOORDS},
		{name: "independent call in collective mode", indep: true, fam: cpnc.Vara, varName: "iv", start: s, count: c, bt: nc.INT, want: nc.ENOTINDEP},
		{name: "collective call in independent mode", state: "indep", fam: cpnc.Vara, varName: "iv", start: s, count: c, bt: nc.INT, want: nc.EINDEP},
		{name: "independent bad varid", state: "indep", indep: true, fam: cpnc.Vara, varid: iv(42), start: s, count: c, bt: nc.INT, want: nc.ENOTVAR},
		{name: "independent bad edge", state: "indep", indep: true, fam: cpnc.Vara, varName: "iv", start: s, count: []int64{1, 9}, bt: nc.INT, want: nc.EEDGE},
		{name: "put in define mode", state: "define", fam: cpnc.Vara, varName: "iv", start: s, count: c, bt: nc.INT, want: nc.EINDEFINE},
		{name: "get in define mode", state: "define", get: true, fam: cpnc.Vara, varName: "iv", start: s, count: c, bt: nc.INT, want: nc.EINDEFINE},
		{name: "define mode before bad varid", state: "define", fam: cpnc.Vara, varid: iv(99), start: s, count: c, bt: nc.INT, want: nc.EINDEFINE},
		{name: "put on read-only file", state: "readonly", fam: cpnc.Vara, varName: "iv", start: s, count: c, bt: nc.INT, want: nc.EPERM},
		{name: "read-only before define-mode checks", state: "readonly", fam: cpnc.Vara, varid: iv(99), start: s, count: c, bt: nc.INT, want: nc.EPERM},
		{name: "get on read-only file", state: "readonly", get: true, fam: cpnc.Vara, varName: "iv", start: s, count: c, bt: nc.INT, want: nc.NOERR},
		{name: "put on closed file", state: "closed", fam: cpnc.Vara, varName: "iv", start: s, count: c, bt: nc.INT, want: nc.EBADID},
		{name: "get on closed file", state: "closed", get: true, fam: cpnc.Var, varName: "iv", bt: nc.INT, want: nc.EBADID},
	}
}

// goCall makes c through the Go API, with a buffer of garbage for puts.
func goCall(f *pnetcdf.File, varid int, c tc, start, count []int64) error {
	switch c.bt {
	case nc.CHAR:
		return goTyped(f, varid, c, start, count, slices.Repeat([]nc.Text{'#'}, 64))
	case nc.DOUBLE:
		return goTyped(f, varid, c, start, count, slices.Repeat([]float64{-9}, 64))
	}
	return goTyped(f, varid, c, start, count, slices.Repeat([]int32{-9}, 64))
}

func goTyped[T nc.Elem](f *pnetcdf.File, varid int, c tc, start, count []int64, buf []T) error {
	coll := !c.indep
	switch {
	case !c.get && c.fam == cpnc.Var && coll:
		return pnetcdf.PutVarAll(f, varid, buf)
	case c.get && c.fam == cpnc.Var && coll:
		return pnetcdf.GetVarAll(f, varid, buf)
	case !c.get && c.fam == cpnc.Var1 && coll:
		return pnetcdf.PutVar1All(f, varid, start, buf)
	case c.get && c.fam == cpnc.Var1 && coll:
		return pnetcdf.GetVar1All(f, varid, start, buf)
	case !c.get && c.fam == cpnc.Vara && coll:
		return pnetcdf.PutVaraAll(f, varid, start, count, buf)
	case c.get && c.fam == cpnc.Vara && coll:
		return pnetcdf.GetVaraAll(f, varid, start, count, buf)
	case !c.get && c.fam == cpnc.Vara:
		return pnetcdf.PutVara(f, varid, start, count, buf)
	case c.get && c.fam == cpnc.Vara:
		return pnetcdf.GetVara(f, varid, start, count, buf)
	case !c.get && c.fam == cpnc.Vars && coll:
		return pnetcdf.PutVarsAll(f, varid, start, count, c.stride, buf)
	case !c.get && c.fam == cpnc.Varn && coll:
		var starts, counts [][]int64
		if start != nil {
			starts = [][]int64{start}
		}
		if count != nil {
			counts = [][]int64{count}
		}
		if starts == nil && counts != nil { // C's NULL starts with one count
			return pnetcdf.PutVarnAll(f, varid, [][]int64{nil}, counts, buf)
		}
		return pnetcdf.PutVarnAll(f, varid, starts, counts, buf)
	}
	mpitest.Fatal(rank, "case %q: no Go call for this combination", c.name)
	return nil
}

func main() {
	dir := flag.String("dir", ".", "output directory")
	flag.Parse()
	must(mpi.Init(), "mpi init")
	world := mpi.World()
	rank, nprocs = world.Rank(), world.Size()
	ny := int64(2 * nprocs)
	gpath, cpath := filepath.Join(*dir, "go.nc"), filepath.Join(*dir, "c.nc")

	// Twin files with the same schema and initial data.
	g, err := pnetcdf.Create(world, gpath, nc.CLOBBER)
	must(err, "create go file")
	cid, err := cpnc.Create(world.Ptr(), cpath, nc.CLOBBER)
	must(err, "create c file")
	dims := func(def func(string, int64) (int, error)) []int {
		y, err := def("y", ny)
		must(err, "def y")
		x, err := def("x", nx)
		must(err, "def x")
		t, err := def("t", nc.UNLIMITED)
		must(err, "def t")
		return []int{y, x, t}
	}
	gd := dims(g.DefDim)
	cd := dims(func(n string, l int64) (int, error) { return cpnc.DefDim(cid, n, l) })
	for _, v := range []struct {
		name string
		t    nc.Type
		dims []int // indexes into y, x, t
	}{{"iv", nc.INT, []int{0, 1}}, {"cv", nc.CHAR, []int{0, 1}}, {"rv", nc.DOUBLE, []int{2, 1}}} {
		_, err := g.DefVar(v.name, v.t, []int{gd[v.dims[0]], gd[v.dims[1]]})
		must(err, "def var")
		_, err = cpnc.DefVar(cid, v.name, v.t, []int{cd[v.dims[0]], cd[v.dims[1]]})
		must(err, "def c var")
	}
	must(g.EndDef(), "enddef")
	must(cpnc.Enddef(cid), "c enddef")
	r0 := int64(2 * rank)
	ints := make([]int32, 2*nx)
	text := make([]nc.Text, 2*nx)
	for i := range ints {
		ints[i] = int32(r0*nx) + int32(i)
		text[i] = nc.Text('a' + i)
	}
	rec := []float64{1, 2, 3, 4, 5, 6}
	blk, cnt := []int64{r0, 0}, []int64{2, nx}
	must(pnetcdf.PutVaraAll(g, 0, blk, cnt, ints), "init iv")
	must(pnetcdf.PutVaraAll(g, 1, blk, cnt, text), "init cv")
	must(pnetcdf.PutVaraAll(g, 2, []int64{0, 0}, []int64{1, nx}, rec), "init rv")
	must(cpnc.Typed(true, true, cpnc.Vara, cid, 0, blk, cnt, nil, nc.Bytes(ints), nc.INT), "c init iv")
	must(cpnc.Typed(true, true, cpnc.Vara, cid, 1, blk, cnt, nil, nc.Bytes(text), nc.CHAR), "c init cv")
	must(cpnc.Typed(true, true, cpnc.Vara, cid, 2, []int64{0, 0}, []int64{1, nx}, nil, nc.Bytes(rec), nc.DOUBLE), "c init rv")

	run := func(c tc, gf *pnetcdf.File, ncid int) {
		varid := 0
		if c.varid != nil {
			varid = *c.varid
		} else if id, ok := map[string]int{"iv": 0, "cv": 1, "rv": 2}[c.varName]; ok {
			varid = id
		}
		start, count, want := c.start, c.count, c.want
		if c.rank0 && rank != 0 { // the others write their own block, unchanged
			start, count, want = blk, cnt, nc.NOERR
		}
		var gerr, cerr error
		if c.rank0 && rank != 0 {
			gerr = pnetcdf.PutVaraAll(gf, varid, start, count, ints)
			cerr = cpnc.Typed(true, true, cpnc.Vara, ncid, varid, start, count, nil, nc.Bytes(ints), nc.INT)
		} else {
			gerr = goCall(gf, varid, c, start, count)
			buf := make([]byte, 64*8)
			for i := range buf {
				buf[i] = 0x23
			}
			cerr = cpnc.Typed(!c.get, !c.indep, c.fam, ncid, varid, start, count, c.stride, buf, c.bt)
		}
		gc, cc := nc.Code(gerr), nc.Code(cerr)
		if gc != cc || gc != want {
			mpitest.Fail(rank, "%s: couplet %s, libpnetcdf %s, want %s", c.name, gc.Name(), cc.Name(), want.Name())
		} else {
			fmt.Printf("ok %-40s %s\n", c.name, gc.Name())
		}
	}
	all := cases(ny)
	byState := func(s string) []tc {
		var out []tc
		for _, c := range all {
			if c.state == s {
				out = append(out, c)
			}
		}
		return out
	}
	for _, c := range byState("") {
		run(c, g, cid)
	}
	must(g.BeginIndepData(), "begin indep")
	must(cpnc.BeginIndep(cid), "c begin indep")
	for _, c := range byState("indep") {
		run(c, g, cid)
	}
	must(g.EndIndepData(), "end indep")
	must(cpnc.EndIndep(cid), "c end indep")
	must(g.Redef(), "redef")
	must(cpnc.Redef(cid), "c redef")
	for _, c := range byState("define") {
		run(c, g, cid)
	}
	must(g.EndDef(), "enddef")
	must(cpnc.Enddef(cid), "c enddef")
	must(g.Close(), "close")
	must(cpnc.Close(cid), "c close")
	for _, c := range byState("closed") {
		run(c, g, cid)
	}

	// Read-only: the same files, which must also be unchanged.
	g, err = pnetcdf.Open(world, gpath, nc.NOWRITE)
	must(err, "reopen")
	cid, err = cpnc.Open(world.Ptr(), cpath, nc.NOWRITE)
	must(err, "c reopen")
	for _, c := range byState("readonly") {
		run(c, g, cid)
	}
	n := 2 * int(nprocs) * nx
	gi, gt, gr := make([]int32, n), make([]nc.Text, n), make([]float64, 2*nx)
	must(pnetcdf.GetVarAll(g, 0, gi), "read iv")
	must(pnetcdf.GetVarAll(g, 1, gt), "read cv")
	must(pnetcdf.GetVarAll(g, 2, gr), "read rv")
	for i := range gi {
		if gi[i] != int32(i) || gt[i] != nc.Text('a'+i%(2*nx)) {
			mpitest.Fail(rank, "go file changed at %d: %d %q", i, gi[i], gt[i])
			break
		}
	}
	if nr, _ := g.InqDimLen(2); nr != 1 || !slices.Equal(gr[:nx], rec) {
		mpitest.Fail(rank, "go file records changed: numrecs %d, %v", nr, gr[:nx])
	}
	ci := make([]int32, n)
	must(cpnc.Typed(false, true, cpnc.Var, cid, 0, nil, nil, nil, nc.Bytes(ci), nc.INT), "c read iv")
	if !slices.Equal(ci, gi) {
		mpitest.Fail(rank, "libpnetcdf file differs: %v vs %v", ci, gi)
	}
	must(g.Close(), "close")
	must(cpnc.Close(cid), "c close")
	must(mpi.Finalize(), "finalize")
	mpitest.Exit()
}
