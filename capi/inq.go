package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/couplet-hpc/couplet/nc"
)

// cstr copies s with its NUL into a caller's name buffer (NC_MAX_NAME+1
// bytes, as PnetCDF requires); a NULL buffer is skipped.
func cstr(dst *C.char, s string) {
	if dst == nil {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(dst)), len(s)+1)
	copy(b, s)
	b[len(s)] = 0
}

// setInt stores v through p unless p is NULL.
func setInt(p *C.int, v int) {
	if p != nil {
		*p = C.int(v)
	}
}

// setOff stores v through p unless p is NULL.
func setOff(p *C.MPI_Offset, v int64) {
	if p != nil {
		*p = C.MPI_Offset(v)
	}
}

//export couplet_def_dim
func couplet_def_dim(ncid C.int, name *C.char, length C.MPI_Offset, idp *C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	id, err := f.DefDim(C.GoString(name), int64(length))
	if err == nil {
		setInt(idp, id)
	}
	return status(err)
}

//export couplet_def_var
func couplet_def_var(ncid C.int, name *C.char, xtype, ndims C.int, dimids *C.int, varidp *C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	if ndims < 0 {
		return C.int(nc.EINVAL)
	}
	ds := make([]int, ndims)
	if ndims > 0 {
		if dimids == nil {
			return C.int(nc.EINVAL)
		}
		for i, d := range unsafe.Slice(dimids, int(ndims)) {
			ds[i] = int(d)
		}
	}
	id, err := f.DefVar(C.GoString(name), nc.Type(xtype), ds)
	if err == nil {
		setInt(varidp, id)
	}
	return status(err)
}

//export couplet_set_fill
func couplet_set_fill(ncid, mode C.int, oldp *C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	old, err := f.SetFill(int(mode))
	if err == nil {
		setInt(oldp, old)
	}
	return status(err)
}

//export couplet_del_att
func couplet_del_att(ncid, varid C.int, name *C.char) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	return status(f.DelAtt(int(varid), C.GoString(name)))
}

//export couplet_inq
func couplet_inq(ncid C.int, ndims, nvars, natts, unlim *C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	nd, nv, na, ul, err := f.Inq()
	if err == nil {
		setInt(ndims, nd)
		setInt(nvars, nv)
		setInt(natts, na)
		setInt(unlim, ul)
	}
	return status(err)
}

//export couplet_inq_format
func couplet_inq_format(ncid C.int, fmtp *C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	v, err := f.InqFormat()
	if err == nil {
		setInt(fmtp, int(v))
	}
	return status(err)
}

//export couplet_inq_dim
func couplet_inq_dim(ncid, dimid C.int, name *C.char, lenp *C.MPI_Offset) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	n, l, err := f.InqDim(int(dimid))
	if err == nil {
		cstr(name, n)
		setOff(lenp, l)
	}
	return status(err)
}

//export couplet_inq_dimid
func couplet_inq_dimid(ncid C.int, name *C.char, idp *C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	id, err := f.InqDimID(C.GoString(name))
	if err == nil {
		setInt(idp, id)
	}
	return status(err)
}

//export couplet_inq_var
func couplet_inq_var(ncid, varid C.int, name *C.char, xtypep, ndimsp, dimidsp, nattsp *C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	n, t, dims, natts, err := f.InqVar(int(varid))
	if err != nil {
		return status(err)
	}
	cstr(name, n)
	setInt(xtypep, int(t))
	setInt(ndimsp, len(dims))
	if dimidsp != nil {
		for i, d := range dims {
			*(*C.int)(unsafe.Add(unsafe.Pointer(dimidsp), i*C.sizeof_int)) = C.int(d)
		}
	}
	setInt(nattsp, natts)
	return 0
}

//export couplet_inq_varid
func couplet_inq_varid(ncid C.int, name *C.char, idp *C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	id, err := f.InqVarID(C.GoString(name))
	if err == nil {
		setInt(idp, id)
	}
	return status(err)
}

//export couplet_inq_att
func couplet_inq_att(ncid, varid C.int, name *C.char, xtypep *C.int, lenp *C.MPI_Offset) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	t, l, err := f.InqAtt(int(varid), C.GoString(name))
	if err == nil {
		setInt(xtypep, int(t))
		setOff(lenp, l)
	}
	return status(err)
}

//export couplet_inq_attid
func couplet_inq_attid(ncid, varid C.int, name *C.char, idp *C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	id, err := f.InqAttID(int(varid), C.GoString(name))
	if err == nil {
		setInt(idp, id)
	}
	return status(err)
}

//export couplet_inq_attname
func couplet_inq_attname(ncid, varid, attnum C.int, name *C.char) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	n, err := f.InqAttName(int(varid), int(attnum))
	if err == nil {
		cstr(name, n)
	}
	return status(err)
}

// Sizes that couplet_inq_size reports.
const (
	sizePut = iota
	sizeGet
	sizeBufferUsage
)

//export couplet_inq_size
func couplet_inq_size(ncid, what C.int, p *C.MPI_Offset) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	var v int64
	switch what {
	case sizePut:
		v, err = f.InqPutSize()
	case sizeGet:
		v, err = f.InqGetSize()
	default:
		v, err = f.InqBufferUsage()
	}
	if err == nil {
		setOff(p, v)
	}
	return status(err)
}

//export couplet_inq_nreqs
func couplet_inq_nreqs(ncid C.int, p *C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	n, err := f.InqNReqs()
	if err == nil {
		setInt(p, n)
	}
	return status(err)
}
