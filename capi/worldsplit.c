/* The hand-written half of the world split: MPI_Init decides the component
 * (worldsplit.go), MPI_Pcontrol escapes to the real world, and the Fortran
 * init, finalize and pcontrol entry points do the same for Fortran programs.
 * The generated wrappers are in zworldsplit.c. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "worldsplit.h"
#include "_cgo_export.h"

MPI_Comm couplet_world_c = MPI_COMM_NULL;
MPI_Fint couplet_world_f, couplet_world_f0;
volatile int couplet_split_on;
static int split_ready; /* couplet_world_c is set: Pcontrol may turn the split back on */

int couplet_predefined_key(int k) {
	return k == MPI_TAG_UB || k == MPI_HOST || k == MPI_IO || k == MPI_WTIME_IS_GLOBAL ||
	       k == MPI_APPNUM || k == MPI_LASTUSEDCODE || k == MPI_UNIVERSE_SIZE;
}

void *couplet_fortran_real(const char *name) {
	void *p = dlsym(RTLD_DEFAULT, name);
	if (!p) {
		fprintf(stderr, "couplet: Open MPI's Fortran library has no %s\n", name);
		abort();
	}
	return p;
}

void couplet_split_start(MPI_Comm comm) {
	/* The component's communicator looks like a world: the real world's
	 * error handler and name. */
	MPI_Errhandler eh;
	if (PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh) == MPI_SUCCESS) {
		PMPI_Comm_set_errhandler(comm, eh);
		PMPI_Errhandler_free(&eh);
	}
	PMPI_Comm_set_name(comm, "MPI_COMM_WORLD");
	couplet_world_c = comm;
	couplet_world_f = PMPI_Comm_c2f(comm);
	couplet_world_f0 = PMPI_Comm_c2f(MPI_COMM_WORLD);
	split_ready = 1;
	couplet_split_on = 1;
}

int MPI_Init(int *argc, char ***argv) {
	int err = PMPI_Init(argc, argv);
	if (err == MPI_SUCCESS)
		couplet_split_init();
	return err;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
	int err = PMPI_Init_thread(argc, argv, required, provided);
	if (err == MPI_SUCCESS)
		couplet_split_init();
	return err;
}

/* MPI_Pcontrol(0) lets MPI_COMM_WORLD mean the real world again, as DTF's
 * users escaped its split; any other level restores the split. */
int MPI_Pcontrol(const int level, ...) {
	couplet_split_on = level != 0 && split_ready;
	return MPI_SUCCESS;
}

void mpi_init_(MPI_Fint *ierr) {
	static void (*real)(MPI_Fint *);
	if (!real) real = couplet_fortran_real("pmpi_init_");
	real(ierr);
	if (*ierr == MPI_SUCCESS)
		couplet_split_init();
}

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) {
	static void (*real)(MPI_Fint *, MPI_Fint *, MPI_Fint *);
	if (!real) real = couplet_fortran_real("pmpi_init_thread_");
	real(required, provided, ierr);
	if (*ierr == MPI_SUCCESS)
		couplet_split_init();
}

/* mpi_finalize_ ends the coupling runtime as MPI_Finalize does (manual.c):
 * Open MPI's Fortran MPI_FINALIZE never calls the C entry point. */
void mpi_finalize_(MPI_Fint *ierr) {
	MPI_Finalize();
	*ierr = MPI_SUCCESS;
}

void mpi_pcontrol_(MPI_Fint *level) { MPI_Pcontrol(*level); }
