// Package cpnc is a thin cgo binding to the real libpnetcdf. Every call holds
// mpi.LockIO: libpnetcdf is not thread-safe, and it does MPI-IO, which a
// thread that only progresses MPI must stay out of meanwhile. Status codes
// come back as nc.Error values; no validation happens here.
package cpnc

/*
#cgo pkg-config: pnetcdf ompi-c
#include <stdlib.h>
#include <pnetcdf.h>
#include "typed.h"
*/
import "C"

import (
	"unsafe"

	"github.com/couplet-hpc/couplet/mpi"
	"github.com/couplet-hpc/couplet/nc"
)

// lock serialises every call into libpnetcdf, and keeps dtf's background
// progress out of MPI during it (mpi.LockIO).
func lock() func() { mpi.LockIO(); return mpi.UnlockIO }

// status turns a libpnetcdf return code into an error.
func status(rc C.int) error {
	if rc == C.NC_NOERR {
		return nil
	}
	return nc.Error(rc)
}

// offs returns a C view of s, or NULL for a nil slice (libpnetcdf reads it during the call only).
func offs(s []int64) *C.MPI_Offset {
	if s == nil {
		return nil
	}
	if len(s) == 0 {
		return (*C.MPI_Offset)(unsafe.Pointer(&zeroOff))
	}
	return (*C.MPI_Offset)(unsafe.Pointer(&s[0]))
}

var zeroOff int64

func cstr(s string) (*C.char, func()) {
	p := C.CString(s)
	return p, func() { C.free(unsafe.Pointer(p)) }
}

// Strerror returns libpnetcdf's message for code.
func Strerror(code int) string {
	defer lock()()
	return C.GoString(C.ncmpi_strerror(C.int(code)))
}

// Create creates path on the MPI communicator comm (a raw MPI_Comm) and returns its ncid.
func Create(comm unsafe.Pointer, path string, mode int) (int, error) {
	p, free := cstr(path)
	defer free()
	defer lock()()
	var id C.int
	err := status(C.ncmpi_create(C.MPI_Comm(comm), p, C.int(mode), C.MPI_INFO_NULL, &id))
	return int(id), err
}

// Open opens path on comm and returns its ncid.
func Open(comm unsafe.Pointer, path string, mode int) (int, error) {
	p, free := cstr(path)
	defer free()
	defer lock()()
	var id C.int
	err := status(C.ncmpi_open(C.MPI_Comm(comm), p, C.int(mode), C.MPI_INFO_NULL, &id))
	return int(id), err
}

// Close closes ncid.
func Close(ncid int) error { defer lock()(); return status(C.ncmpi_close(C.int(ncid))) }

// Redef enters define mode.
func Redef(ncid int) error { defer lock()(); return status(C.ncmpi_redef(C.int(ncid))) }

// Enddef leaves define mode.
func Enddef(ncid int) error { defer lock()(); return status(C.ncmpi_enddef(C.int(ncid))) }

// Sync flushes ncid to storage.
func Sync(ncid int) error { defer lock()(); return status(C.ncmpi_sync(C.int(ncid))) }

// BeginIndep enters independent data mode.
func BeginIndep(ncid int) error { defer lock()(); return status(C.ncmpi_begin_indep_data(C.int(ncid))) }

// EndIndep returns to collective data mode.
func EndIndep(ncid int) error { defer lock()(); return status(C.ncmpi_end_indep_data(C.int(ncid))) }

// DefDim defines a dimension and returns its id.
func DefDim(ncid int, name string, length int64) (int, error) {
	p, free := cstr(name)
	defer free()
	defer lock()()
	var id C.int
	err := status(C.ncmpi_def_dim(C.int(ncid), p, C.MPI_Offset(length), &id))
	return int(id), err
}

// DefVar defines a variable and returns its id.
func DefVar(ncid int, name string, t nc.Type, dimids []int) (int, error) {
	p, free := cstr(name)
	defer free()
	ids := make([]C.int, len(dimids)+1)
	for i, d := range dimids {
		ids[i] = C.int(d)
	}
	defer lock()()
	var id C.int
	err := status(C.ncmpi_def_var(C.int(ncid), p, C.nc_type(t), C.int(len(dimids)), &ids[0], &id))
	return int(id), err
}

// RenameDim renames a dimension.
func RenameDim(ncid, dimid int, name string) error {
	p, free := cstr(name)
	defer free()
	defer lock()()
	return status(C.ncmpi_rename_dim(C.int(ncid), C.int(dimid), p))
}

// RenameVar renames a variable.
func RenameVar(ncid, varid int, name string) error {
	p, free := cstr(name)
	defer free()
	defer lock()()
	return status(C.ncmpi_rename_var(C.int(ncid), C.int(varid), p))
}

// PutAtt stores an attribute whose data is already in its external type t.
func PutAtt(ncid, varid int, name string, t nc.Type, data []byte) error {
	p, free := cstr(name)
	defer free()
	n := 0
	if t.Size() > 0 {
		n = len(data) / t.Size()
	}
	var buf unsafe.Pointer
	if len(data) > 0 {
		buf = unsafe.Pointer(&data[0])
	} else {
		buf = unsafe.Pointer(&zeroOff)
	}
	defer lock()()
	return status(C.ncmpi_put_att(C.int(ncid), C.int(varid), p, C.nc_type(t), C.MPI_Offset(n), buf))
}

// GetAtt reads attribute name in its external type.
func GetAtt(ncid, varid int, name string) (nc.Type, []byte, error) {
	t, n, err := InqAtt(ncid, varid, name)
	if err != nil {
		return 0, nil, err
	}
	data := make([]byte, int(n)*t.Size()+8)
	p, free := cstr(name)
	defer free()
	defer lock()()
	err = status(C.ncmpi_get_att(C.int(ncid), C.int(varid), p, unsafe.Pointer(&data[0])))
	return t, data[:int(n)*t.Size()], err
}

// InqAtt returns an attribute's type and length.
func InqAtt(ncid, varid int, name string) (nc.Type, int64, error) {
	p, free := cstr(name)
	defer free()
	defer lock()()
	var t C.nc_type
	var n C.MPI_Offset
	err := status(C.ncmpi_inq_att(C.int(ncid), C.int(varid), p, &t, &n))
	return nc.Type(t), int64(n), err
}

// InqAttName returns the name of attribute number i.
func InqAttName(ncid, varid, i int) (string, error) {
	var buf [C.NC_MAX_NAME + 1]C.char
	defer lock()()
	err := status(C.ncmpi_inq_attname(C.int(ncid), C.int(varid), C.int(i), &buf[0]))
	return C.GoString(&buf[0]), err
}

// DelAtt deletes an attribute.
func DelAtt(ncid, varid int, name string) error {
	p, free := cstr(name)
	defer free()
	defer lock()()
	return status(C.ncmpi_del_att(C.int(ncid), C.int(varid), p))
}

// RenameAtt renames an attribute.
func RenameAtt(ncid, varid int, from, to string) error {
	p, free := cstr(from)
	defer free()
	q, free2 := cstr(to)
	defer free2()
	defer lock()()
	return status(C.ncmpi_rename_att(C.int(ncid), C.int(varid), p, q))
}

// DefVarFill sets a variable's fill mode and, if fill is not nil, its fill value.
func DefVarFill(ncid, varid int, noFill bool, fill []byte) error {
	var fp unsafe.Pointer
	if len(fill) > 0 {
		fp = unsafe.Pointer(&fill[0])
	}
	nf := C.int(0)
	if noFill {
		nf = 1
	}
	defer lock()()
	return status(C.ncmpi_def_var_fill(C.int(ncid), C.int(varid), nf, fp))
}

// InqVarFill returns a variable's fill mode and fill value (size bytes).
func InqVarFill(ncid, varid, size int) (bool, []byte, error) {
	buf := make([]byte, size+8)
	var nf C.int
	defer lock()()
	err := status(C.ncmpi_inq_var_fill(C.int(ncid), C.int(varid), &nf, unsafe.Pointer(&buf[0])))
	return nf != 0, buf[:size], err
}

// SetFill sets the file's fill mode and returns the previous one.
func SetFill(ncid, mode int) (int, error) {
	var old C.int
	defer lock()()
	err := status(C.ncmpi_set_fill(C.int(ncid), C.int(mode), &old))
	return int(old), err
}

// Inq returns the numbers of dimensions, variables and global attributes and the record dimension id.
func Inq(ncid int) (ndims, nvars, natts, unlim int, err error) {
	var a, b, c, d C.int
	defer lock()()
	err = status(C.ncmpi_inq(C.int(ncid), &a, &b, &c, &d))
	return int(a), int(b), int(c), int(d), err
}

// InqFormat returns the file format (1, 2 or 5).
func InqFormat(ncid int) (int, error) {
	var f C.int
	defer lock()()
	err := status(C.ncmpi_inq_format(C.int(ncid), &f))
	return int(f), err
}

// InqDim returns a dimension's name and length (the record count for the record dimension).
func InqDim(ncid, dimid int) (string, int64, error) {
	var buf [C.NC_MAX_NAME + 1]C.char
	var n C.MPI_Offset
	defer lock()()
	err := status(C.ncmpi_inq_dim(C.int(ncid), C.int(dimid), &buf[0], &n))
	return C.GoString(&buf[0]), int64(n), err
}

// InqVar returns a variable's name, type, dimension ids and attribute count.
func InqVar(ncid, varid int) (string, nc.Type, []int, int, error) {
	var buf [C.NC_MAX_NAME + 1]C.char
	var t C.nc_type
	var nd, na C.int
	defer lock()()
	if err := status(C.ncmpi_inq_varndims(C.int(ncid), C.int(varid), &nd)); err != nil {
		return "", 0, nil, 0, err
	}
	ids := make([]C.int, int(nd)+1) // NC_MAX_VAR_DIMS is INT_MAX here
	err := status(C.ncmpi_inq_var(C.int(ncid), C.int(varid), &buf[0], &t, &nd, &ids[0], &na))
	dims := make([]int, int(nd))
	for i := range dims {
		dims[i] = int(ids[i])
	}
	return C.GoString(&buf[0]), nc.Type(t), dims, int(na), err
}

// mpiType returns the MPI datatype of a buffer of t, which libpnetcdf converts from or to.
func mpiType(t nc.Type) C.MPI_Datatype { return C.mpi_type_of(C.int(t)) }

// Req is one hyperslab request: Stride and Imap may be nil; Buf holds N elements of BufType
// (or more for an Imap layout). Buf must stay pinned until the request completes.
type Req struct {
	Varid                      int
	Start, Count, Stride, Imap []int64
	Buf                        unsafe.Pointer
	N                          int64
	BufType                    nc.Type
}

// Kind selects a nonblocking call.
type Kind int

// Nonblocking call kinds.
const (
	KindIPut Kind = iota
	KindIGet
	KindBPut
)

// Post posts a nonblocking iput, iget or bput and returns its request id.
func Post(ncid int, k Kind, r Req) (int, error) {
	var id C.int
	defer lock()()
	st, ct, sd, im := offs(r.Start), offs(r.Count), offs(r.Stride), offs(r.Imap)
	bc, bt := C.MPI_Offset(r.N), mpiType(r.BufType)
	var rc C.int
	switch k {
	case KindIPut:
		rc = C.ncmpi_iput_varm(C.int(ncid), C.int(r.Varid), st, ct, sd, im, r.Buf, bc, bt, &id)
	case KindIGet:
		rc = C.ncmpi_iget_varm(C.int(ncid), C.int(r.Varid), st, ct, sd, im, r.Buf, bc, bt, &id)
	case KindBPut:
		rc = C.ncmpi_bput_varm(C.int(ncid), C.int(r.Varid), st, ct, sd, im, r.Buf, bc, bt, &id)
	}
	return int(id), status(rc)
}

// Wait completes requests ids (nil with REQ_ALL semantics when all is set), collectively or
// independently, and returns each request's status.
func Wait(ncid int, ids []int, all, coll bool) ([]error, error) {
	n := len(ids)
	cids := make([]C.int, n+1)
	sts := make([]C.int, n+1)
	for i, id := range ids {
		cids[i] = C.int(id)
	}
	num := C.int(n)
	if all {
		num = C.NC_REQ_ALL
	}
	defer lock()()
	var rc C.int
	if coll {
		rc = C.ncmpi_wait_all(C.int(ncid), num, &cids[0], &sts[0])
	} else {
		rc = C.ncmpi_wait(C.int(ncid), num, &cids[0], &sts[0])
	}
	return statuses(sts[:n]), status(rc)
}

// Cancel cancels requests ids (or every pending request when all is set).
func Cancel(ncid int, ids []int, all bool) ([]error, error) {
	n := len(ids)
	cids := make([]C.int, n+1)
	sts := make([]C.int, n+1)
	for i, id := range ids {
		cids[i] = C.int(id)
	}
	num := C.int(n)
	if all {
		num = C.NC_REQ_ALL
	}
	defer lock()()
	rc := C.ncmpi_cancel(C.int(ncid), num, &cids[0], &sts[0])
	return statuses(sts[:n]), status(rc)
}

func statuses(s []C.int) []error {
	out := make([]error, len(s))
	for i, c := range s {
		out[i] = status(c)
	}
	return out
}

// BufferAttach attaches an internal buffer of size bytes for bput.
func BufferAttach(ncid int, size int64) error {
	defer lock()()
	return status(C.ncmpi_buffer_attach(C.int(ncid), C.MPI_Offset(size)))
}

// BufferDetach frees the bput buffer.
func BufferDetach(ncid int) error { defer lock()(); return status(C.ncmpi_buffer_detach(C.int(ncid))) }

// BufferUsage reports the bytes of the attached buffer in use.
func BufferUsage(ncid int) (int64, error) {
	var n C.MPI_Offset
	defer lock()()
	err := status(C.ncmpi_inq_buffer_usage(C.int(ncid), &n))
	return int64(n), err
}

// InqPutSize reports the bytes this process wrote, as libpnetcdf counts them.
func InqPutSize(ncid int) (int64, error) {
	var n C.MPI_Offset
	defer lock()()
	err := status(C.ncmpi_inq_put_size(C.int(ncid), &n))
	return int64(n), err
}

// InqGetSize reports the bytes this process read, as libpnetcdf counts them.
func InqGetSize(ncid int) (int64, error) {
	var n C.MPI_Offset
	defer lock()()
	err := status(C.ncmpi_inq_get_size(C.int(ncid), &n))
	return int64(n), err
}
