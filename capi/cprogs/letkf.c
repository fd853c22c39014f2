/* letkf: a program in the style of the SCALE-LETKF benchmark (dtf-bench).
 * It calls dtf_init/dtf_transfer/dtf_finalize itself, as programs written
 * for the original DTF do. "scale" writes CYCLES files (argv[2] with the
 * cycle number appended before ".nc"): T with bput_vara_float after
 * buffer_attach, U with iput_vara_float, the scalar "time" with
 * put_var1_double_all, then wait_all and dtf_transfer. "letkf" reads them with
 * iget_vara_float and iget_var1_double in another decomposition, calls
 * dtf_transfer, then wait_all, and verifies every value.
 * Usage: letkf scale|letkf path.nc config.ini */
#include "common.h"

#define NZ 4
#define CYCLES 2

static float fval(int v, int c, int z, int y, int x) { return v * 1e5f + c * 1e4f + z * 1000 + y * 10 + x; }

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm comm = component_comm();
	if (argc < 4) {
		fprintf(stderr, "FAIL rank %d: usage: letkf scale|letkf path.nc config.ini\n", world_rank);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int scale = strcmp(argv[1], "scale") == 0;
	int rank, nprocs;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &nprocs);
	if (HAVE_DTF)
		CHECK(dtf_init(argv[3], scale ? "v_scale" : "v_letkf"));

	for (int c = 0; c < CYCLES; c++) {
		char path[4096];
		snprintf(path, sizeof path, "%.*s%d.nc", (int)(strlen(argv[2]) - 3), argv[2], c);
		int ncid, dims[3], var[4];
		MPI_Offset start[3] = {0, 0, 0}, count[3] = {NZ, NY, NX};
		if (HAVE_DTF)
			dtf_time_start();
		if (scale) {
			CHECK(ncmpi_create(comm, path, NC_CLOBBER | NC_64BIT_OFFSET, MPI_INFO_NULL, &ncid));
			CHECK(ncmpi_def_dim(ncid, "z", NZ, &dims[0]));
			CHECK(ncmpi_def_dim(ncid, "y", NY, &dims[1]));
			CHECK(ncmpi_def_dim(ncid, "x", NX, &dims[2]));
			CHECK(ncmpi_def_var(ncid, "T", NC_FLOAT, 3, dims, &var[0]));
			CHECK(ncmpi_def_var(ncid, "U", NC_FLOAT, 3, dims, &var[1]));
			CHECK(ncmpi_def_var(ncid, "time", NC_DOUBLE, 0, dims, &var[2]));
			CHECK(ncmpi_def_var(ncid, "zlev", NC_DOUBLE, 1, dims, &var[3]));
			CHECK(ncmpi_enddef(ncid));
			block(NY, nprocs, rank, &start[1], &count[1]);
			MPI_Offset n = NZ * count[1] * NX;
			float *buf[2] = {malloc(n * sizeof(float)), malloc(n * sizeof(float))};
			for (int v = 0; v < 2; v++)
				for (int z = 0; z < NZ; z++)
					for (int i = 0; i < count[1]; i++)
						for (int x = 0; x < NX; x++)
							buf[v][(z * count[1] + i) * NX + x] = fval(v, c, z, start[1] + i, x);
			CHECK(ncmpi_buffer_attach(ncid, n * sizeof(float)));
			int req[2];
			CHECK(ncmpi_bput_vara_float(ncid, var[0], start, count, buf[0], &req[0]));
			CHECK(ncmpi_iput_vara_float(ncid, var[1], start, count, buf[1], &req[1]));
			/* bput copied T: scribbling on its buffer must not change the file. */
			for (MPI_Offset k = 0; k < n; k++)
				buf[0][k] = -1;
			/* One rank writes the scalar: the matcher loops forever on
			 * overlapping writes of a 0-d variable (matcher.subtractFlat
			 * with d == 0), so the writes must not overlap. */
			double t = 3600.0 * c, zl = 100.0 * rank + c;
			CHECK(ncmpi_begin_indep_data(ncid));
			if (rank == 0)
				CHECK(ncmpi_put_var_double(ncid, var[2], &t));
			CHECK(ncmpi_end_indep_data(ncid));
			MPI_Offset idx[1] = {rank % NZ};
			CHECK(ncmpi_put_var1_double_all(ncid, var[3], idx, &zl));
			CHECK(ncmpi_wait_all(ncid, NC_REQ_ALL, NULL, NULL));
			if (HAVE_DTF)
				CHECK(dtf_transfer(path, ncid));
			CHECK(ncmpi_buffer_detach(ncid));
			CHECK(ncmpi_close(ncid));
			free(buf[0]);
			free(buf[1]);
		} else {
			CHECK(ncmpi_open(comm, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
			CHECK(ncmpi_inq_varid(ncid, "T", &var[0]));
			CHECK(ncmpi_inq_varid(ncid, "U", &var[1]));
			CHECK(ncmpi_inq_varid(ncid, "time", &var[2]));
			CHECK(ncmpi_inq_varid(ncid, "zlev", &var[3]));
			block(NX, nprocs, rank, &start[2], &count[2]);
			MPI_Offset n = NZ * NY * count[2];
			float *buf[2] = {malloc(n * sizeof(float)), malloc(n * sizeof(float))};
			int req[4], st[4];
			double t = -1, zl[NZ] = {-1, -1, -1, -1};
			for (int v = 0; v < 2; v++)
				CHECK(ncmpi_iget_vara_float(ncid, var[v], start, count, buf[v], &req[v]));
			MPI_Offset idx[1] = {0};
			CHECK(ncmpi_iget_var1_double(ncid, var[2], idx, &t, &req[2]));
			MPI_Offset zs[1] = {0}, zc[1] = {NZ};
			CHECK(ncmpi_iget_vara_double(ncid, var[3], zs, zc, zl, &req[3]));
			if (HAVE_DTF)
				CHECK(dtf_transfer(path, ncid));
			CHECK(ncmpi_wait_all(ncid, 4, req, st));
			for (int k = 0; k < 4; k++)
				CHECK(st[k]);
			EXPECT(t == 3600.0 * c, "cycle %d: time %g", c, t);
			for (int z = 0; z < NZ; z++)
				EXPECT(zl[z] == 100.0 * z + c, "cycle %d: zlev[%d] = %g", c, z, zl[z]);
			for (int v = 0; v < 2; v++)
				for (int z = 0; z < NZ; z++)
					for (int y = 0; y < NY; y++)
						for (int j = 0; j < count[2]; j++) {
							float want = fval(v, c, z, y, start[2] + j), got = buf[v][(z * NY + y) * count[2] + j];
							EXPECT(got == want, "cycle %d var %d [%d][%d][%lld] = %g, want %g", c, v, z, y, (long long)(start[2] + j), got, want);
						}
			CHECK(ncmpi_close(ncid));
			free(buf[0]);
			free(buf[1]);
		}
		if (HAVE_DTF)
			dtf_time_end();
	}
	if (HAVE_DTF)
		CHECK(dtf_finalize());
	if (!scale && failures == 0)
		printf("letkf rank %d: verified %d cycles\n", rank, CYCLES);
	return finish(comm);
}
