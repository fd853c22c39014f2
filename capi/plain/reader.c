/* reader: an ordinary PnetCDF program reading what writer.c writes. Rank
 * and size come from MPI_COMM_WORLD; each rank reads a block of columns of
 * both variables and the ranks sum them with MPI_Allreduce. It then reads
 * t again with a nonblocking flexible call into a buffer with a halo of
 * HALO cells around its block (a subarray datatype, bufcount 1), checks the
 * halo is untouched and the inside equals the first read. Rank 0 prints
 * position-weighted sums of the three reads (each value times one plus its
 * index in the file, so a value in the wrong place changes the sum, and any
 * number of ranks gives the same sums); they equal a run on real files.
 * It calls nothing of couplet's. */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HALO 2
#define SENTINEL (-7)

static void check(int err, int line) {
	if (err != NC_NOERR) {
		fprintf(stderr, "FAIL reader.c:%d: %s\n", line, ncmpi_strerror(err));
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}
#define CHECK(call) check((call), __LINE__)

static const char *base(const char *path) {
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int read_file(const char *path, int rank, int nprocs) {
	int ncid, tv, pv, dims[2], bad = 0;
	MPI_Offset ny, nx;
	CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
	CHECK(ncmpi_inq_varid(ncid, "t", &tv));
	CHECK(ncmpi_inq_varid(ncid, "p", &pv));
	CHECK(ncmpi_inq_vardimid(ncid, tv, dims));
	CHECK(ncmpi_inq_dimlen(ncid, dims[0], &ny));
	CHECK(ncmpi_inq_dimlen(ncid, dims[1], &nx));

	int q = nx / nprocs, r = nx % nprocs;
	MPI_Offset start[2] = {0, rank * q + (rank < r ? rank : r)}, count[2] = {ny, q + (rank < r)};
	MPI_Offset n = count[0] * count[1];
	int *t = malloc(sizeof(int) * (n + 1));
	double *p = malloc(sizeof(double) * (n + 1));
	CHECK(ncmpi_get_vara_int_all(ncid, tv, start, count, t));
	CHECK(ncmpi_get_vara_double_all(ncid, pv, start, count, p));

	/* The halo'd read: a (ny+2H) x (cx+2H) buffer whose inside is the block. */
	int sizes[2] = {ny + 2 * HALO, count[1] + 2 * HALO}, sub[2] = {ny, count[1]}, at[2] = {HALO, HALO};
	int *h = malloc(sizeof(int) * sizes[0] * sizes[1]);
	for (int i = 0; i < sizes[0] * sizes[1]; i++)
		h[i] = SENTINEL;
	MPI_Datatype halo;
	MPI_Type_create_subarray(2, sizes, sub, at, MPI_ORDER_C, MPI_INT, &halo);
	MPI_Type_commit(&halo);
	int req, st;
	CHECK(ncmpi_iget_vara(ncid, tv, start, count, h, 1, halo, &req));
	CHECK(ncmpi_wait_all(ncid, 1, &req, &st));
	CHECK(st);
	MPI_Type_free(&halo);

	/* A buftype of two basic types is an error, the same one everywhere. */
	MPI_Datatype two[2] = {MPI_INT, MPI_DOUBLE}, mixed;
	int one[2] = {1, 1};
	MPI_Aint at2[2] = {0, 8};
	MPI_Type_create_struct(2, one, at2, two, &mixed);
	MPI_Type_commit(&mixed);
	int e = ncmpi_iget_vara(ncid, tv, start, count, h, 1, mixed, &req);
	MPI_Type_free(&mixed);
	if (rank == 0)
		printf("mixed buftype %s: %s\n", base(path), e == NC_NOERR ? "accepted" : ncmpi_strerror(e));
	if (e == NC_NOERR)
		CHECK(ncmpi_cancel(ncid, 1, &req, &st));
	CHECK(ncmpi_close(ncid));

	/* t, p * 128 (exact: p is a multiple of 1/128), the halo buffer's inside */
	long long sums[3] = {0, 0, 0};
	for (MPI_Offset y = 0; y < ny; y++)
		for (MPI_Offset j = 0; j < count[1]; j++) {
			long long w = y * nx + start[1] + j + 1;
			sums[0] += w * t[y * count[1] + j];
			sums[1] += w * (long long)(p[y * count[1] + j] * 128);
		}
	for (int y = 0; y < sizes[0]; y++)
		for (int x = 0; x < sizes[1]; x++) {
			int v = h[y * sizes[1] + x];
			int inside = y >= HALO && y < HALO + ny && x >= HALO && x < HALO + count[1];
			int want = inside ? t[(y - HALO) * count[1] + x - HALO] : SENTINEL;
			if (v != want && bad++ < 5)
				fprintf(stderr, "FAIL rank %d: %s: halo buffer [%d][%d] = %d, want %d\n", rank, base(path), y, x, v, want);
			if (inside)
				sums[2] += ((y - HALO) * nx + start[1] + x - HALO + 1) * (long long)v;
		}
	long long all[3];
	MPI_Allreduce(sums, all, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("sums %s: t=%lld p128=%lld halo=%lld\n", base(path), all[0], all[1], all[2]);
	free(t);
	free(p);
	free(h);
	return bad;
}

int main(int argc, char **argv) {
	int rank, nprocs, bad = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	for (int i = 1; i < argc; i++)
		bad += read_file(argv[i], rank, nprocs);
	MPI_Finalize();
	return bad != 0;
}
