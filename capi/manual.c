/* Hand-written wrappers: files, define mode, inquiry, nonblocking completion,
 * the DTF entry points and the MPI_Finalize hook. Each ncid-based call goes to
 * the real libpnetcdf unless the ncid is a coupled one. */
#include "capi.h"
#include "worldsplit.h"
#include "_cgo_export.h"

/* open routes a create or open: coupled transfer-mode files to Go, the rest
 * to libpnetcdf, with a dtf file session around file-mode files. */
static int open_file(MPI_Comm comm, const char *path, int mode, MPI_Info info, int *ncidp, int create) {
	void *c = (void *)comm;
	int token = -1;
	int route = couplet_route(&c, (char *)path, create, mode, &token);
	if (route < 0)
		return route;
	comm = (MPI_Comm)c;
	if (route == 0)
		comm = COUPLET_WORLD(comm); /* the world split: the component's ranks */
	if (route == 1)
		return couplet_open_coupled(c, (char *)path, mode, create, ncidp);
	int err = create ? CALL_REAL(ncmpi_create, comm, path, mode, info, ncidp)
	                 : CALL_REAL(ncmpi_open, comm, path, mode, info, ncidp);
	if (route == 2)
		couplet_bind_session(token, err == NC_NOERR ? *ncidp : -1, err == NC_NOERR);
	return err;
}

int ncmpi_create(MPI_Comm comm, const char *path, int cmode, MPI_Info info, int *ncidp) {
	return open_file(comm, path, cmode, info, ncidp, 1);
}

int ncmpi_open(MPI_Comm comm, const char *path, int omode, MPI_Info info, int *ncidp) {
	return open_file(comm, path, omode, info, ncidp, 0);
}

int ncmpi_close(int ncid) {
	if (COUPLED(ncid))
		return couplet_call(ncid, 0);
	int err = CALL_REAL(ncmpi_close, ncid);
	int serr = couplet_end_session(ncid);
	return err != NC_NOERR ? err : serr;
}

#define SIMPLE(name, what) \
	int name(int ncid) { return COUPLED(ncid) ? couplet_call(ncid, what) : CALL_REAL(name, ncid); }
SIMPLE(ncmpi_enddef, 1)
SIMPLE(ncmpi_redef, 2)
SIMPLE(ncmpi_sync, 3)
SIMPLE(ncmpi_begin_indep_data, 4)
SIMPLE(ncmpi_end_indep_data, 5)
int ncmpi_buffer_detach(int ncid) {
	if (!COUPLED(ncid))
		return CALL_REAL(ncmpi_buffer_detach, ncid);
	int err = couplet_call(ncid, 6);
	if (err == NC_NOERR)
		couplet_note_buffer(ncid, -1);
	return err;
}

/* FWD forwards a non-coupled call verbatim; the macro keeps each wrapper to
 * its coupled-file line. */
#define FWD(name, ...) if (!COUPLED(ncid)) return CALL_REAL(name, __VA_ARGS__)

int ncmpi_def_dim(int ncid, const char *name, MPI_Offset len, int *idp) {
	FWD(ncmpi_def_dim, ncid, name, len, idp);
	return couplet_def_dim(ncid, (char *)name, len, idp);
}
int ncmpi_def_var(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp, int *varidp) {
	FWD(ncmpi_def_var, ncid, name, xtype, ndims, dimidsp, varidp);
	return couplet_def_var(ncid, (char *)name, xtype, ndims, (int *)dimidsp, varidp);
}
int ncmpi_set_fill(int ncid, int fillmode, int *old_modep) {
	FWD(ncmpi_set_fill, ncid, fillmode, old_modep);
	return couplet_set_fill(ncid, fillmode, old_modep);
}
int ncmpi_del_att(int ncid, int varid, const char *name) {
	FWD(ncmpi_del_att, ncid, varid, name);
	return couplet_del_att(ncid, varid, (char *)name);
}
int ncmpi_inq(int ncid, int *ndimsp, int *nvarsp, int *ngattsp, int *unlimdimidp) {
	FWD(ncmpi_inq, ncid, ndimsp, nvarsp, ngattsp, unlimdimidp);
	return couplet_inq(ncid, ndimsp, nvarsp, ngattsp, unlimdimidp);
}
int ncmpi_inq_ndims(int ncid, int *p) { FWD(ncmpi_inq_ndims, ncid, p); return couplet_inq(ncid, p, NULL, NULL, NULL); }
int ncmpi_inq_nvars(int ncid, int *p) { FWD(ncmpi_inq_nvars, ncid, p); return couplet_inq(ncid, NULL, p, NULL, NULL); }
int ncmpi_inq_natts(int ncid, int *p) { FWD(ncmpi_inq_natts, ncid, p); return couplet_inq(ncid, NULL, NULL, p, NULL); }
int ncmpi_inq_unlimdim(int ncid, int *p) { FWD(ncmpi_inq_unlimdim, ncid, p); return couplet_inq(ncid, NULL, NULL, NULL, p); }
int ncmpi_inq_format(int ncid, int *p) { FWD(ncmpi_inq_format, ncid, p); return couplet_inq_format(ncid, p); }
int ncmpi_inq_file_format(const char *filename, int *formatp) { return CALL_REAL(ncmpi_inq_file_format, filename, formatp); }

int ncmpi_inq_dim(int ncid, int dimid, char *name, MPI_Offset *lenp) {
	FWD(ncmpi_inq_dim, ncid, dimid, name, lenp);
	return couplet_inq_dim(ncid, dimid, name, lenp);
}
int ncmpi_inq_dimname(int ncid, int dimid, char *name) { FWD(ncmpi_inq_dimname, ncid, dimid, name); return couplet_inq_dim(ncid, dimid, name, NULL); }
int ncmpi_inq_dimlen(int ncid, int dimid, MPI_Offset *lenp) { FWD(ncmpi_inq_dimlen, ncid, dimid, lenp); return couplet_inq_dim(ncid, dimid, NULL, lenp); }
int ncmpi_inq_dimid(int ncid, const char *name, int *idp) { FWD(ncmpi_inq_dimid, ncid, name, idp); return couplet_inq_dimid(ncid, (char *)name, idp); }

int ncmpi_inq_var(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp, int *dimidsp, int *nattsp) {
	FWD(ncmpi_inq_var, ncid, varid, name, xtypep, ndimsp, dimidsp, nattsp);
	return couplet_inq_var(ncid, varid, name, xtypep, ndimsp, dimidsp, nattsp);
}
int ncmpi_inq_varid(int ncid, const char *name, int *varidp) { FWD(ncmpi_inq_varid, ncid, name, varidp); return couplet_inq_varid(ncid, (char *)name, varidp); }
int ncmpi_inq_varname(int ncid, int varid, char *name) { FWD(ncmpi_inq_varname, ncid, varid, name); return couplet_inq_var(ncid, varid, name, NULL, NULL, NULL, NULL); }
int ncmpi_inq_vartype(int ncid, int varid, nc_type *p) { FWD(ncmpi_inq_vartype, ncid, varid, p); return couplet_inq_var(ncid, varid, NULL, p, NULL, NULL, NULL); }
int ncmpi_inq_varndims(int ncid, int varid, int *p) { FWD(ncmpi_inq_varndims, ncid, varid, p); return couplet_inq_var(ncid, varid, NULL, NULL, p, NULL, NULL); }
int ncmpi_inq_vardimid(int ncid, int varid, int *p) { FWD(ncmpi_inq_vardimid, ncid, varid, p); return couplet_inq_var(ncid, varid, NULL, NULL, NULL, p, NULL); }
int ncmpi_inq_varnatts(int ncid, int varid, int *p) { FWD(ncmpi_inq_varnatts, ncid, varid, p); return couplet_inq_var(ncid, varid, NULL, NULL, NULL, NULL, p); }

int ncmpi_inq_att(int ncid, int varid, const char *name, nc_type *xtypep, MPI_Offset *lenp) {
	FWD(ncmpi_inq_att, ncid, varid, name, xtypep, lenp);
	return couplet_inq_att(ncid, varid, (char *)name, xtypep, lenp);
}
int ncmpi_inq_atttype(int ncid, int varid, const char *name, nc_type *p) { FWD(ncmpi_inq_atttype, ncid, varid, name, p); return couplet_inq_att(ncid, varid, (char *)name, p, NULL); }
int ncmpi_inq_attlen(int ncid, int varid, const char *name, MPI_Offset *p) { FWD(ncmpi_inq_attlen, ncid, varid, name, p); return couplet_inq_att(ncid, varid, (char *)name, NULL, p); }
int ncmpi_inq_attid(int ncid, int varid, const char *name, int *idp) { FWD(ncmpi_inq_attid, ncid, varid, name, idp); return couplet_inq_attid(ncid, varid, (char *)name, idp); }
int ncmpi_inq_attname(int ncid, int varid, int attnum, char *name) { FWD(ncmpi_inq_attname, ncid, varid, attnum, name); return couplet_inq_attname(ncid, varid, attnum, name); }

int ncmpi_inq_put_size(int ncid, MPI_Offset *size) { FWD(ncmpi_inq_put_size, ncid, size); return couplet_inq_size(ncid, 0, size); }
int ncmpi_inq_get_size(int ncid, MPI_Offset *size) { FWD(ncmpi_inq_get_size, ncid, size); return couplet_inq_size(ncid, 1, size); }
int ncmpi_inq_buffer_usage(int ncid, MPI_Offset *usage) { FWD(ncmpi_inq_buffer_usage, ncid, usage); return couplet_inq_size(ncid, 2, usage); }
int ncmpi_inq_nreqs(int ncid, int *nreqs) { FWD(ncmpi_inq_nreqs, ncid, nreqs); return couplet_inq_nreqs(ncid, nreqs); }

/* Calls without an ncid are always the real library's. */
int ncmpi_inq_malloc_size(MPI_Offset *size) { return REAL(ncmpi_inq_malloc_size)(size); }
int ncmpi_inq_malloc_max_size(MPI_Offset *size) { return REAL(ncmpi_inq_malloc_max_size)(size); }
const char *ncmpi_strerror(int err) { return err == NC_ETIMEDOUT ? couplet_strerror(err) : REAL(ncmpi_strerror)(err); }
const char *ncmpi_inq_libvers(void) { return REAL(ncmpi_inq_libvers)(); }

int ncmpi_wait(int ncid, int count, int reqs[], int statuses[]) { FWD(ncmpi_wait, ncid, count, reqs, statuses); return couplet_wait(ncid, count, reqs, statuses, 0); }
int ncmpi_wait_all(int ncid, int count, int reqs[], int statuses[]) { FWD(ncmpi_wait_all, ncid, count, reqs, statuses); return couplet_wait(ncid, count, reqs, statuses, 1); }
int ncmpi_cancel(int ncid, int num, int *reqs, int *statuses) { FWD(ncmpi_cancel, ncid, num, reqs, statuses); return couplet_wait(ncid, num, reqs, statuses, 2); }
int ncmpi_buffer_attach(int ncid, MPI_Offset bufsize) {
	FWD(ncmpi_buffer_attach, ncid, bufsize);
	int err = couplet_buffer_attach(ncid, bufsize);
	if (err == NC_NOERR)
		couplet_note_buffer(ncid, bufsize); /* for ncmpi_inq_buffer_size */
	return err;
}

/* The original DTF entry points. */
int dtf_init(const char *filename, char *module_name) { return couplet_dtf_init((char *)filename, module_name) == NC_NOERR ? 0 : 1; }
int dtf_finalize(void) { return couplet_dtf_finalize(); }
int dtf_transfer(const char *filename, int ncid) { return couplet_dtf_transfer((char *)filename, ncid); }
int dtf_transfer_all_files(void) { return couplet_dtf_transfer_all(); }
void dtf_transfer_multiple(const char *filename, int ncid) { couplet_dtf_multiple((char *)filename, ncid, 0); }
void dtf_complete_multiple(const char *filename, int ncid) { couplet_dtf_multiple((char *)filename, ncid, 1); }
void dtf_time_start(void) { couplet_dtf_time(1); }
void dtf_time_end(void) { couplet_dtf_time(0); }

/* MPI_Finalize is interposed through the MPI profiling interface so that a
 * runtime started lazily by ncmpi_create/open (or by dtf_init without
 * dtf_finalize) is finalised, collectively, while MPI still works. The flag
 * keeps a finalise from inside the runtime from re-entering. */
static int finalizing;

int MPI_Finalize(void) {
	if (!finalizing) {
		finalizing = 1;
		couplet_at_finalize();
	}
	int done = 0;
	PMPI_Finalized(&done);
	return done ? MPI_SUCCESS : PMPI_Finalize();
}
