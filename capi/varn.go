package main

/*
#include <stdlib.h>
#include "capi.h"
#include "more.h"
*/
import "C"

import (
	"unsafe"

	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
)

//export couplet_varn
func couplet_varn(ncid, varid, op, coll, memtype, num C.int, starts, counts **C.MPI_Offset,
	buf unsafe.Pointer, bufcount C.MPI_Offset, req *C.int) C.int {
	c := &dcall{op: int(op), fam: famVarn, coll: coll != 0, varid: int(varid), buf: buf}
	return request(ncid, c, memtype, bufcount, req, func(_ *pnetcdf.File, dims []int) error {
		if num < 0 {
			return nc.EINVAL
		}
		if num > 0 && starts == nil {
			return nc.ENULLSTART
		}
		nd := len(dims)
		var ss, cs []*C.MPI_Offset
		if num > 0 {
			ss = unsafe.Slice(starts, int(num))
			if counts != nil {
				cs = unsafe.Slice(counts, int(num))
			}
		}
		for i := 0; i < int(num); i++ {
			st := offsets(ss[i], nd)
			var ct []int64
			if cs != nil && cs[i] != nil {
				ct = offsets(cs[i], nd)
			} else { // NULL counts: one element per start, as in PnetCDF
				ct = make([]int64, nd)
				for k := range ct {
					ct[k] = 1
				}
			}
			n := int64(1)
			for _, k := range ct {
				n *= k
			}
			c.starts, c.counts, c.n = append(c.starts, st), append(c.counts, ct), c.n+n
		}
		return nil
	})
}

//export couplet_vard
func couplet_vard(ncid, varid, op, coll C.int, filetype C.MPI_Datatype, buf unsafe.Pointer,
	bufcount C.MPI_Offset, buftype C.MPI_Datatype) C.int {
	mu.Lock()
	f, err := file(ncid)
	if err != nil {
		mu.Unlock()
		return status(err)
	}
	h, err := f.Header()
	mu.Unlock()
	if err != nil {
		return status(err)
	}
	v := int(varid)
	if v < 0 || v >= len(h.Vars) {
		return status(nc.ENOTVAR)
	}
	// The filetype's byte runs, relative to the variable's first element,
	// become boxes of whole rows: a varn request over the same buffer.
	var off, ln *C.MPI_Offset
	var n C.int
	if e := C.couplet_flatten(filetype, &off, &ln, &n); e != 0 {
		return e
	}
	defer C.free(unsafe.Pointer(off))
	defer C.free(unsafe.Pointer(ln))
	xsz := int64(h.Vars[v].Type.Size())
	shape := h.Shape(v)
	rec := h.IsRecordVar(v)
	per := int64(1) // elements of one record (or of the whole fixed-size variable)
	for k, s := range shape {
		if k == 0 && rec {
			continue
		}
		per *= s
	}
	recBytes := per * xsz
	if rec {
		recBytes = recSize(h)
	}
	var starts, counts [][]int64
	for i := 0; i < int(n); i++ {
		o := int64(unsafe.Slice(off, int(n))[i])
		l := int64(unsafe.Slice(ln, int(n))[i])
		if o%xsz != 0 || l%xsz != 0 {
			return status(nc.Errorf(nc.EINVAL, "vard filetype run at byte %d of %d bytes is not made of whole %v elements", o, l, h.Vars[v].Type))
		}
		for l > 0 {
			var r int64
			if rec {
				r, o = o/recBytes, o%recBytes
			}
			e := o / xsz // element within the record (or variable)
			if e >= per {
				return status(nc.Errorf(nc.EINVALCOORDS, "vard filetype reaches element %d of a variable of %d", e, per))
			}
			idx := make([]int64, len(shape))
			rem := e
			for k := len(shape) - 1; k >= 0; k-- {
				if k == 0 && rec {
					idx[k] = r
					break
				}
				idx[k] = rem % shape[k]
				rem /= shape[k]
			}
			run := l / xsz
			last := int64(1)
			if len(shape) > 0 && !(rec && len(shape) == 1) {
				last = shape[len(shape)-1] - idx[len(shape)-1]
			}
			take := min(run, last)
			cnt := make([]int64, len(shape))
			for k := range cnt {
				cnt[k] = 1
			}
			if len(cnt) > 0 {
				cnt[len(cnt)-1] = take
			}
			starts, counts = append(starts, idx), append(counts, cnt)
			o += r*recBytes + take*xsz
			l -= take * xsz
		}
	}
	if len(shape) == 0 { // a scalar: one element at no index
		starts, counts = starts[:0], counts[:0]
	}
	// A derived buftype (mt -1) is noted for the varn call below, which
	// packs or unpacks it as for any flexible call.
	mt := C.couplet_memtype(buftype)
	if len(shape) == 0 {
		fam := C.int(famVar)
		return couplet_data(ncid, varid, op, fam, coll, mt, nil, nil, nil, nil, buf, bufcount, nil)
	}
	cs := make([]*C.MPI_Offset, len(starts))
	cc := make([]*C.MPI_Offset, len(starts))
	for i := range starts {
		cs[i] = cOffsets(starts[i])
		cc[i] = cOffsets(counts[i])
	}
	defer func() {
		for i := range cs {
			C.free(unsafe.Pointer(cs[i]))
			C.free(unsafe.Pointer(cc[i]))
		}
	}()
	arr := (**C.MPI_Offset)(C.malloc(C.size_t(max(1, len(cs))) * C.size_t(unsafe.Sizeof(cs[0]))))
	arrc := (**C.MPI_Offset)(C.malloc(C.size_t(max(1, len(cc))) * C.size_t(unsafe.Sizeof(cc[0]))))
	defer C.free(unsafe.Pointer(arr))
	defer C.free(unsafe.Pointer(arrc))
	copy(unsafe.Slice(arr, len(cs)), cs)
	copy(unsafe.Slice(arrc, len(cc)), cc)
	if buftype == nil || mt == C.NC_NAT {
		bufcount = -1
	}
	return couplet_varn(ncid, varid, op, coll, mt, C.int(len(cs)), arr, arrc, buf, bufcount, nil)
}

// cOffsets copies xs into C memory (freed by the caller).
func cOffsets(xs []int64) *C.MPI_Offset {
	p := (*C.MPI_Offset)(C.malloc(C.size_t(max(1, len(xs))) * 8))
	for i, x := range xs {
		unsafe.Slice(p, len(xs))[i] = C.MPI_Offset(x)
	}
	return p
}
