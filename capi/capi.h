/* Internal declarations of libcouplet's C side: how a call reaches the real
 * libpnetcdf, and how coupled ncids are told apart. */
#ifndef COUPLET_CAPI_H
#define COUPLET_CAPI_H

#include <stddef.h>
#include "pnetcdf.h"

/* Coupled files get ncids from this base up; libpnetcdf's own ncids are small
 * table indices, so the two spaces never meet. */
#define COUPLET_NCID_BASE 0x10000000
#define COUPLED(ncid) ((ncid) >= COUPLET_NCID_BASE)

/* couplet_real returns the real libpnetcdf's definition of name. It aborts
 * with a message when the library or the symbol cannot be found, or when the
 * lookup would land back in libcouplet (which would recurse forever). */
void *couplet_real(const char *name);

/* REAL(f) is the real libpnetcdf's f, with f's own prototype; each call site
 * caches its pointer (a benign race: every thread stores the same value). */
#define REAL(name) ({ static void *p_; if (!p_) p_ = couplet_real(#name); (__typeof__(&name))p_; })

/* couplet_memtype maps a predefined MPI datatype to the nc_type of its memory
 * layout: NC_NAT for MPI_DATATYPE_NULL (the variable's own type), -1 for a
 * datatype libcouplet does not handle on coupled files. */
int couplet_memtype(MPI_Datatype t);

#endif
