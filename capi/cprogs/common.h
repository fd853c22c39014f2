/* Helpers shared by the capi test programs. They are plain PnetCDF programs:
 * nothing in them knows about couplet except letkf.c's dtf_* calls. */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The original DTF entry points. libcouplet defines them; they are weak here
 * so the same program also links against the real libpnetcdf alone (where
 * they are absent and skipped) and picks them up from an LD_PRELOADed
 * libcouplet. */
#ifdef COUPLET_PNETCDF_H
#include "dtf.h"
#else
int dtf_init(const char *filename, char *module_name);
int dtf_finalize(void);
int dtf_transfer(const char *filename, int ncid);
void dtf_transfer_multiple(const char *filename, int ncid);
void dtf_complete_multiple(const char *filename, int ncid);
void dtf_time_start(void);
void dtf_time_end(void);
#endif
#pragma weak dtf_init
#pragma weak dtf_finalize
#pragma weak dtf_transfer
#pragma weak dtf_transfer_multiple
#pragma weak dtf_complete_multiple
#pragma weak dtf_time_start
#pragma weak dtf_time_end
#define HAVE_DTF (dtf_init != NULL)

/* Grid of the coupled arrays. */
#define NY 12
#define NX 10

static int world_rank;

/* CHECK fails the rank with PnetCDF's message when a call does not return
 * NC_NOERR; the "FAIL rank N:" prefix is what the Go test harness collects. */
#define CHECK(call) do { int e_ = (call); if (e_ != NC_NOERR) { \
	fprintf(stderr, "FAIL rank %d: %s:%d: %s: %s\n", world_rank, __FILE__, __LINE__, #call, ncmpi_strerror(e_)); \
	MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

static int failures;

/* EXPECT records a wrong value and lets the program go on checking. */
#define EXPECT(cond, ...) do { if (!(cond)) { if (failures++ < 10) { \
	fprintf(stderr, "FAIL rank %d: ", world_rank); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } } while (0)

/* component_comm returns the communicator of this program's ranks: in an MPMD
 * launch (mpirun -np 4 ./writer : -np 2 ./reader) the ranks with the same
 * MPI_APPNUM, in a launch of its own the whole world. */
static MPI_Comm component_comm(void) {
	int *appnum, flag = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
	MPI_Comm c;
	MPI_Comm_split(MPI_COMM_WORLD, flag ? *appnum : 0, world_rank, &c);
	return c;
}

/* The value every program writes at (y, x), and its double companion. */
__attribute__((unused)) static int tval(int y, int x) { return 1000 * y + x; }
__attribute__((unused)) static double pval(int y, int x) { return y + x / 128.0; }

/* block splits n into nprocs nearly equal blocks and returns rank's. */
__attribute__((unused)) static void block(int n, int nprocs, int rank, MPI_Offset *start, MPI_Offset *count) {
	int q = n / nprocs, r = n % nprocs;
	*count = q + (rank < r);
	*start = rank * q + (rank < r ? rank : r);
}

/* finish reports the verdict and ends MPI. */
__attribute__((unused)) static int finish(MPI_Comm comm) {
	MPI_Comm_free(&comm);
	MPI_Finalize();
	return failures ? 1 : 0;
}
