// Command capi is libcouplet, a shared library with PnetCDF's C ABI that
// couples unmodified C programs. Build it with
//
//	go build -buildmode=c-shared -o libcouplet.so ./capi
//
// and either link programs with -lcouplet in place of -lpnetcdf (compiling
// against capi/pnetcdf.h or the real <pnetcdf.h>), or start a program linked
// against the real libpnetcdf with LD_PRELOAD=libcouplet.so.
//
// # Routing
//
// Every ncmpi_* call with an ncid is a small C wrapper. Coupled files have
// ncids from 0x10000000 up (libpnetcdf's own are small table indices), so the
// wrapper tells them apart without entering Go: any other ncid is forwarded
// verbatim to the real libpnetcdf, which libcouplet loads with dlopen
// (RTLD_LOCAL|RTLD_DEEPBIND; COUPLET_PNETCDF_LIB names it if libpnetcdf.so is
// not on the loader path) and calls through dlsym pointers, never through its
// own exported names. ncmpi_create/open ask the coupling runtime (dtf) whether
// the path is coupled:
//   - transfer mode: the file is a pnetcdf.File over dtf's backend and never
//     touches libpnetcdf;
//   - file mode: the real libpnetcdf writes and reads the file, and a
//     dtf.FileSession orders the reader's open after the writer's close;
//   - not coupled, or no config at all: the real libpnetcdf alone.
//
// libpnetcdf itself calls many of its public ncmpi_* functions through its
// PLT, so those calls may re-enter libcouplet's wrappers; they carry real
// ncids and are forwarded again, so the real library sees exactly its own
// calls. The Go pnetcdf disk backend (pnetcdf/internal/cpnc) is linked in but
// never used by this library: its ncmpi_* references would bind to
// libcouplet's exports.
//
// # Configuration
//
// DTF_INI_FILE names the config and COUPLET_COMPONENT (or MPMD_COMP) the
// component; in a one-mpirun MPMD launch MPI_APPNUM gives the component. With
// DTF_INI_FILE set and two or more components in the launch, the runtime
// starts in MPI_Init and splits the world (worldsplit.go: MPI_COMM_WORLD then
// means the component, in C and Fortran); otherwise it starts lazily in the
// first ncmpi_create or ncmpi_open of a file the config names, unless the
// program called dtf_init first. A runtime started that way (or a dtf_init
// without dtf_finalize) is finalised in MPI_Finalize, which libcouplet
// interposes through the MPI profiling interface (PMPI_Finalize does the
// real work). Files no [FILE] names, and every file without DTF_INI_FILE, are
// forwarded.
//
// # MPI and threads
//
// libcouplet never initialises MPI: ncmpi_create/open and dtf_init run after
// the program's MPI_Init, and the world split right after it. Every MPI call
// the library makes happens inside a library call, on the calling thread (a cgo callback keeps its goroutine on
// the calling OS thread, and calls from Go into C stay on it), so a program
// with MPI_THREAD_FUNNELED that calls PnetCDF from its main thread sees MPI
// called from its main thread only, and never concurrently. dtf starts its
// background progress goroutine only when MPI provides MPI_THREAD_MULTIPLE.
// One mutex serialises the library's Go side.
package main

/*
#cgo pkg-config: ompi-c
#cgo LDFLAGS: -ldl
// libcouplet defines every ncmpi_* itself, so without --no-as-needed the linker
// would drop libpnetcdf; then the dlopen in real.c would load it apart
// (RTLD_DEEPBIND), where it sees other copies of MPI's predefined objects
// (MPI_INFO_NULL) than the program does.
#cgo LDFLAGS: -Wl,--no-as-needed -lpnetcdf -Wl,--as-needed
#include "capi.h"
*/
import "C"

import _ "github.com/couplet-hpc/couplet/transport/all" // the transports dtf picks from by name

//go:generate go run ./gen

func main() {}
