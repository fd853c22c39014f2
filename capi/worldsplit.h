/* The world split: while it is on, the application's MPI_COMM_WORLD means
 * its component's communicator. The generated wrappers (zworldsplit.c) apply
 * these macros to every communicator argument; worldsplit.c decides the
 * component at MPI_Init. couplet's own MPI calls use the PMPI_ entry points
 * (package mpi), so they always see the real world. */
#ifndef COUPLET_WORLDSPLIT_H
#define COUPLET_WORLDSPLIT_H

#include <mpi.h>
#include <stddef.h>
#include "../mpi/io.h"

/* The component's communicator, for the application (a duplicate of the
 * runtime's, so the application's messages never meet couplet's), and its
 * Fortran handle; world_f0 is MPI_COMM_WORLD's Fortran handle. */
extern MPI_Comm couplet_world_c;
extern MPI_Fint couplet_world_f, couplet_world_f0;

/* couplet_split_on is 1 while MPI_COMM_WORLD means the component: set once
 * the component is known, cleared and set again by MPI_Pcontrol(0 / 1). */
extern volatile int couplet_split_on;

/* couplet_predefined_key reports whether keyval is one of MPI's predefined
 * attributes (MPI_APPNUM, MPI_TAG_UB...): those belong to the real world. */
int couplet_predefined_key(int keyval);

/* couplet_fortran_real returns Open MPI's Fortran profiling entry point
 * (pmpi_send_ ...), aborting with a message when it cannot be found. */
void *couplet_fortran_real(const char *name);

#define COUPLET_WORLD(c) (couplet_split_on && (c) == MPI_COMM_WORLD ? couplet_world_c : (c))
#define COUPLET_WORLD_ATTR(c, k) (couplet_predefined_key(k) ? (c) : COUPLET_WORLD(c))
#define COUPLET_WORLD_F(p) (couplet_split_on && *(p) == couplet_world_f0 ? &couplet_world_f : (p))
#define COUPLET_WORLD_F_ATTR(p, k) (couplet_predefined_key(*(k)) ? (p) : COUPLET_WORLD_F(p))

/* couplet_split_start turns the split on with comm as the component's
 * communicator (called from Go once the component is known). */
void couplet_split_start(MPI_Comm comm);

#endif
