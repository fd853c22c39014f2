package mpi

// #include "io.h"
import "C"

import "runtime"

// The MPI-IO exclusion keeps a thread that enters MPI only to progress it out of MPI
// while another thread is inside an MPI-IO call. Open MPI's MPI-IO component (OMPIO) is
// not thread safe, even under MPI_THREAD_MULTIPLE (open-mpi/ompi#1765): its progress
// callback, which opal_progress runs inside any MPI call on any thread, walks the list of
// file requests in flight while the thread doing the I/O changes it, and a collective
// write crashed in that callback on a corrupted entry. It lives in C (io.c) so that
// libcouplet's C wrappers take it around their calls into the real libpnetcdf too.

// LockIO is held for the duration of a call that may enter MPI-IO (every libpnetcdf call
// on a real file); it waits while a progress-only caller holds it. Holds nest, and the
// caller stays on its OS thread until UnlockIO, since a hold belongs to a thread.
func LockIO() {
	runtime.LockOSThread()
	C.couplet_io_enter()
}

// UnlockIO releases LockIO or a successful TryLockIO.
func UnlockIO() {
	C.couplet_io_leave()
	runtime.UnlockOSThread()
}

// TryLockIO is what a progress-only caller (dtf's background goroutine) takes before it
// enters MPI; false means another thread is inside MPI-IO, so it should look again later.
func TryLockIO() bool {
	runtime.LockOSThread()
	if C.couplet_io_try() == 0 {
		runtime.UnlockOSThread()
		return false
	}
	return true
}
