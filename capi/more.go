package main

/*
#include <stdlib.h>
#include "capi.h"
#include "more.h"
*/
import "C"

import (
	"slices"
	"unsafe"

	"github.com/couplet-hpc/couplet/dtf"
	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
)

// Inquiries of couplet_inq_misc, in more.c's order.
const (
	miscCheck = iota // flush: only the ncid is checked
	miscSyncNumRecs
	miscNumRecVars
	miscNumFixVars
	miscRecSize
	miscVersion
	miscStriping
	miscVarOffset
	miscHeaderSize
	miscHeaderExtent
	miscBufferSize
)

// bufSizes holds the size of the bput buffer attached to each coupled ncid.
var bufSizes = map[int]int64{}

//export couplet_note_buffer
func couplet_note_buffer(ncid C.int, size C.MPI_Offset) {
	mu.Lock()
	defer mu.Unlock()
	if size < 0 {
		delete(bufSizes, int(ncid))
	} else {
		bufSizes[int(ncid)] = int64(size)
	}
}

//export couplet_files_opened
func couplet_files_opened(num *C.int, ncids *C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	ids := make([]int, 0, len(files))
	for id := range files {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	n := int(*num)
	if ncids != nil {
		out := unsafe.Slice(ncids, n+len(ids))
		for i, id := range ids {
			out[n+i] = C.int(id)
		}
	}
	*num = C.int(n + len(ids))
	return 0
}

// recSize is the size of one record of the file, as PnetCDF lays it out: every
// record variable's record, each padded to 4 bytes unless it is the only one.
func recSize(h *nc.Header) int64 {
	var sizes []int64
	for v := range h.Vars {
		if !h.IsRecordVar(v) {
			continue
		}
		s := int64(h.Vars[v].Type.Size())
		for _, d := range h.Vars[v].Dims[1:] {
			s *= h.Dims[d].Len
		}
		sizes = append(sizes, s)
	}
	if len(sizes) == 1 {
		return sizes[0]
	}
	var t int64
	for _, s := range sizes {
		t += (s + 3) &^ 3
	}
	return t
}

//export couplet_inq_misc
func couplet_inq_misc(ncid, what C.int, a, b *C.MPI_Offset) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	h, err := f.Header()
	if err != nil {
		return status(err)
	}
	var va, vb int64
	switch what {
	case miscCheck, miscSyncNumRecs:
		// Records travel with the coupled header: nothing to synchronise.
	case miscNumRecVars, miscNumFixVars:
		for v := range h.Vars {
			if h.IsRecordVar(v) == (what == miscNumRecVars) {
				va++
			}
		}
	case miscRecSize:
		va = recSize(h)
	case miscVersion:
		switch h.Format {
		case nc.Format64BitData:
			va = nc.BIT64_DATA
		case nc.Format64BitOffst:
			va = nc.BIT64_OFFSET
		}
	case miscStriping:
		// No file system below: no striping, as libpnetcdf reports off Lustre.
	case miscVarOffset:
		if v := int(*a); v < 0 || v >= len(h.Vars) {
			return status(nc.ENOTVAR)
		}
		return status(nc.ENOTSUPPORT) // a coupled file has no file layout
	case miscHeaderSize, miscHeaderExtent:
		return status(nc.ENOTSUPPORT) // a coupled file has no file layout
	case miscBufferSize:
		s, ok := bufSizes[int(ncid)]
		if !ok {
			return status(nc.ENULLABUF)
		}
		va = s
	default:
		return status(nc.EINVAL)
	}
	if a != nil {
		*a = C.MPI_Offset(va)
	}
	if b != nil {
		*b = C.MPI_Offset(vb)
	}
	return 0
}

//export couplet_inq_path
func couplet_inq_path(ncid C.int, pathlen *C.int, path *C.char) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	p := f.Path()
	if pathlen != nil {
		*pathlen = C.int(len(p))
	}
	cstr(path, p)
	return 0
}

// withType calls fn instantiated for the Go type of an nc type.
func withType(t nc.Type, fn typedFn) error {
	switch t {
	case nc.BYTE:
		return fn.call(int8(0))
	case nc.CHAR:
		return fn.call(nc.Text(0))
	case nc.SHORT:
		return fn.call(int16(0))
	case nc.INT:
		return fn.call(int32(0))
	case nc.FLOAT:
		return fn.call(float32(0))
	case nc.DOUBLE:
		return fn.call(float64(0))
	case nc.UBYTE:
		return fn.call(uint8(0))
	case nc.USHORT:
		return fn.call(uint16(0))
	case nc.UINT:
		return fn.call(uint32(0))
	case nc.INT64:
		return fn.call(int64(0))
	case nc.UINT64:
		return fn.call(uint64(0))
	}
	return nc.EBADTYPE
}

// typedFn is a function over one element type, chosen at run time by withType.
type typedFn interface{ call(zero any) error }

// fillOp is def_var_fill, inq_var_fill or fill_var_rec on one variable.
type fillOp struct {
	f      *pnetcdf.File
	varid  int
	what   int // 0 def, 1 inq, 2 fill record
	noFill *C.int
	value  unsafe.Pointer
	recno  int64
}

func (o fillOp) call(zero any) error {
	switch zero.(type) {
	case int8:
		return fillT[int8](o)
	case nc.Text:
		return fillT[nc.Text](o)
	case int16:
		return fillT[int16](o)
	case int32:
		return fillT[int32](o)
	case float32:
		return fillT[float32](o)
	case float64:
		return fillT[float64](o)
	case uint8:
		return fillT[uint8](o)
	case uint16:
		return fillT[uint16](o)
	case uint32:
		return fillT[uint32](o)
	case int64:
		return fillT[int64](o)
	case uint64:
		return fillT[uint64](o)
	}
	return nc.EBADTYPE
}

func fillT[T nc.Elem](o fillOp) error {
	switch o.what {
	case 0:
		var fill []T
		if o.value != nil {
			fill = []T{*(*T)(o.value)}
		}
		return pnetcdf.DefVarFill(o.f, o.varid, *o.noFill != 0, fill)
	case 1:
		noFill, v, err := pnetcdf.InqVarFill[T](o.f, o.varid)
		if err != nil {
			return err
		}
		if o.noFill != nil {
			*o.noFill = 0
			if noFill {
				*o.noFill = 1
			}
		}
		if o.value != nil {
			*(*T)(o.value) = v
		}
		return nil
	}
	// fill_var_rec: write the fill value over record recno of the variable.
	h, err := o.f.Header()
	if err != nil {
		return err
	}
	if !h.IsRecordVar(o.varid) {
		return nc.ENOTRECVAR
	}
	noFill, v, err := pnetcdf.InqVarFill[T](o.f, o.varid)
	if err != nil {
		return err
	}
	if noFill {
		return nil // PnetCDF fills nothing for a variable in no-fill mode
	}
	shape := h.Shape(o.varid)
	start, count := make([]int64, len(shape)), slices.Clone(shape)
	start[0], count[0] = o.recno, 1
	n := int64(1)
	for _, c := range count {
		n *= c
	}
	buf := make([]T, n)
	for i := range buf {
		buf[i] = v
	}
	return pnetcdf.PutVaraAll(o.f, o.varid, start, count, buf)
}

// varType returns variable varid's type, or the front end's error for a bad id.
func varType(f *pnetcdf.File, varid int) (nc.Type, error) {
	return f.InqVarType(varid)
}

//export couplet_def_var_fill
func couplet_def_var_fill(ncid, varid, noFill C.int, value unsafe.Pointer) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	t, err := varType(f, int(varid))
	if err != nil {
		return status(err)
	}
	nf := noFill
	return status(withType(t, fillOp{f: f, varid: int(varid), what: 0, noFill: &nf, value: value}))
}

//export couplet_inq_var_fill
func couplet_inq_var_fill(ncid, varid C.int, noFill *C.int, value unsafe.Pointer) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	t, err := varType(f, int(varid))
	if err != nil {
		return status(err)
	}
	return status(withType(t, fillOp{f: f, varid: int(varid), what: 1, noFill: noFill, value: value}))
}

//export couplet_fill_var_rec
func couplet_fill_var_rec(ncid, varid C.int, recno C.MPI_Offset) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	t, err := varType(f, int(varid))
	if err != nil {
		return status(err)
	}
	return status(withType(t, fillOp{f: f, varid: int(varid), what: 2, recno: int64(recno)}))
}

//export couplet_rename
func couplet_rename(ncid, what, id C.int, from, to *C.char) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	if to == nil || (what == 2 && from == nil) {
		return status(nc.EINVAL)
	}
	switch what {
	case 0:
		err = f.RenameDim(int(id), C.GoString(to))
	case 1:
		err = f.RenameVar(int(id), C.GoString(to))
	default:
		err = f.RenameAtt(int(id), C.GoString(from), C.GoString(to))
	}
	return status(err)
}

//export couplet_copy_att
func couplet_copy_att(in, varIn C.int, name *C.char, out, varOut C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	fi, err := file(in)
	if err != nil {
		return status(err)
	}
	fo, err := file(out)
	if err != nil {
		return status(err)
	}
	if name == nil {
		return status(nc.EINVAL)
	}
	return status(fi.CopyAtt(int(varIn), C.GoString(name), fo, int(varOut)))
}

//export couplet_component_comm
func couplet_component_comm() unsafe.Pointer {
	return dtf.Comm().Ptr()
}
