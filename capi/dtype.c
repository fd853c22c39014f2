/* Derived MPI datatypes in flexible calls on coupled files. A derived
 * buftype is turned into a contiguous buffer of its one basic type with
 * MPI_Pack before a put, and the contiguous data of a get is laid out into
 * the user's buffer with MPI_Unpack, as libpnetcdf does for disk files. */
#include <limits.h>
#include <stdlib.h>
#include "capi.h"

/* couplet_memtype records the derived type it was asked about here, for the
 * couplet_data call it is an argument of (the same thread, the next call). */
static __thread MPI_Datatype derived = MPI_DATATYPE_NULL;

void couplet_note_derived(MPI_Datatype t) { derived = t; }

/* find_basic walks t's constructors down to the predefined types it is built
 * of: there must be exactly one, supported on coupled files. */
static int find_basic(MPI_Datatype t, MPI_Datatype *basic) {
	int ni, na, nd, comb;
	if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS)
		return NC_EINVAL;
	if (comb == MPI_COMBINER_NAMED) {
		if (*basic != MPI_DATATYPE_NULL && *basic != t)
			return NC_EMULTITYPES;
		*basic = t;
		return NC_NOERR;
	}
	int *ints = malloc(sizeof(int) * (ni + 1));
	MPI_Aint *aints = malloc(sizeof(MPI_Aint) * (na + 1));
	MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (nd + 1));
	int err = PMPI_Type_get_contents(t, ni, na, nd, ints, aints, types) == MPI_SUCCESS ? NC_NOERR : NC_EINVAL;
	for (int i = 0; i < nd && err == NC_NOERR; i++)
		err = find_basic(types[i], basic);
	for (int i = 0; i < nd; i++) {
		int a, b, c, k;
		/* get_contents returns new handles for derived inner types only */
		if (PMPI_Type_get_envelope(types[i], &a, &b, &c, &k) == MPI_SUCCESS && k != MPI_COMBINER_NAMED)
			PMPI_Type_free(&types[i]);
	}
	free(ints);
	free(aints);
	free(types);
	return err;
}

int couplet_derived(MPI_Offset *per, int *memtype, MPI_Datatype *dup) {
	MPI_Datatype t = derived, basic = MPI_DATATYPE_NULL;
	derived = MPI_DATATYPE_NULL;
	if (t == MPI_DATATYPE_NULL)
		return NC_EINVAL;
	int err = find_basic(t, &basic);
	if (err != NC_NOERR)
		return err;
	int mt = couplet_memtype(basic);
	if (mt < 0)
		return NC_EUNSPTETYPE;
	MPI_Count tsize, bsize;
	if (PMPI_Type_size_x(t, &tsize) != MPI_SUCCESS || PMPI_Type_size_x(basic, &bsize) != MPI_SUCCESS || bsize <= 0)
		return NC_EINVAL;
	if (PMPI_Type_dup(t, dup) != MPI_SUCCESS)
		return NC_EINVAL;
	*per = tsize / bsize;
	*memtype = mt;
	return NC_NOERR;
}

int couplet_pack(const void *buf, MPI_Offset count, MPI_Datatype t, void *out, MPI_Offset bytes) {
	int pos = 0;
	if (bytes > INT_MAX || count > INT_MAX)
		return NC_ENOTSUPPORT;
	return PMPI_Pack(buf, (int)count, t, out, (int)bytes, &pos, MPI_COMM_SELF) == MPI_SUCCESS ? NC_NOERR : NC_EINVAL;
}

int couplet_unpack(const void *in, MPI_Offset bytes, void *buf, MPI_Offset count, MPI_Datatype t) {
	int pos = 0;
	if (bytes > INT_MAX || count > INT_MAX)
		return NC_ENOTSUPPORT;
	return PMPI_Unpack(in, (int)bytes, &pos, buf, (int)count, t, MPI_COMM_SELF) == MPI_SUCCESS ? NC_NOERR : NC_EINVAL;
}

void couplet_type_free(MPI_Datatype t) { PMPI_Type_free(&t); }
