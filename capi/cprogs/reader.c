/* reader: opens argv[1], checks its header and attributes, and reads both
 * variables in blocks of columns (another decomposition than the writer's),
 * verifying every value. argv[2] "nb" reads with iget + wait_all. */
#include "common.h"

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm comm = component_comm();
	int rank, nprocs, ncid, tv, pv, ndims, nvars, natts, unlim, yd, xd;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &nprocs);
	int nb = argc > 2 && strcmp(argv[2], "nb") == 0;

	CHECK(ncmpi_open(comm, argv[1], NC_NOWRITE, MPI_INFO_NULL, &ncid));
	CHECK(ncmpi_inq(ncid, &ndims, &nvars, &natts, &unlim));
	EXPECT(ndims == 2 && nvars == 2 && natts == 1 && unlim == -1, "inq: %d dims %d vars %d atts unlim %d", ndims, nvars, natts, unlim);
	MPI_Offset ny, nx, len;
	CHECK(ncmpi_inq_dimid(ncid, "y", &yd));
	CHECK(ncmpi_inq_dimid(ncid, "x", &xd));
	CHECK(ncmpi_inq_dimlen(ncid, yd, &ny));
	CHECK(ncmpi_inq_dimlen(ncid, xd, &nx));
	EXPECT(ny == NY && nx == NX, "dims %lld x %lld", (long long)ny, (long long)nx);
	char title[64] = {0}, units[8] = {0};
	CHECK(ncmpi_inq_attlen(ncid, NC_GLOBAL, "title", &len));
	CHECK(ncmpi_get_att_text(ncid, NC_GLOBAL, "title", title));
	EXPECT(len == 14 && strcmp(title, "couplet capi t") == 0, "title %lld %s", (long long)len, title);
	CHECK(ncmpi_inq_varid(ncid, "temp", &tv));
	CHECK(ncmpi_inq_varid(ncid, "pres", &pv));
	nc_type xt;
	int vd[2];
	char name[NC_MAX_NAME + 1];
	CHECK(ncmpi_inq_var(ncid, pv, name, &xt, &ndims, vd, &natts));
	EXPECT(strcmp(name, "pres") == 0 && xt == NC_DOUBLE && ndims == 2 && vd[0] == yd && vd[1] == xd && natts == 1,
	       "inq_var pres: %s type %d ndims %d", name, xt, ndims);
	CHECK(ncmpi_get_att_text(ncid, tv, "units", units));
	EXPECT(strcmp(units, "K") == 0, "units %s", units);
	double scale[2];
	CHECK(ncmpi_get_att_double(ncid, pv, "scale", scale));
	EXPECT(scale[0] == 0.5 && scale[1] == 2.0, "scale %g %g", scale[0], scale[1]);

	MPI_Offset start[2] = {0, 0}, count[2] = {NY, 0};
	block(NX, nprocs, rank, &start[1], &count[1]);
	int *t = malloc(sizeof(int) * NY * count[1]);
	double *p = malloc(sizeof(double) * NY * count[1]);
	if (nb) {
		int req[2], st[2];
		CHECK(ncmpi_iget_vara_int(ncid, tv, start, count, t, &req[0]));
		CHECK(ncmpi_iget_vara_double(ncid, pv, start, count, p, &req[1]));
		CHECK(ncmpi_wait_all(ncid, 2, req, st));
		CHECK(st[0]);
		CHECK(st[1]);
	} else {
		CHECK(ncmpi_get_vara_int_all(ncid, tv, start, count, t));
		CHECK(ncmpi_get_vara_double_all(ncid, pv, start, count, p));
	}
	for (int y = 0; y < NY; y++)
		for (int j = 0; j < count[1]; j++) {
			int x = start[1] + j;
			EXPECT(t[y * count[1] + j] == tval(y, x), "temp[%d][%d] = %d, want %d", y, x, t[y * count[1] + j], tval(y, x));
			EXPECT(p[y * count[1] + j] == pval(y, x), "pres[%d][%d] = %g, want %g", y, x, p[y * count[1] + j], pval(y, x));
		}
	MPI_Offset got;
	CHECK(ncmpi_inq_get_size(ncid, &got));
	EXPECT(got >= NY * count[1] * (4 + 8), "inq_get_size %lld", (long long)got);
	CHECK(ncmpi_close(ncid));
	free(t);
	free(p);
	if (failures == 0)
		printf("reader rank %d: verified %lld values\n", rank, (long long)(2 * NY * count[1]));
	return finish(comm);
}
