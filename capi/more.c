/* Hand-written wrappers of the rest of PnetCDF's API: file management, fill,
 * rename, copy_att, the inquiry calls about the file's layout, and the
 * mput/mget request entry. Each ncid-based call goes to the real libpnetcdf
 * unless the ncid is a coupled one; a coupled file answers from its header,
 * or with PnetCDF's code for what a file without a file layout cannot do. */
#include <stdlib.h>
#include "capi.h"
#include "more.h"
#include "_cgo_export.h"

/* Calls without an ncid are always the real library's. */
const char *ncmpi_strerrno(int err) { return REAL(ncmpi_strerrno)(err); }
int ncmpi_delete(const char *filename, MPI_Info info) { return CALL_REAL(ncmpi_delete, filename, info); }
int ncmpi_set_default_format(int format, int *old_formatp) { return REAL(ncmpi_set_default_format)(format, old_formatp); }
int ncmpi_inq_default_format(int *formatp) { return REAL(ncmpi_inq_default_format)(formatp); }
int ncmpi_inq_malloc_list(void) { return REAL(ncmpi_inq_malloc_list)(); }

/* ncmpi_inq_files_opened lists libpnetcdf's open files, then the coupled ones. */
int ncmpi_inq_files_opened(int *num, int *ncids) {
	int n = 0;
	int err = CALL_REAL(ncmpi_inq_files_opened, &n, ncids);
	if (err != NC_NOERR)
		return err;
	err = couplet_files_opened(&n, ncids);
	if (num)
		*num = n;
	return err;
}

#define FWD(name, ...) if (!COUPLED(ncid)) return CALL_REAL(name, __VA_ARGS__)

int ncmpi__enddef(int ncid, MPI_Offset h_minfree, MPI_Offset v_align, MPI_Offset v_minfree, MPI_Offset r_align) {
	FWD(ncmpi__enddef, ncid, h_minfree, v_align, v_minfree, r_align);
	return ncmpi_enddef(ncid); /* a coupled file has no layout to align */
}
int ncmpi_abort(int ncid) { FWD(ncmpi_abort, ncid); return ncmpi_close(ncid); }
int ncmpi_flush(int ncid) { FWD(ncmpi_flush, ncid); return couplet_inq_misc(ncid, 0, NULL, NULL); }
int ncmpi_sync_numrecs(int ncid) { FWD(ncmpi_sync_numrecs, ncid); return couplet_inq_misc(ncid, 1, NULL, NULL); }

static int misc_int(int ncid, int what, int *p) {
	MPI_Offset v = 0;
	int err = couplet_inq_misc(ncid, what, &v, NULL);
	if (err == NC_NOERR && p)
		*p = (int)v;
	return err;
}
int ncmpi_inq_num_rec_vars(int ncid, int *n) { FWD(ncmpi_inq_num_rec_vars, ncid, n); return misc_int(ncid, 2, n); }
int ncmpi_inq_num_fix_vars(int ncid, int *n) { FWD(ncmpi_inq_num_fix_vars, ncid, n); return misc_int(ncid, 3, n); }
int ncmpi_inq_recsize(int ncid, MPI_Offset *s) { FWD(ncmpi_inq_recsize, ncid, s); return couplet_inq_misc(ncid, 4, s, NULL); }
int ncmpi_inq_version(int ncid, int *mode) { FWD(ncmpi_inq_version, ncid, mode); return misc_int(ncid, 5, mode); }
int ncmpi_inq_striping(int ncid, int *size, int *count) {
	FWD(ncmpi_inq_striping, ncid, size, count);
	MPI_Offset s = 0, c = 0;
	int err = couplet_inq_misc(ncid, 6, &s, &c);
	if (err == NC_NOERR) {
		if (size) *size = (int)s;
		if (count) *count = (int)c;
	}
	return err;
}
int ncmpi_inq_varoffset(int ncid, int varid, MPI_Offset *offset) {
	FWD(ncmpi_inq_varoffset, ncid, varid, offset);
	MPI_Offset v = varid;
	return couplet_inq_misc(ncid, 7, &v, offset);
}
int ncmpi_inq_header_size(int ncid, MPI_Offset *s) { FWD(ncmpi_inq_header_size, ncid, s); return couplet_inq_misc(ncid, 8, s, NULL); }
int ncmpi_inq_header_extent(int ncid, MPI_Offset *s) { FWD(ncmpi_inq_header_extent, ncid, s); return couplet_inq_misc(ncid, 9, s, NULL); }
int ncmpi_inq_buffer_size(int ncid, MPI_Offset *s) { FWD(ncmpi_inq_buffer_size, ncid, s); return couplet_inq_misc(ncid, 10, s, NULL); }

int ncmpi_inq_path(int ncid, int *pathlen, char *path) { FWD(ncmpi_inq_path, ncid, pathlen, path); return couplet_inq_path(ncid, pathlen, path); }

/* The MPI-IO hints of a coupled file: there is no MPI-IO file, so the info is
 * empty but for couplet's own key; the caller frees it, as with libpnetcdf's. */
int ncmpi_inq_file_info(int ncid, MPI_Info *info) {
	FWD(ncmpi_inq_file_info, ncid, info);
	int err = couplet_inq_misc(ncid, 0, NULL, NULL);
	if (err != NC_NOERR)
		return err;
	if (!info)
		return NC_EINVAL;
	MPI_Info_create(info);
	MPI_Info_set(*info, "couplet_coupled", "transfer");
	return NC_NOERR;
}
int ncmpi_get_file_info(int ncid, MPI_Info *info) {
	FWD(ncmpi_get_file_info, ncid, info);
	return ncmpi_inq_file_info(ncid, info);
}

int ncmpi_def_var_fill(int ncid, int varid, int no_fill, const void *fill_value) {
	FWD(ncmpi_def_var_fill, ncid, varid, no_fill, fill_value);
	return couplet_def_var_fill(ncid, varid, no_fill, (void *)fill_value);
}
int ncmpi_inq_var_fill(int ncid, int varid, int *no_fill, void *fill_value) {
	FWD(ncmpi_inq_var_fill, ncid, varid, no_fill, fill_value);
	return couplet_inq_var_fill(ncid, varid, no_fill, fill_value);
}
int ncmpi_fill_var_rec(int ncid, int varid, MPI_Offset recno) {
	FWD(ncmpi_fill_var_rec, ncid, varid, recno);
	return couplet_fill_var_rec(ncid, varid, recno);
}

int ncmpi_rename_dim(int ncid, int dimid, const char *name) {
	FWD(ncmpi_rename_dim, ncid, dimid, name);
	return couplet_rename(ncid, 0, dimid, NULL, (char *)name);
}
int ncmpi_rename_var(int ncid, int varid, const char *name) {
	FWD(ncmpi_rename_var, ncid, varid, name);
	return couplet_rename(ncid, 1, varid, NULL, (char *)name);
}
int ncmpi_rename_att(int ncid, int varid, const char *name, const char *newname) {
	FWD(ncmpi_rename_att, ncid, varid, name, newname);
	return couplet_rename(ncid, 2, varid, (char *)name, (char *)newname);
}

/* copy_att between any two files: both real (libpnetcdf alone), both coupled
 * (couplet alone), or one of each (read on one side, written on the other). */
int ncmpi_copy_att(int ncid_in, int varid_in, const char *name, int ncid_out, int varid_out) {
	if (!COUPLED(ncid_in) && !COUPLED(ncid_out))
		return CALL_REAL(ncmpi_copy_att, ncid_in, varid_in, name, ncid_out, varid_out);
	if (COUPLED(ncid_in) && COUPLED(ncid_out))
		return couplet_copy_att(ncid_in, varid_in, (char *)name, ncid_out, varid_out);
	nc_type t;
	MPI_Offset n;
	int err = ncmpi_inq_att(ncid_in, varid_in, name, &t, &n);
	if (err != NC_NOERR)
		return err;
	MPI_Offset sz = n * 8 + 1; /* 8 bytes covers every external type */
	void *buf = malloc(sz);
	if (!buf)
		return NC_ENOMEM;
	err = ncmpi_get_att(ncid_in, varid_in, name, buf);
	if (err == NC_NOERR)
		err = ncmpi_put_att(ncid_out, varid_out, name, t, n, buf);
	free(buf);
	return err;
}

/* couplet_multi is the request entry of mput/mget on a coupled file: like
 * PnetCDF, one nonblocking request per variable, then wait (independent) or
 * wait_all (collective). memtype -2 takes each buffer's MPI datatype. */
int couplet_multi(int ncid, int op, int fam, int coll, int memtype, int num, int *varids,
                  MPI_Offset **starts, MPI_Offset **counts, MPI_Offset **strides, MPI_Offset **imaps,
                  void **bufs, MPI_Offset *bufcounts, MPI_Datatype *dtypes) {
	if (num < 0)
		return NC_EINVAL;
	int *reqs = malloc((num > 0 ? num : 1) * sizeof(int));
	if (!reqs)
		return NC_ENOMEM;
	int first = NC_NOERR;
	for (int i = 0; i < num; i++) {
		int mt = memtype == -2 ? couplet_memtype(dtypes ? dtypes[i] : MPI_DATATYPE_NULL) : memtype;
		reqs[i] = NC_REQ_NULL;
		int err = couplet_data(ncid, varids[i], op == 0 ? 2 : 3, fam, 0, mt,
		                       starts ? starts[i] : NULL, counts ? counts[i] : NULL,
		                       strides ? strides[i] : NULL, imaps ? imaps[i] : NULL,
		                       bufs[i], bufcounts ? bufcounts[i] : -1, &reqs[i]);
		if (err != NC_NOERR && first == NC_NOERR)
			first = err;
	}
	int err = couplet_wait(ncid, num, reqs, NULL, coll ? 1 : 0);
	free(reqs);
	return first != NC_NOERR ? first : err;
}
