// Package mpi is a thin cgo binding to Open MPI: lifecycle, communicators,
// point-to-point, collectives and subarray datatypes, with MPI errors returned
// as Go errors instead of aborting the job. It calls the PMPI_ entry points,
// so a profiling layer in the same process (libcouplet's world split, which
// makes MPI_COMM_WORLD mean a component) never redirects the runtime's own
// calls: couplet always works on the real world.
package mpi

/*
#cgo pkg-config: ompi-c
#include <mpi.h>
#include <stdlib.h>

static MPI_Comm comm_world(void) { return MPI_COMM_WORLD; }
static MPI_Comm comm_self(void)  { return MPI_COMM_SELF; }
static MPI_Comm comm_null(void)  { return MPI_COMM_NULL; }
static int set_errors_return(MPI_Comm c) { return PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN); }
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// ThreadLevel is an MPI thread-support level.
type ThreadLevel int

// Thread-support levels, in increasing order.
const (
	ThreadSingle     ThreadLevel = C.MPI_THREAD_SINGLE
	ThreadFunneled   ThreadLevel = C.MPI_THREAD_FUNNELED
	ThreadSerialized ThreadLevel = C.MPI_THREAD_SERIALIZED
	ThreadMultiple   ThreadLevel = C.MPI_THREAD_MULTIPLE
)

func (l ThreadLevel) String() string {
	switch l {
	case ThreadSingle:
		return "MPI_THREAD_SINGLE"
	case ThreadFunneled:
		return "MPI_THREAD_FUNNELED"
	case ThreadSerialized:
		return "MPI_THREAD_SERIALIZED"
	case ThreadMultiple:
		return "MPI_THREAD_MULTIPLE"
	}
	return fmt.Sprintf("ThreadLevel(%d)", int(l))
}

// Error is an MPI error code with MPI's own error string.
type Error struct {
	Code int    // the code the call returned
	Msg  string // MPI_Error_string of Code
}

func (e *Error) Error() string { return "mpi: " + e.Msg }

// check turns an MPI return code into an error carrying MPI's error string.
func check(rc C.int) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	var buf [C.MPI_MAX_ERROR_STRING + 1]C.char
	var n C.int
	C.PMPI_Error_string(rc, &buf[0], &n)
	return &Error{Code: int(rc), Msg: C.GoStringN(&buf[0], n)}
}

// Comm is an MPI communicator handle.
type Comm struct{ c C.MPI_Comm }

// World returns MPI_COMM_WORLD.
func World() Comm { return Comm{C.comm_world()} }

// Self returns MPI_COMM_SELF.
func Self() Comm { return Comm{C.comm_self()} }

// Ptr returns the raw MPI_Comm handle, for other cgo bindings (Open MPI handles are pointers).
func (c Comm) Ptr() unsafe.Pointer { return unsafe.Pointer(c.c) }

// CommFromPtr wraps a raw MPI_Comm handle obtained from C code.
func CommFromPtr(p unsafe.Pointer) Comm { return Comm{C.MPI_Comm(p)} }

// IsNull reports whether c is MPI_COMM_NULL.
func (c Comm) IsNull() bool { return c.c == C.comm_null() }

// Init initialises MPI with MPI_THREAD_SINGLE and makes errors return on World and Self.
func Init() error {
	_, err := InitThread(ThreadSingle)
	return err
}

// InitThread initialises MPI asking for level, and reports the level MPI provides.
func InitThread(required ThreadLevel) (ThreadLevel, error) {
	var provided C.int
	if err := check(C.PMPI_Init_thread(nil, nil, C.int(required), &provided)); err != nil {
		return 0, err
	}
	if err := World().SetErrorsReturn(); err != nil {
		return 0, err
	}
	return ThreadLevel(provided), Self().SetErrorsReturn()
}

// QueryThread reports the thread level MPI provides after initialisation.
func QueryThread() ThreadLevel {
	var provided C.int
	C.PMPI_Query_thread(&provided)
	return ThreadLevel(provided)
}

// Initialized reports whether MPI_Init has been called.
func Initialized() bool {
	var flag C.int
	C.PMPI_Initialized(&flag)
	return flag != 0
}

// Finalized reports whether MPI_Finalize has been called.
func Finalized() bool {
	var flag C.int
	C.PMPI_Finalized(&flag)
	return flag != 0
}

// Finalize shuts MPI down.
func Finalize() error { return check(C.PMPI_Finalize()) }

// Abort terminates every process of c with the given exit code.
func Abort(c Comm, code int) error { return check(C.PMPI_Abort(c.c, C.int(code))) }

// SetErrorsReturn makes MPI calls on c return error codes instead of aborting.
func (c Comm) SetErrorsReturn() error { return check(C.set_errors_return(c.c)) }

// Rank returns the calling process's rank in c.
func (c Comm) Rank() int {
	var r C.int
	C.PMPI_Comm_rank(c.c, &r)
	return int(r)
}

// Size returns the number of processes in c.
func (c Comm) Size() int {
	var s C.int
	C.PMPI_Comm_size(c.c, &s)
	return int(s)
}

// Dup duplicates c; the copy has its own message space.
func (c Comm) Dup() (Comm, error) {
	var n C.MPI_Comm
	if err := check(C.PMPI_Comm_dup(c.c, &n)); err != nil {
		return Comm{}, err
	}
	return Comm{n}, nil
}

// Split partitions c by color, ordering ranks by key within each part.
func (c Comm) Split(color, key int) (Comm, error) {
	var n C.MPI_Comm
	if err := check(C.PMPI_Comm_split(c.c, C.int(color), C.int(key), &n)); err != nil {
		return Comm{}, err
	}
	if n != C.comm_null() {
		if err := check(C.set_errors_return(n)); err != nil {
			return Comm{}, err
		}
	}
	return Comm{n}, nil
}

// Free releases a communicator made by Dup or Split.
func (c *Comm) Free() error {
	return check(C.PMPI_Comm_free(&c.c))
}
