package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/couplet-hpc/couplet/nc"
	"github.com/couplet-hpc/couplet/pnetcdf"
)

//export couplet_put_att
func couplet_put_att(ncid, varid C.int, name *C.char, xtype C.int, n C.MPI_Offset, memtype C.int, buf unsafe.Pointer) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	if n < 0 {
		return C.int(nc.EINVAL)
	}
	v, nm, xt, cnt := int(varid), C.GoString(name), nc.Type(xtype), int64(n)
	switch nc.Type(memtype) {
	case nc.BYTE:
		err = pnetcdf.PutAtt(f, v, nm, xt, cslice[int8](buf, cnt))
	case nc.CHAR:
		err = pnetcdf.PutAtt(f, v, nm, xt, cslice[nc.Text](buf, cnt))
	case nc.SHORT:
		err = pnetcdf.PutAtt(f, v, nm, xt, cslice[int16](buf, cnt))
	case nc.INT:
		err = pnetcdf.PutAtt(f, v, nm, xt, cslice[int32](buf, cnt))
	case nc.FLOAT:
		err = pnetcdf.PutAtt(f, v, nm, xt, cslice[float32](buf, cnt))
	case nc.DOUBLE:
		err = pnetcdf.PutAtt(f, v, nm, xt, cslice[float64](buf, cnt))
	case nc.UBYTE:
		err = pnetcdf.PutAtt(f, v, nm, xt, cslice[uint8](buf, cnt))
	case nc.USHORT:
		err = pnetcdf.PutAtt(f, v, nm, xt, cslice[uint16](buf, cnt))
	case nc.UINT:
		err = pnetcdf.PutAtt(f, v, nm, xt, cslice[uint32](buf, cnt))
	case nc.INT64:
		err = pnetcdf.PutAtt(f, v, nm, xt, cslice[int64](buf, cnt))
	case nc.UINT64:
		err = pnetcdf.PutAtt(f, v, nm, xt, cslice[uint64](buf, cnt))
	default:
		err = nc.EBADTYPE
	}
	return status(err)
}

//export couplet_get_att
func couplet_get_att(ncid, varid C.int, name *C.char, memtype C.int, buf unsafe.Pointer) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	v, nm := int(varid), C.GoString(name)
	t, _, err := f.InqAtt(v, nm)
	if err != nil {
		return status(err)
	}
	mt := nc.Type(memtype)
	if mt == nc.NAT {
		mt = t
	}
	switch mt {
	case nc.BYTE:
		err = getAtt[int8](f, v, nm, buf)
	case nc.CHAR:
		err = getAtt[nc.Text](f, v, nm, buf)
	case nc.SHORT:
		err = getAtt[int16](f, v, nm, buf)
	case nc.INT:
		err = getAtt[int32](f, v, nm, buf)
	case nc.FLOAT:
		err = getAtt[float32](f, v, nm, buf)
	case nc.DOUBLE:
		err = getAtt[float64](f, v, nm, buf)
	case nc.UBYTE:
		err = getAtt[uint8](f, v, nm, buf)
	case nc.USHORT:
		err = getAtt[uint16](f, v, nm, buf)
	case nc.UINT:
		err = getAtt[uint32](f, v, nm, buf)
	case nc.INT64:
		err = getAtt[int64](f, v, nm, buf)
	case nc.UINT64:
		err = getAtt[uint64](f, v, nm, buf)
	default:
		err = nc.EBADTYPE
	}
	return status(err)
}

// getAtt reads an attribute converted to T into the caller's buffer.
func getAtt[T nc.Elem](f *pnetcdf.File, varid int, name string, buf unsafe.Pointer) error {
	vals, err := pnetcdf.GetAtt[T](f, varid, name)
	if err != nil {
		return err
	}
	if len(vals) > 0 {
		if buf == nil {
			return nc.EINVAL
		}
		copy(cslice[T](buf, int64(len(vals))), vals)
	}
	return nil
}
