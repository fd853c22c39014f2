/* writer: an ordinary PnetCDF program, the kind PnetCDF's tutorials teach.
 * Rank and size come from MPI_COMM_WORLD, the rows of a NY x NX grid are
 * split among the ranks, and every file named on the command line gets two
 * variables and a few attributes, written through vector and indexed
 * buftypes. It calls nothing of couplet's: in an MPMD
 * launch, libcouplet's world split makes MPI_COMM_WORLD mean its component.
 * writer.f90 writes byte-identical files. */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>

#define NY 24
#define NX 16

static void check(int err, int line) {
	if (err != NC_NOERR) {
		fprintf(stderr, "FAIL writer.c:%d: %s\n", line, ncmpi_strerror(err));
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}
#define CHECK(call) check((call), __LINE__)

static void write_file(const char *path, int rank, int nprocs) {
	int ncid, dims[2], tv, pv;
	CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
	CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 12, "plain writer"));
	CHECK(ncmpi_def_dim(ncid, "y", NY, &dims[0]));
	CHECK(ncmpi_def_dim(ncid, "x", NX, &dims[1]));
	CHECK(ncmpi_def_var(ncid, "t", NC_INT, 2, dims, &tv));
	CHECK(ncmpi_def_var(ncid, "p", NC_DOUBLE, 2, dims, &pv));
	CHECK(ncmpi_put_att_text(ncid, pv, "units", 3, "hPa"));
	CHECK(ncmpi_enddef(ncid));

	int q = NY / nprocs, r = NY % nprocs;
	MPI_Offset start[2] = {rank * q + (rank < r ? rank : r), 0}, count[2] = {q + (rank < r), NX};
	/* t's rows are padded to NX+1 ints in memory (a vector buftype); p's rows
	 * are stored bottom up (an indexed buftype of row-sized contiguous
	 * types, listed top down). The file is the same either way. */
	int rows = count[0];
	int *t = malloc(sizeof(int) * (rows * (NX + 1) + 1));
	double *p = malloc(sizeof(double) * (rows * NX + 1));
	int *lens = malloc(sizeof(int) * (rows + 1)), *displs = malloc(sizeof(int) * (rows + 1));
	for (int i = 0; i < rows; i++) {
		int y = start[0] + i;
		for (int x = 0; x < NX; x++) {
			t[i * (NX + 1) + x] = 1000 * y + x;
			p[(rows - 1 - i) * NX + x] = y + x / 128.0;
		}
		t[i * (NX + 1) + NX] = -1;
		lens[i] = 1;
		displs[i] = rows - 1 - i;
	}
	MPI_Datatype padded, row, bottom_up;
	MPI_Type_vector(rows, NX, NX + 1, MPI_INT, &padded);
	MPI_Type_commit(&padded);
	MPI_Type_contiguous(NX, MPI_DOUBLE, &row);
	MPI_Type_indexed(rows, lens, displs, row, &bottom_up);
	MPI_Type_commit(&bottom_up);
	CHECK(ncmpi_put_vara_all(ncid, tv, start, count, t, 1, padded));
	CHECK(ncmpi_put_vara_all(ncid, pv, start, count, p, 1, bottom_up));
	CHECK(ncmpi_close(ncid));
	MPI_Type_free(&padded);
	MPI_Type_free(&row);
	MPI_Type_free(&bottom_up);
	free(t);
	free(p);
	free(lens);
	free(displs);
}

int main(int argc, char **argv) {
	int rank, nprocs;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	for (int i = 1; i < argc; i++)
		write_file(argv[i], rank, nprocs);
	MPI_Barrier(MPI_COMM_WORLD);
	/* MPI_Pcontrol(0) is the escape from couplet's world split to the
	 * whole launch (elsewhere it does nothing); 1 restores the split. */
	int all, again;
	MPI_Pcontrol(0);
	MPI_Comm_size(MPI_COMM_WORLD, &all);
	MPI_Pcontrol(1);
	MPI_Comm_size(MPI_COMM_WORLD, &again);
	if (rank == 0)
		printf("writer: %d ranks wrote %d files (MPI_Pcontrol(0): %d ranks, then %d)\n", nprocs, argc - 1, all, again);
	MPI_Finalize();
	return 0;
}
