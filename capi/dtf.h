/* dtf.h of libcouplet: the API of the original DTF (RIKEN Data Transfer
 * Framework), with its prototypes, served by couplet's coupling runtime.
 * Fortran programs call the same entry points with gfortran's naming
 * (dtf_init, dtf_finalize, dtf_transfer ... declared external), strings ended
 * by the caller with CHAR(0). */
#ifndef COUPLET_DTF_H
#define COUPLET_DTF_H

#include <mpi.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* dtf_init joins the coupling runtime as component module_name, reading the
 * config filename (DTF_INI_FILE overrides it); collective over the component.
 * Returns 0, or 1 on failure. */
int dtf_init(const char *filename, char *module_name);
/* dtf_finalize leaves the runtime; collective. Returns 0 on success. */
int dtf_finalize(void);
/* dtf_transfer ends a transfer epoch of the file named filename (or of ncid
 * when filename is NULL or empty) in both components: on return every reader
 * buffer holds its data. Returns 0 on success. */
int dtf_transfer(const char *filename, int ncid);
/* dtf_transfer_all_files ends the epoch of every coupled file open. */
int dtf_transfer_all_files(void);
/* dtf_transfer_multiple (writer) ends the writer's epoch as one that serves
 * several reader transfers: every dtf_transfer of the readers is served from
 * the same writes until each reader rank calls dtf_complete_multiple (or
 * closes the file). Errors, such as a reader that never completes within the
 * timeout, are reported on stderr. */
void dtf_transfer_multiple(const char *filename, int ncid);
/* dtf_complete_multiple (reader) ends the writer's multiple epoch after the
 * reader's last dtf_transfer in it; gets still pending are served first. */
void dtf_complete_multiple(const char *filename, int ncid);
/* dtf_time_start and dtf_time_end bracket user-measured I/O time, reported
 * with DTF_PRINT_STATS. */
void dtf_time_start(void);
void dtf_time_end(void);

/* couplet extension: the component communicator (see pnetcdf.h). */
MPI_Comm couplet_comm(void);

#if defined(__cplusplus)
}
#endif
#endif /* COUPLET_DTF_H */
