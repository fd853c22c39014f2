/* writer: creates argv[1] with two variables over a NY x NX grid, each rank
 * writing a block of rows, and a side file (argv[2]) with the same content.
 * argv[3] "nb" writes with iput + wait_all instead of put_vara_*_all. */
#include "common.h"

static void write_file(MPI_Comm comm, const char *path, int nb) {
	int rank, nprocs, ncid, dims[2], tv, pv;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &nprocs);
	CHECK(ncmpi_create(comm, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
	CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 14, "couplet capi t"));
	CHECK(ncmpi_def_dim(ncid, "y", NY, &dims[0]));
	CHECK(ncmpi_def_dim(ncid, "x", NX, &dims[1]));
	CHECK(ncmpi_def_var(ncid, "temp", NC_INT, 2, dims, &tv));
	CHECK(ncmpi_def_var(ncid, "pres", NC_DOUBLE, 2, dims, &pv));
	CHECK(ncmpi_put_att_text(ncid, tv, "units", 1, "K"));
	double scale[2] = {0.5, 2.0};
	CHECK(ncmpi_put_att_double(ncid, pv, "scale", NC_DOUBLE, 2, scale));
	CHECK(ncmpi_enddef(ncid));

	MPI_Offset start[2], count[2];
	block(NY, nprocs, rank, &start[0], &count[0]);
	start[1] = 0;
	count[1] = NX;
	int *t = malloc(sizeof(int) * count[0] * NX);
	double *p = malloc(sizeof(double) * count[0] * NX);
	for (int i = 0; i < count[0]; i++)
		for (int x = 0; x < NX; x++) {
			t[i * NX + x] = tval(start[0] + i, x);
			p[i * NX + x] = pval(start[0] + i, x);
		}
	if (nb) {
		int req[2], st[2];
		CHECK(ncmpi_iput_vara_int(ncid, tv, start, count, t, &req[0]));
		CHECK(ncmpi_iput_vara_double(ncid, pv, start, count, p, &req[1]));
		CHECK(ncmpi_wait_all(ncid, 2, req, st));
		CHECK(st[0]);
		CHECK(st[1]);
	} else {
		CHECK(ncmpi_put_vara_int_all(ncid, tv, start, count, t));
		/* the flexible form, with an MPI datatype */
		CHECK(ncmpi_put_vara_all(ncid, pv, start, count, p, count[0] * NX, MPI_DOUBLE));
	}
	CHECK(ncmpi_close(ncid));
	free(t);
	free(p);
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm comm = component_comm();
	if (argc < 3) {
		fprintf(stderr, "FAIL rank %d: usage: writer coupled.nc side.nc [nb]\n", world_rank);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int nb = argc > 3 && strcmp(argv[3], "nb") == 0;
	write_file(comm, argv[2], nb); /* never coupled: goes to libpnetcdf */
	write_file(comm, argv[1], nb);
	return finish(comm);
}
