/* DYAD's client API: produce and consume files under the managed directories. */
#ifndef DYAD_CLIENT_DYAD_CLIENT_H
#define DYAD_CLIENT_DYAD_CLIENT_H

#include <dyad/common/dyad_rc.h>
#include <dyad/common/dyad_structures.h>
#include <dyad/core/dyad_ctx.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef __cplusplus
#include <cstdint>
#include <cstdio>
#include <cstdlib>
extern "C" {
#else
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#endif

/* dyad_metadata_t is where a produced file lives: fpath is its path relative to the
 * managed directory, owner_rank a 32-bit identifier of the producer's node agent
 * (equal values mean the same agent). Free it with dyad_free_metadata. */
struct dyad_metadata {
    char *fpath;
    uint32_t owner_rank;
};
typedef struct dyad_metadata dyad_metadata_t;

/* dyad_produce publishes fname (under the producer directory), fsyncing it first
 * when the context asks for it. */
DYAD_DLL_EXPORTED dyad_rc_t dyad_produce(dyad_ctx_t *ctx, const char *fname);

/* dyad_get_metadata finds the metadata of fname (under the consumer directory),
 * waiting for it to be produced when should_wait is true. */
DYAD_DLL_EXPORTED dyad_rc_t dyad_get_metadata(dyad_ctx_t *ctx, const char *fname, bool should_wait,
                                              dyad_metadata_t **mdata);

/* dyad_free_metadata frees what dyad_get_metadata returned and sets *mdata to NULL. */
DYAD_DLL_EXPORTED dyad_rc_t dyad_free_metadata(dyad_metadata_t **mdata);

/* dyad_consume blocks until fname is produced, then makes a complete local copy
 * under the consumer directory. */
DYAD_DLL_EXPORTED dyad_rc_t dyad_consume(dyad_ctx_t *ctx, const char *fname);

/* dyad_consume_w_metadata is dyad_consume with metadata from dyad_get_metadata. */
DYAD_DLL_EXPORTED dyad_rc_t dyad_consume_w_metadata(dyad_ctx_t *ctx, const char *fname,
                                                    const dyad_metadata_t *mdata);

#ifdef __cplusplus
}
#endif

#endif /* DYAD_CLIENT_DYAD_CLIENT_H */
