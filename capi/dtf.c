/* DTF's Fortran entry points (gfortran naming: arguments by reference, strings
 * NUL-terminated by the caller, hidden lengths ignored), and the component communicator extension. */
#include "capi.h"
#include "dtf.h"
#include "_cgo_export.h"

MPI_Comm couplet_comm(void) { return (MPI_Comm)couplet_component_comm(); }

void dtf_init_(const char *filename, char *module_name, int *ierr) {
	int err = dtf_init(filename, module_name);
	if (ierr)
		*ierr = err;
}
void dtf_finalize_(int *ierr) {
	int err = dtf_finalize();
	if (ierr)
		*ierr = err;
}
void dtf_transfer_(const char *filename, int *ncid, int *ierr) {
	int err = dtf_transfer(filename, ncid ? *ncid : -1);
	if (ierr)
		*ierr = err;
}
void dtf_transfer_all_files_(void) { dtf_transfer_all_files(); }
void dtf_transfer_multiple_(const char *filename, int *ncid) { dtf_transfer_multiple(filename, ncid ? *ncid : -1); }
void dtf_complete_multiple_(const char *filename, int *ncid) { dtf_complete_multiple(filename, ncid ? *ncid : -1); }
void dtf_time_start_(void) { dtf_time_start(); }
void dtf_time_end_(void) { dtf_time_end(); }

/* Fortran: call couplet_comm(comm, ierr). */
void couplet_comm_(MPI_Fint *comm, int *ierr) {
	*comm = PMPI_Comm_c2f(couplet_comm());
	if (ierr)
		*ierr = 0;
}
