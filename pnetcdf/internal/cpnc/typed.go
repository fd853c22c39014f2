package cpnc

/*
#include "typed.h"
*/
import "C"

import (
	"unsafe"

	"github.com/couplet-hpc/couplet/nc"
)

// Family selects the typed ncmpi_{put,get}_var* call that Typed makes.
type Family int

// Typed call families; Varn passes a single start/count pair.
const (
	Var Family = iota
	Var1
	Vara
	Vars
	Varn
)

// Typed calls ncmpi_{put,get}_<family>_<type>[_all] directly, with nil slices passed as NULL
// pointers. It exists so tests can compare libpnetcdf's own checks with couplet's.
func Typed(put, coll bool, f Family, ncid, varid int, start, count, stride []int64, buf []byte, t nc.Type) error {
	var bp unsafe.Pointer
	if len(buf) > 0 {
		bp = unsafe.Pointer(&buf[0])
	}
	c := C.int(0)
	if coll {
		c = 1
	}
	defer lock()()
	if put {
		return status(C.typed_put(C.int(f), c, C.int(ncid), C.int(varid), offs(start), offs(count), offs(stride), bp, C.int(t)))
	}
	return status(C.typed_get(C.int(f), c, C.int(ncid), C.int(varid), offs(start), offs(count), offs(stride), bp, C.int(t)))
}
