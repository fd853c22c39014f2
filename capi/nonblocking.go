package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/couplet-hpc/couplet/nc"
)

// Completions of couplet_wait.
const (
	waitIndep = iota
	waitAll
	waitCancel
)

//export couplet_wait
func couplet_wait(ncid, count C.int, reqs, statuses *C.int, what C.int) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	var ids []int
	if count > 0 && reqs != nil {
		for _, r := range unsafe.Slice(reqs, int(count)) {
			ids = append(ids, int(r))
		}
	}
	var sts []error
	switch what {
	case waitIndep:
		sts, err = f.Wait(int(count), ids)
	case waitAll:
		sts, err = f.WaitAll(int(count), ids)
	default:
		sts, err = f.Cancel(int(count), ids)
	}
	if derr := afterWait(int(ncid), ids, sts, count == nc.REQ_ALL, what == waitCancel); err == nil {
		err = derr
	}
	if count > 0 && reqs != nil {
		// PnetCDF sets completed request ids to NC_REQ_NULL.
		rs := unsafe.Slice(reqs, int(count))
		for i := range rs {
			if i < len(sts) && sts[i] == nil {
				rs[i] = C.int(nc.REQ_NULL)
			}
		}
		if statuses != nil {
			ss := unsafe.Slice(statuses, int(count))
			for i := range ss {
				if i < len(sts) {
					ss[i] = C.int(nc.Code(sts[i]))
				}
			}
		}
	}
	return status(err)
}

//export couplet_buffer_attach
func couplet_buffer_attach(ncid C.int, size C.MPI_Offset) C.int {
	mu.Lock()
	defer mu.Unlock()
	f, err := file(ncid)
	if err != nil {
		return status(err)
	}
	return status(f.BufferAttach(int64(size)))
}
