package main

/*
#include "capi.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
)

// Operations and families of couplet_data; capi/gen uses the same codes.
const (
	opPut = iota
	opGet
	opIPut
	opIGet
	opBPut
)

const (
	famVar = iota
	famVar1
	famVara
	famVars
	famVarm
	famVarn // Go only: the C entry of varn is couplet_varn
)

// dcall is one data call on a coupled file, converted from C.
type dcall struct {
	op, fam                    int
	coll                       bool
	varid                      int
	start, count, stride, imap []int64
	starts, counts             [][]int64 // varn: the (start, count) pairs, in the order they fill buf
	buf                        unsafe.Pointer
	n                          int64 // elements of the memory type in buf
}

// offsets copies n MPI_Offsets from C (nil for NULL).
func offsets(p *C.MPI_Offset, n int) []int64 {
	if p == nil {
		return nil
	}
	out := make([]int64, n)
	for i, v := range unsafe.Slice(p, n) {
		out[i] = int64(v)
	}
	return out
}

// elems is how many memory elements the call touches: what PnetCDF reads
// from or writes to buf.
func (c *dcall) elems(f *pnetcdf.File, dims []int) (int64, error) {
	prod := func(xs []int64) int64 {
		n := int64(1)
		for _, x := range xs {
			n *= x
		}
		return n
	}
	switch c.fam {
	case famVar:
		n := int64(1)
		for _, d := range dims {
			l, err := f.InqDimLen(d)
			if err != nil {
				return 0, err
			}
			n *= l
		}
		return n, nil
	case famVar1:
		return 1, nil
	case famVarm:
		if c.imap != nil && c.count != nil {
			end := int64(1)
			for i, k := range c.count {
				if k == 0 {
					return 0, nil
				}
				end += (k - 1) * c.imap[i]
			}
			return end, nil
		}
	}
	if c.count == nil {
		return 0, nil
	}
	return prod(c.count), nil
}

//export couplet_data
func couplet_data(ncid, varid, op, fam, coll, memtype C.int, start, count, stride, imap *C.MPI_Offset,
	buf unsafe.Pointer, bufcount C.MPI_Offset, req *C.int) C.int {
	c := &dcall{op: int(op), fam: int(fam), coll: coll != 0, varid: int(varid), buf: buf}
	return request(ncid, c, memtype, bufcount, req, func(f *pnetcdf.File, dims []int) error {
		nd := len(dims)
		if c.fam == famVar1 {
			c.start = offsets(start, nd)
		} else {
			c.start, c.count = offsets(start, nd), offsets(count, nd)
			c.stride, c.imap = offsets(stride, nd), offsets(imap, nd)
		}
		var err error
		c.n, err = c.elems(f, dims)
		return err
	})
}

// request runs one data call of any family on a coupled file: the C entries
// (couplet_data, couplet_varn, and vard through varn) all funnel into it, as
// PnetCDF's API funnels into its dispatch layer. memtype is the buffer's
// element type, NC_NAT for the variable's own, or -1 for the derived buftype
// that couplet_memtype noted. shape fills the call's index arguments once the
// variable's dimensions are known; for a bad varid it is not called, and the
// front end reports the error in PnetCDF's check order.
func request(ncid C.int, c *dcall, memtype C.int, bufcount C.MPI_Offset, req *C.int, shape func(*pnetcdf.File, []int) error) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	mt := nc.Type(memtype)
	var d *derivedBuf
	if memtype < 0 {
		if d, mt, err = takeDerived(c.buf, bufcount); err != nil {
			return status(err)
		}
	}
	_, vt, dims, _, verr := f.InqVar(c.varid)
	if verr == nil {
		if mt == nc.NAT {
			mt = vt
		}
		if err := shape(f, dims); err != nil {
			d.free()
			return status(err)
		}
	}
	if d != nil && verr != nil {
		d.free() // the front end reports the bad varid
		d = nil
	}
	if d != nil {
		if err := d.attach(c, mt, c.n); err != nil {
			return status(err)
		}
	} else if bufcount >= 0 && int64(bufcount) < c.n {
		c.n = int64(bufcount)
	}
	id, err := dispatchData(mt, f, c)
	if d != nil {
		if derr := d.afterPost(int(ncid), id, c.op, err); err == nil {
			err = derr
		}
	}
	if err == nil && req != nil {
		*req = C.int(id)
	}
	return status(err)
}

// dispatchData instantiates the typed call for the memory type.
func dispatchData(t nc.Type, f *pnetcdf.File, c *dcall) (int, error) {
	switch t {
	case nc.BYTE:
		return data[int8](f, c)
	case nc.CHAR:
		return data[nc.Text](f, c)
	case nc.SHORT:
		return data[int16](f, c)
	case nc.INT:
		return data[int32](f, c)
	case nc.FLOAT:
		return data[float32](f, c)
	case nc.DOUBLE:
		return data[float64](f, c)
	case nc.UBYTE:
		return data[uint8](f, c)
	case nc.USHORT:
		return data[uint16](f, c)
	case nc.UINT:
		return data[uint32](f, c)
	case nc.INT64:
		return data[int64](f, c)
	case nc.UINT64:
		return data[uint64](f, c)
	}
	return 0, nc.Errorf(nc.EBADTYPE, "memory type %v", t)
}

// cslice views n elements of C memory at p as a Go slice (empty for NULL).
func cslice[T nc.Elem](p unsafe.Pointer, n int64) []T {
	if p == nil || n <= 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(p), n)
}

// data runs one typed call through the Go pnetcdf front end, which validates
// it in PnetCDF's order. C memory stays valid as PnetCDF promises: until the
// call returns for blocking calls, until wait for nonblocking ones.
func data[T nc.Elem](f *pnetcdf.File, c *dcall) (int, error) {
	b := cslice[T](c.buf, c.n)
	v, st, ct, sd, im := c.varid, c.start, c.count, c.stride, c.imap
	if c.fam == famVarn {
		return varn(f, c, b)
	}
	switch c.op {
	case opPut:
		return 0, pickPut(c, f, v, st, ct, sd, im, b)
	case opGet:
		return 0, pickGet(c, f, v, st, ct, sd, im, b)
	case opIPut:
		switch c.fam {
		case famVar:
			return pnetcdf.IPutVar(f, v, b)
		case famVar1:
			return pnetcdf.IPutVar1(f, v, st, b)
		case famVara:
			return pnetcdf.IPutVara(f, v, st, ct, b)
		case famVars:
			return pnetcdf.IPutVars(f, v, st, ct, sd, b)
		case famVarm:
			return pnetcdf.IPutVarm(f, v, st, ct, sd, im, b)
		}
	case opIGet:
		switch c.fam {
		case famVar:
			return pnetcdf.IGetVar(f, v, b)
		case famVar1:
			return pnetcdf.IGetVar1(f, v, st, b)
		case famVara:
			return pnetcdf.IGetVara(f, v, st, ct, b)
		case famVars:
			return pnetcdf.IGetVars(f, v, st, ct, sd, b)
		case famVarm:
			return pnetcdf.IGetVarm(f, v, st, ct, sd, im, b)
		}
	case opBPut:
		switch c.fam {
		case famVar:
			return pnetcdf.BPutVar(f, v, b)
		case famVar1:
			return pnetcdf.BPutVar1(f, v, st, b)
		case famVara:
			return pnetcdf.BPutVara(f, v, st, ct, b)
		case famVars:
			return pnetcdf.BPutVars(f, v, st, ct, sd, b)
		case famVarm:
			return pnetcdf.BPutVarm(f, v, st, ct, sd, im, b)
		}
	}
	return 0, fmt.Errorf("bad data call op %d family %d", c.op, c.fam)
}

// varn runs a varn call of any operation.
func varn[T nc.Elem](f *pnetcdf.File, c *dcall, b []T) (int, error) {
	v, ss, cs := c.varid, c.starts, c.counts
	switch c.op {
	case opPut:
		if c.coll {
			return 0, pnetcdf.PutVarnAll(f, v, ss, cs, b)
		}
		return 0, pnetcdf.PutVarn(f, v, ss, cs, b)
	case opGet:
		if c.coll {
			return 0, pnetcdf.GetVarnAll(f, v, ss, cs, b)
		}
		return 0, pnetcdf.GetVarn(f, v, ss, cs, b)
	case opIPut:
		return pnetcdf.IPutVarn(f, v, ss, cs, b)
	case opIGet:
		return pnetcdf.IGetVarn(f, v, ss, cs, b)
	case opBPut:
		return pnetcdf.BPutVarn(f, v, ss, cs, b)
	}
	return 0, fmt.Errorf("bad varn call op %d", c.op)
}

// pickPut runs a blocking put of c's family, collective or independent.
func pickPut[T nc.Elem](c *dcall, f *pnetcdf.File, v int, st, ct, sd, im []int64, b []T) error {
	switch c.fam {
	case famVar:
		if c.coll {
			return pnetcdf.PutVarAll(f, v, b)
		}
		return pnetcdf.PutVar(f, v, b)
	case famVar1:
		if c.coll {
			return pnetcdf.PutVar1All(f, v, st, b)
		}
		return pnetcdf.PutVar1(f, v, st, b)
	case famVara:
		if c.coll {
			return pnetcdf.PutVaraAll(f, v, st, ct, b)
		}
		return pnetcdf.PutVara(f, v, st, ct, b)
	case famVars:
		if c.coll {
			return pnetcdf.PutVarsAll(f, v, st, ct, sd, b)
		}
		return pnetcdf.PutVars(f, v, st, ct, sd, b)
	case famVarm:
		if c.coll {
			return pnetcdf.PutVarmAll(f, v, st, ct, sd, im, b)
		}
		return pnetcdf.PutVarm(f, v, st, ct, sd, im, b)
	}
	return nc.EINVAL
}

// pickGet runs a blocking get of c's family, collective or independent.
func pickGet[T nc.Elem](c *dcall, f *pnetcdf.File, v int, st, ct, sd, im []int64, b []T) error {
	switch c.fam {
	case famVar:
		if c.coll {
			return pnetcdf.GetVarAll(f, v, b)
		}
		return pnetcdf.GetVar(f, v, b)
	case famVar1:
		if c.coll {
			return pnetcdf.GetVar1All(f, v, st, b)
		}
		return pnetcdf.GetVar1(f, v, st, b)
	case famVara:
		if c.coll {
			return pnetcdf.GetVaraAll(f, v, st, ct, b)
		}
		return pnetcdf.GetVara(f, v, st, ct, b)
	case famVars:
		if c.coll {
			return pnetcdf.GetVarsAll(f, v, st, ct, sd, b)
		}
		return pnetcdf.GetVars(f, v, st, ct, sd, b)
	case famVarm:
		if c.coll {
			return pnetcdf.GetVarmAll(f, v, st, ct, sd, im, b)
		}
		return pnetcdf.GetVarm(f, v, st, ct, sd, im, b)
	}
	return nc.EINVAL
}
