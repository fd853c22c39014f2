package main

import (
	"slices"

	"github.com/couplet-hpc/couplet/internal/mpitest"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
)

// runAtts puts a global and a variable attribute of every type, renames,
// deletes and copies some, and checks them after reopening.
func runAtts(path string) {
	f, err := pnetcdf.Create(world, path, nc.CLOBBER|nc.BIT64_DATA)
	must(err, "create")
	d, _ := f.DefDim("n", 3)
	v, err := f.DefVar("v", nc.INT, []int{d})
	must(err, "def v")
	w, err := f.DefVar("w", nc.DOUBLE, []int{d})
	must(err, "def w")
	putAtts[int8](f, v)
	putAtts[int16](f, v)
	putAtts[int32](f, v)
	putAtts[float32](f, v)
	putAtts[float64](f, v)
	putAtts[uint8](f, v)
	putAtts[uint16](f, v)
	putAtts[uint32](f, v)
	putAtts[int64](f, v)
	putAtts[uint64](f, v)
	must(f.PutAttText(nc.GLOBAL, "title", "couplet attribute test"), "text att")
	must(f.PutAttText(v, "units", "K"), "text att")
	wantCode(pnetcdf.PutAtt(f, v, "units2", nc.CHAR, []int32{1}), nc.ECHAR, "numbers into a text attribute")
	wantCode(pnetcdf.PutAtt(f, v, "big", nc.BYTE, []float64{1, 300}), nc.ERANGE, "300 into a byte attribute")
	wantCode(pnetcdf.PutAtt(f, 99, "x", nc.INT, []int32{1}), nc.ENOTVAR, "attribute of a bad variable")
	must(f.RenameAtt(v, "units", "unit"), "rename")
	must(f.CopyAtt(v, "unit", f, w), "copy")
	must(f.DelAtt(v, "big"), "del")
	wantCode(f.DelAtt(v, "big"), nc.ENOTATT, "delete a deleted attribute")
	must(f.EndDef(), "enddef")
	wantCode(f.PutAttText(v, "new", "x"), nc.ENOTINDEFINE, "new attribute in data mode")
	must(f.PutAttText(v, "unit", "C"), "overwrite attribute in data mode")
	must(f.Close(), "close")

	f, err = pnetcdf.Open(world, path, nc.NOWRITE)
	must(err, "reopen")
	getAtts[int8](f, v)
	getAtts[int16](f, v)
	getAtts[int32](f, v)
	getAtts[float32](f, v)
	getAtts[float64](f, v)
	getAtts[uint8](f, v)
	getAtts[uint16](f, v)
	getAtts[uint32](f, v)
	getAtts[int64](f, v)
	getAtts[uint64](f, v)
	if s, err := f.GetAttText(nc.GLOBAL, "title"); err != nil || s != "couplet attribute test" {
		mpitest.Fail(rank, "title %q, %v", s, err)
	}
	if s, err := f.GetAttText(w, "unit"); err != nil || s != "K" {
		mpitest.Fail(rank, "copied unit %q, %v", s, err)
	}
	if s, err := f.GetAttText(v, "unit"); err != nil || s != "C" {
		mpitest.Fail(rank, "overwritten unit %q, %v", s, err)
	}
	_, _, err = f.InqAtt(v, "big")
	wantCode(err, nc.ENOTATT, "deleted attribute after reopen")
	_, err = pnetcdf.GetAtt[int32](f, nc.GLOBAL, "title")
	wantCode(err, nc.ECHAR, "text attribute read as numbers")
	_, err = pnetcdf.GetAtt[int8](f, nc.GLOBAL, "g_NC_INT")
	wantCode(err, nc.ERANGE, "int attribute 1000 read as byte")
	must(f.Close(), "close")
}

func attVals[T nc.Elem]() []T {
	if nc.TypeOf[T]() == nc.BYTE || nc.TypeOf[T]() == nc.UBYTE {
		return []T{1, 2, 100}
	}
	big := 1000
	return []T{1, 2, T(big)}
}

func putAtts[T nc.Elem](f *pnetcdf.File, v int) {
	t := nc.TypeOf[T]()
	must(pnetcdf.PutAtt(f, nc.GLOBAL, "g_"+t.String(), t, attVals[T]()), "global att %s", t)
	must(pnetcdf.PutAtt(f, v, "v_"+t.String(), t, attVals[T]()[:2]), "var att %s", t)
}

func getAtts[T nc.Elem](f *pnetcdf.File, v int) {
	t := nc.TypeOf[T]()
	g, err := pnetcdf.GetAtt[T](f, nc.GLOBAL, "g_"+t.String())
	must(err, "get global %s", t)
	if !slices.Equal(g, attVals[T]()) {
		mpitest.Fail(rank, "global %s = %v", t, g)
	}
	at, n, err := f.InqAtt(v, "v_"+t.String())
	if err != nil || at != t || n != 2 {
		mpitest.Fail(rank, "inq var att %s: %v %d %v", t, at, n, err)
	}
	vv, err := pnetcdf.GetAtt[float64](f, v, "v_"+t.String())
	if err != nil || !slices.Equal(vv, []float64{1, 2}) {
		mpitest.Fail(rank, "var att %s as double: %v %v", t, vv, err)
	}
}
