/* Internal declarations of libcouplet's C side: how a call reaches the real
 * libpnetcdf, and how coupled ncids are told apart. */
#ifndef COUPLET_CAPI_H
#define COUPLET_CAPI_H

#include <stddef.h>
#include "../mpi/io.h"
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

/* CALL_REAL(f, args...) calls the real f under the MPI-IO exclusion of
 * package mpi (mpi/io.c): dtf's background progress stays out of MPI while a
 * thread is inside libpnetcdf, whose MPI-IO (Open MPI's OMPIO) is not thread
 * safe. */
#define CALL_REAL(name, ...)                                                  \
	({                                                                        \
		couplet_io_enter();                                                   \
		__typeof__(name(__VA_ARGS__)) r_ = REAL(name)(__VA_ARGS__);           \
		couplet_io_leave();                                                   \
		r_;                                                                   \
	})

/* couplet_memtype maps a predefined MPI datatype to the nc_type of its memory
 * layout: NC_NAT for MPI_DATATYPE_NULL (the variable's own type), -1 for any
 * other datatype, which it notes for the couplet_data call it is an argument
 * of (couplet_derived then takes it). */
int couplet_memtype(MPI_Datatype t);

/* Derived buftypes (dtype.c). couplet_derived takes the type couplet_memtype
 * noted on this thread: it checks the type is built of one supported basic
 * type and returns that type's nc_type, the basic elements in one instance
 * and a duplicate of the type (freed with couplet_type_free), or an NC code.
 * couplet_pack and couplet_unpack move count instances between the user's
 * layout and a contiguous buffer of bytes bytes. */
void couplet_note_derived(MPI_Datatype t);
int couplet_derived(MPI_Offset *per, int *memtype, MPI_Datatype *dup);
int couplet_pack(const void *buf, MPI_Offset count, MPI_Datatype t, void *out, MPI_Offset bytes);
int couplet_unpack(const void *in, MPI_Offset bytes, void *buf, MPI_Offset count, MPI_Datatype t);
void couplet_type_free(MPI_Datatype t);

#endif
