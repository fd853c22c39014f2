/* abi: the parts of PnetCDF's API beyond put/get: varn, mput/mget, vard (also
 * with derived MPI buftypes), the fill calls, the rename calls, copy_att and the inquiry calls. "w" writes the
 * file with 2 ranks, "r" reads it back with 1 rank; every result, value and
 * error code goes to stdout as a "W<rank> key = value" or "R<rank> ..." line,
 * so a run on a coupled file can be compared with libpnetcdf on a disk twin.
 * Calls about the file layout print "L<rank> ..." lines: a coupled file has no
 * layout, and answers them with NC_ENOTSUPPORT. */
#include "common.h"
#include <libgen.h>

#define AY 6
#define AX 4

static char tag[8];
#define OUT(...) do { printf("%s ", tag); printf(__VA_ARGS__); putchar('\n'); } while (0)
#define LAYOUT(...) do { printf("L%s ", tag + 1); printf(__VA_ARGS__); putchar('\n'); } while (0)

static void print_d(const char *what, const double *v, int n) {
	printf("%s %s =", tag, what);
	for (int i = 0; i < n; i++) printf(" %g", v[i]);
	putchar('\n');
}
static void print_i(const char *what, const int *v, int n) {
	printf("%s %s =", tag, what);
	for (int i = 0; i < n; i++) printf(" %d", v[i]);
	putchar('\n');
}
static void print_f(const char *what, const float *v, int n) {
	printf("%s %s =", tag, what);
	for (int i = 0; i < n; i++) printf(" %g", v[i]);
	putchar('\n');
}

/* inquiries both roles make, on any open file */
static void inquire(int ncid, const char *path) {
	int n = -1, e;
	MPI_Offset s = -1;
	e = ncmpi_inq_recsize(ncid, &s); OUT("recsize = %lld (%d)", (long long)s, e);
	e = ncmpi_inq_version(ncid, &n); OUT("version = %d (%d)", n, e);
	int ss = -1, sc = -1;
	e = ncmpi_inq_striping(ncid, &ss, &sc); OUT("striping = %d %d (%d)", ss, sc, e);
	char p[4096] = "";
	int pl = -1;
	e = ncmpi_inq_path(ncid, &pl, p); OUT("path = %s %d (%d)", basename(p), pl == (int)strlen(path), e);
	MPI_Info info = MPI_INFO_NULL;
	e = ncmpi_inq_file_info(ncid, &info); OUT("file_info = %d (%d)", info != MPI_INFO_NULL, e);
	if (info != MPI_INFO_NULL) MPI_Info_free(&info);
	e = ncmpi_get_file_info(ncid, &info); OUT("get_file_info = %d (%d)", info != MPI_INFO_NULL, e);
	if (info != MPI_INFO_NULL) MPI_Info_free(&info);
	e = ncmpi_inq_files_opened(&n, NULL); OUT("files_opened = %d (%d)", n, e);
	e = ncmpi_inq_buffer_size(ncid, &s); OUT("buffer_size unattached (%d)", e);
	int nofill = -1, fb = 0;
	e = ncmpi_inq_var_fill(ncid, 1, &nofill, &fb); OUT("var_fill B = %d %d (%d)", nofill, fb, e);
	float fr = 0;
	e = ncmpi_inq_var_fill(ncid, 3, &nofill, &fr); OUT("var_fill R = %d %g (%d)", nofill, fr, e);
	char name[NC_MAX_NAME + 1];
	ncmpi_inq_dimname(ncid, 1, name); OUT("dim 1 = %s", name);
	ncmpi_inq_varname(ncid, 0, name); OUT("var 0 = %s", name);
	ncmpi_inq_attname(ncid, NC_GLOBAL, 1, name); OUT("global att 1 = %s", name);
	char txt[64] = "";
	e = ncmpi_get_att_text(ncid, 0, "title", txt); OUT("A:title = %s (%d)", txt, e);
	e = ncmpi_inq_varoffset(ncid, 0, &s); LAYOUT("varoffset (%d)", e);
	e = ncmpi_inq_header_size(ncid, &s); LAYOUT("header_size (%d)", e);
	e = ncmpi_inq_header_extent(ncid, &s); LAYOUT("header_extent (%d)", e);
	e = ncmpi_inq_varoffset(ncid, 99, &s); OUT("varoffset bad var (%d)", e);
	e = ncmpi_rename_var(ncid, 99, "zz"); OUT("rename bad var (%d)", e);
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	if (argc < 3) { fprintf(stderr, "usage: abi w|r path\n"); return 2; }
	MPI_Comm comm = component_comm();
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	int writer = argv[1][0] == 'w';
	snprintf(tag, sizeof tag, "%c%d", writer ? 'W' : 'R', rank);
	const char *path = argv[2];
	int ncid, dy, dx, dt, va, vb, vc, vr, vd, ve, e;
	int rows = AY / size, r0 = rank * rows;
	if (writer) {
		CHECK(ncmpi_create(comm, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
		CHECK(ncmpi_def_dim(ncid, "y", AY, &dy));
		CHECK(ncmpi_def_dim(ncid, "xx", AX, &dx));
		CHECK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dt));
		int d2[2] = {dy, dx}, dr[2] = {dt, dx};
		CHECK(ncmpi_def_var(ncid, "Atmp", NC_DOUBLE, 2, d2, &va));
		CHECK(ncmpi_def_var(ncid, "B", NC_INT, 2, d2, &vb));
		CHECK(ncmpi_def_var(ncid, "C", NC_FLOAT, 2, d2, &vc));
		CHECK(ncmpi_def_var(ncid, "R", NC_FLOAT, 2, dr, &vr));
		CHECK(ncmpi_def_var(ncid, "D", NC_DOUBLE, 2, d2, &vd));
		CHECK(ncmpi_def_var(ncid, "E", NC_INT, 2, d2, &ve));
		CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 5, "abi 1"));
		CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "note0", 3, "old"));
		int fb = -7;
		float fr = -1.5f;
		CHECK(ncmpi_def_var_fill(ncid, vb, 0, &fb));
		CHECK(ncmpi_def_var_fill(ncid, vr, 0, &fr));
		CHECK(ncmpi_rename_dim(ncid, dx, "x"));
		CHECK(ncmpi_rename_var(ncid, va, "A"));
		CHECK(ncmpi_rename_att(ncid, NC_GLOBAL, "note0", "note"));
		CHECK(ncmpi_copy_att(ncid, NC_GLOBAL, "title", ncid, va));
		e = ncmpi_rename_dim(ncid, dx, "y"); OUT("rename to a used name (%d)", e);
		CHECK(ncmpi__enddef(ncid, 0, 4, 0, 4));
		/* varn: each of this rank's rows as a piece, last row first */
		double abuf[AY * AX];
		MPI_Offset st[AY][2], ct[AY][2], *sp[AY], *cp[AY];
		for (int i = 0; i < rows; i++) {
			int y = r0 + rows - 1 - i;
			st[i][0] = y; st[i][1] = 0; ct[i][0] = 1; ct[i][1] = AX;
			sp[i] = st[i]; cp[i] = ct[i];
			for (int x = 0; x < AX; x++) abuf[i * AX + x] = 10 * y + x + 0.25;
		}
		CHECK(ncmpi_put_varn_all(ncid, va, rows, sp, cp, abuf, rows * AX, MPI_DOUBLE));
		/* varn with a derived buftype: the same pieces of D, taken from every
		 * other double of the buffer (a vector type) */
		double dbuf[2 * AY * AX];
		for (int i = 0; i < rows * AX; i++) {
			dbuf[2 * i] = -abuf[i];
			dbuf[2 * i + 1] = 99; /* not part of the buftype */
		}
		MPI_Datatype vec;
		MPI_Type_vector(rows * AX, 1, 2, MPI_DOUBLE, &vec);
		MPI_Type_commit(&vec);
		CHECK(ncmpi_put_varn_all(ncid, vd, rows, sp, cp, dbuf, 1, vec));
		e = ncmpi_put_varn_all(ncid, vd, rows, sp, cp, dbuf, 2, vec); OUT("varn derived bufcount too large (%d)", e);
		MPI_Type_free(&vec);
		/* mput: B's rows and this rank's half of record 0 of R */
		int bbuf[AY * AX];
		float rbuf[AX];
		for (int i = 0; i < rows * AX; i++) bbuf[i] = 100 * r0 + i;
		int half = AX / size;
		for (int i = 0; i < half; i++) rbuf[i] = 0.5f * (rank * half + i);
		MPI_Offset bs[2] = {r0, 0}, bc[2] = {rows, AX}, rs[2] = {0, rank * half}, rc[2] = {1, half};
		MPI_Offset *ms[2] = {bs, rs}, *mc[2] = {bc, rc};
		int ids[2] = {vb, vr};
		void *bufs[2] = {bbuf, rbuf};
		MPI_Offset cnts[2] = {rows * AX, half};
		MPI_Datatype types[2] = {MPI_INT, MPI_FLOAT};
		CHECK(ncmpi_mput_vara_all(ncid, 2, ids, ms, mc, bufs, cnts, types));
		/* vard: this rank's rows of C as a subarray filetype */
		MPI_Datatype ft;
		int sz[2] = {AY, AX}, sub[2] = {rows, AX}, sst[2] = {r0, 0};
		MPI_Type_create_subarray(2, sz, sub, sst, MPI_ORDER_C, MPI_FLOAT, &ft);
		MPI_Type_commit(&ft);
		float cbuf[AY * AX];
		for (int i = 0; i < rows * AX; i++) cbuf[i] = r0 * AX + i + 0.125f;
		CHECK(ncmpi_put_vard_all(ncid, vc, ft, cbuf, rows * AX, MPI_FLOAT));
		MPI_Type_free(&ft);
		/* vard with a derived buftype: this rank's rows of E from pairs of
		 * ints three apart in the buffer */
		MPI_Type_create_subarray(2, sz, sub, sst, MPI_ORDER_C, MPI_INT, &ft);
		MPI_Type_commit(&ft);
		int ebuf[3 * AY * AX / 2];
		for (int i = 0; i < rows * AX; i++)
			ebuf[i / 2 * 3 + i % 2] = 1000 + r0 * AX + i;
		for (int i = 2; i < rows * AX / 2 * 3; i += 3)
			ebuf[i] = -99; /* not part of the buftype */
		MPI_Type_vector(rows * AX / 2, 2, 3, MPI_INT, &vec);
		MPI_Type_commit(&vec);
		CHECK(ncmpi_put_vard_all(ncid, ve, ft, ebuf, 1, vec));
		MPI_Type_free(&vec);
		MPI_Type_free(&ft);
		/* record 1 of R: the fill value */
		CHECK(ncmpi_fill_var_rec(ncid, vr, 1));
		MPI_Offset nrec = -1;
		CHECK(ncmpi_inq_dimlen(ncid, dt, &nrec));
		OUT("numrecs = %lld", (long long)nrec);
		CHECK(ncmpi_buffer_attach(ncid, 4096));
		MPI_Offset bsz = -1;
		e = ncmpi_inq_buffer_size(ncid, &bsz); OUT("buffer_size = %lld (%d)", (long long)bsz, e);
		CHECK(ncmpi_buffer_detach(ncid));
		CHECK(ncmpi_flush(ncid));
		/* (libpnetcdf 1.12.3 answers these two with garbage on a file it opened,
		 * so only the writer, which defined the file, asks) */
		int n = -1;
		e = ncmpi_inq_num_rec_vars(ncid, &n); OUT("num_rec_vars = %d (%d)", n, e);
		e = ncmpi_inq_num_fix_vars(ncid, &n); OUT("num_fix_vars = %d (%d)", n, e);
		CHECK(ncmpi_sync_numrecs(ncid));
		inquire(ncid, path);
		CHECK(ncmpi_close(ncid));
	} else {
		CHECK(ncmpi_open(comm, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
		CHECK(ncmpi_inq_varid(ncid, "A", &va));
		CHECK(ncmpi_inq_varid(ncid, "B", &vb));
		CHECK(ncmpi_inq_varid(ncid, "C", &vc));
		CHECK(ncmpi_inq_varid(ncid, "R", &vr));
		CHECK(ncmpi_inq_varid(ncid, "D", &vd));
		CHECK(ncmpi_inq_varid(ncid, "E", &ve));
		inquire(ncid, path);
		/* get_varn: three pieces of A, in a mixed order */
		MPI_Offset s0[2] = {4, 1}, c0[2] = {2, 3}, s1[2] = {0, 0}, c1[2] = {1, 4}, s2[2] = {2, 2}, c2[2] = {2, 1};
		MPI_Offset *sp[3] = {s0, s1, s2}, *cp[3] = {c0, c1, c2};
		double a[6 + 4 + 2];
		CHECK(ncmpi_get_varn_all(ncid, va, 3, sp, cp, a, 12, MPI_DOUBLE));
		print_d("A varn", a, 12);
		/* get_varn with a derived buftype: the same pieces of D into every
		 * other double; the gaps keep their -1 */
		double dv[2 * 12];
		for (int i = 0; i < 2 * 12; i++) dv[i] = -1;
		MPI_Datatype vec;
		MPI_Type_vector(12, 1, 2, MPI_DOUBLE, &vec);
		MPI_Type_commit(&vec);
		CHECK(ncmpi_get_varn_all(ncid, vd, 3, sp, cp, dv, 1, vec));
		print_d("D varn derived", dv, 2 * 12);
		MPI_Type_free(&vec);
		/* iget_varn + wait_all with a derived buftype: rows 1 and 4 of D,
		 * as two contiguous types of a row each */
		double dr[2 * AX];
		MPI_Offset s4[2] = {4, 0}, s5[2] = {1, 0}, c45[2] = {1, AX};
		MPI_Offset *sp2[2] = {s4, s5}, *cp2[2] = {c45, c45};
		MPI_Type_contiguous(AX, MPI_DOUBLE, &vec);
		MPI_Type_commit(&vec);
		int req, st;
		CHECK(ncmpi_iget_varn(ncid, vd, 2, sp2, cp2, dr, 2, vec, &req));
		MPI_Type_free(&vec); /* the request keeps its own */
		CHECK(ncmpi_wait_all(ncid, 1, &req, &st));
		OUT("D iget_varn derived status (%d)", st);
		print_d("D iget_varn derived", dr, 2 * AX);
		/* mget: a block of B and both records of R */
		int b[3 * 2];
		float r[2 * AX];
		MPI_Offset bs[2] = {1, 1}, bc[2] = {3, 2}, rs[2] = {0, 0}, rc[2] = {2, AX};
		MPI_Offset *ms[2] = {bs, rs}, *mc[2] = {bc, rc};
		int ids[2] = {vb, vr};
		void *bufs[2] = {b, r};
		MPI_Offset cnts[2] = {6, 2 * AX};
		MPI_Datatype types[2] = {MPI_INT, MPI_FLOAT};
		CHECK(ncmpi_mget_vara_all(ncid, 2, ids, ms, mc, bufs, cnts, types));
		print_i("B mget", b, 6);
		print_f("R mget", r, 2 * AX);
		/* typed mget of one variable, independent */
		CHECK(ncmpi_begin_indep_data(ncid));
		int b2[AX];
		MPI_Offset s3[2] = {5, 0}, c3[2] = {1, AX};
		MPI_Offset *ms3[1] = {s3}, *mc3[1] = {c3};
		int *bufs3[1] = {b2};
		CHECK(ncmpi_mget_vara_int(ncid, 1, &vb, ms3, mc3, bufs3));
		print_i("B mget_int", b2, AX);
		CHECK(ncmpi_end_indep_data(ncid));
		/* get_vard: columns 1..2 of every row of C */
		MPI_Datatype ft;
		int sz[2] = {AY, AX}, sub[2] = {AY, 2}, sst[2] = {0, 1};
		MPI_Type_create_subarray(2, sz, sub, sst, MPI_ORDER_C, MPI_FLOAT, &ft);
		MPI_Type_commit(&ft);
		float c[AY * 2];
		CHECK(ncmpi_get_vard_all(ncid, vc, ft, c, AY * 2, MPI_FLOAT));
		MPI_Type_free(&ft);
		print_f("C vard", c, AY * 2);
		/* get_vard with a derived buftype: columns 1..2 of E into pairs of
		 * ints three apart; the gaps keep their -1 */
		MPI_Type_create_subarray(2, sz, sub, sst, MPI_ORDER_C, MPI_INT, &ft);
		MPI_Type_commit(&ft);
		MPI_Type_vector(AY, 2, 3, MPI_INT, &vec);
		MPI_Type_commit(&vec);
		int ev[3 * AY];
		for (int i = 0; i < 3 * AY; i++) ev[i] = -1;
		CHECK(ncmpi_get_vard_all(ncid, ve, ft, ev, 1, vec));
		print_i("E vard derived", ev, 3 * AY);
		MPI_Type_free(&vec);
		MPI_Type_free(&ft);
		CHECK(ncmpi_close(ncid));
	}
	fflush(stdout);
	MPI_Comm_free(&comm);
	MPI_Finalize();
	return failures != 0;
}
