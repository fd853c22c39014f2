package main

/*
#include <stdlib.h>
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/couplet-hpc/couplet/nc"
)

// derivedBuf is a flexible call's derived buftype on a coupled file: the
// call runs on a contiguous C buffer of the type's one basic type (packed
// from the user's layout before a put, unpacked into it after a get), as
// libpnetcdf does for disk files.
type derivedBuf struct {
	user  unsafe.Pointer // the user's buffer
	count C.MPI_Offset   // bufcount
	dt    C.MPI_Datatype // a duplicate of buftype, so the user may free theirs
	tmp   unsafe.Pointer // contiguous elements (C memory: it outlives the call)
	bytes C.MPI_Offset   // size of tmp
	n     int64          // elements in tmp
	get   bool           // unpack into user after the data arrived
}

// derivedPending holds the derived buffers of nonblocking requests until
// their wait: coupled ncid -> request id -> buffer.
var derivedPending = map[int]map[int]*derivedBuf{}

// takeDerived takes the derived buftype couplet_memtype noted for this call
// and returns its buffer and the memory type of its elements.
func takeDerived(buf unsafe.Pointer, bufcount C.MPI_Offset) (*derivedBuf, nc.Type, error) {
	var per C.MPI_Offset
	var mt C.int
	d := &derivedBuf{user: buf, count: bufcount}
	if code := C.couplet_derived(&per, &mt, &d.dt); code != 0 {
		return nil, 0, nc.Errorf(nc.Error(code), "buftype: coupled files take derived datatypes built of one basic type "+
			"(contiguous, vector, hvector, subarray, indexed, struct of one type, nested)")
	}
	if bufcount < 0 {
		C.couplet_type_free(d.dt)
		return nil, 0, nc.Errorf(nc.EINVAL, "a derived buftype needs bufcount >= 0, got %d", int64(bufcount))
	}
	d.n = int64(per) * int64(bufcount)
	return d, nc.Type(mt), nil
}

// attach points the call at the contiguous buffer, packing a put's data
// into it. need is how many elements the request touches.
func (d *derivedBuf) attach(c *dcall, t nc.Type, need int64) error {
	if d.n != need && !(c.fam == famVarm && d.n > need) {
		d.free()
		return nc.Errorf(nc.EIOMISMATCH, "bufcount %d of buftype holds %d elements, the request has %d", int64(d.count), d.n, need)
	}
	d.bytes = C.MPI_Offset(d.n * int64(t.Size()))
	d.tmp = C.malloc(C.size_t(max(d.bytes, 1)))
	d.get = c.op == opGet || c.op == opIGet
	if !d.get {
		if code := C.couplet_pack(d.user, d.count, d.dt, d.tmp, d.bytes); code != 0 {
			d.free()
			return nc.Errorf(nc.Error(code), "packing %d elements of the derived buftype", d.n)
		}
	}
	c.buf, c.n = d.tmp, d.n
	return nil
}

// finish ends the buffer's part in a completed call: a get's data goes to
// the user's layout (when the call succeeded), and the buffer is freed.
func (d *derivedBuf) finish(ok bool) error {
	defer d.free()
	if ok && d.get {
		if code := C.couplet_unpack(d.tmp, d.bytes, d.user, d.count, d.dt); code != 0 {
			return nc.Errorf(nc.Error(code), "unpacking into the derived buftype")
		}
	}
	return nil
}

func (d *derivedBuf) free() {
	if d == nil {
		return
	}
	if d.tmp != nil {
		C.free(d.tmp)
		d.tmp = nil
	}
	C.couplet_type_free(d.dt)
}

// afterPost keeps a nonblocking request's buffer until its wait, and
// finishes a blocking call's at once.
func (d *derivedBuf) afterPost(ncid, id int, op int, err error) error {
	if err != nil || (op != opIPut && op != opIGet && op != opBPut) || id == nc.REQ_NULL {
		return d.finish(err == nil)
	}
	if derivedPending[ncid] == nil {
		derivedPending[ncid] = map[int]*derivedBuf{}
	}
	derivedPending[ncid][id] = d
	return nil
}

// afterWait finishes the derived buffers of the requests a wait completed:
// ids with their statuses, or every request of the file for NC_REQ_ALL.
func afterWait(ncid int, ids []int, sts []error, all, cancel bool) error {
	m := derivedPending[ncid]
	if len(m) == 0 {
		return nil
	}
	var first error
	done := func(id int, ok bool) {
		if d, found := m[id]; found {
			delete(m, id)
			if err := d.finish(ok && !cancel); err != nil && first == nil {
				first = err
			}
		}
	}
	if all {
		for id := range m {
			done(id, true)
		}
	}
	for i, id := range ids {
		done(id, i < len(sts) && sts[i] == nil)
	}
	return first
}

// dropDerived frees what a closed file's requests still held.
func dropDerived(ncid int) {
	for _, d := range derivedPending[ncid] {
		d.free()
	}
	delete(derivedPending, ncid)
}
