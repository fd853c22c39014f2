/* Declarations of the hand-written request entries that generated wrappers call. */
#ifndef COUPLET_MORE_H
#define COUPLET_MORE_H
#include "pnetcdf.h"

/* couplet_multi: mput/mget on a coupled file (more.c). */
int couplet_multi(int ncid, int op, int fam, int coll, int memtype, int num, int *varids,
                  MPI_Offset **starts, MPI_Offset **counts, MPI_Offset **strides, MPI_Offset **imaps,
                  void **bufs, MPI_Offset *bufcounts, MPI_Datatype *dtypes);

/* couplet_flatten: the byte runs a vard filetype selects, in type-map order
 * (vard.c); the caller frees *off and *len. */
int couplet_flatten(MPI_Datatype t, MPI_Offset **off, MPI_Offset **len, int *n);

#endif
