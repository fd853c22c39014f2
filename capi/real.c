/* Loading the real libpnetcdf: calls on files that are not coupled are
 * forwarded to it verbatim. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "capi.h"

static void *real_lib;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

/* load opens libpnetcdf with RTLD_LOCAL (its symbols must not shadow ours for
 * later libraries) and RTLD_DEEPBIND (when it is loaded here for the first
 * time, its internal ncmpi_* calls bind to itself, not to libcouplet). */
static void load(void) {
	const char *names[] = {getenv("COUPLET_PNETCDF_LIB"), "libpnetcdf.so", "libpnetcdf.so.0d"};
	for (size_t i = 0; i < sizeof names / sizeof names[0] && !real_lib; i++)
		if (names[i] && *names[i])
			real_lib = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND);
	if (!real_lib) {
		fprintf(stderr, "couplet: cannot load the real libpnetcdf (%s); set COUPLET_PNETCDF_LIB\n", dlerror());
		abort();
	}
}

void *couplet_real(const char *name) {
	pthread_once(&real_once, load);
	void *p = dlsym(real_lib, name);
	if (!p) {
		fprintf(stderr, "couplet: the real libpnetcdf has no %s\n", name);
		abort();
	}
	Dl_info mine, theirs;
	if (dladdr((void *)couplet_real, &mine) && dladdr(p, &theirs) && mine.dli_fbase == theirs.dli_fbase) {
		fprintf(stderr, "couplet: %s resolves to libcouplet itself; COUPLET_PNETCDF_LIB must name the real libpnetcdf\n", name);
		abort();
	}
	return p;
}

int couplet_memtype(MPI_Datatype t) {
	if (t == MPI_DATATYPE_NULL) return NC_NAT;
	if (t == MPI_CHAR) return NC_CHAR;
	if (t == MPI_SIGNED_CHAR || t == MPI_BYTE) return NC_BYTE;
	if (t == MPI_UNSIGNED_CHAR) return NC_UBYTE;
	if (t == MPI_SHORT) return NC_SHORT;
	if (t == MPI_UNSIGNED_SHORT) return NC_USHORT;
	if (t == MPI_INT) return NC_INT;
	if (t == MPI_UNSIGNED) return NC_UINT;
	if (t == MPI_LONG || t == MPI_LONG_LONG_INT || t == MPI_LONG_LONG || t == MPI_INT64_T) return NC_INT64;
	if (t == MPI_UNSIGNED_LONG || t == MPI_UNSIGNED_LONG_LONG || t == MPI_UINT64_T) return NC_UINT64;
	if (t == MPI_FLOAT) return NC_FLOAT;
	if (t == MPI_DOUBLE) return NC_DOUBLE;
	couplet_note_derived(t); /* for couplet_data: see dtype.c */
	return -1;
}
