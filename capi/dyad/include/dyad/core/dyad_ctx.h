/* The DYAD context: initialisation from arguments or from the DYAD_* environment.
 * couplet has no Flux: every flux_handle argument may be NULL and is ignored. */
#ifndef DYAD_CORE_DYAD_CTX_H
#define DYAD_CORE_DYAD_CTX_H

#include <dyad/common/dyad_dtl.h>
#include <dyad/common/dyad_rc.h>
#include <dyad/common/dyad_structures.h>

#ifdef __cplusplus
extern "C" {
#else
#include <stdbool.h>
#endif

/* dyad_ctx_get returns the process's context, or NULL before it is initialised. */
DYAD_DLL_EXPORTED dyad_ctx_t *dyad_ctx_get(void);
/* dyad_ctx_init initialises the context from the environment (dyad_init_env),
 * logging any failure. */
DYAD_DLL_EXPORTED void dyad_ctx_init(dyad_dtl_comm_mode_t dtl_comm_mode, void *flux_handle);
/* dyad_ctx_fini releases the context (dyad_finalize). */
DYAD_DLL_EXPORTED void dyad_ctx_fini(void);

/* dyad_init initialises the context from arguments. check re-verifies a local copy's
 * checksum before using it; service_mux is accepted for compatibility. */
DYAD_DLL_EXPORTED dyad_rc_t dyad_init(bool debug, bool check, bool shared_storage, bool reinit,
                                      bool async_publish, bool fsync_write, unsigned int key_depth,
                                      unsigned int key_bins, unsigned int service_mux,
                                      const char *kvs_namespace, const char *prod_managed_path,
                                      const char *cons_managed_path, bool relative_to_managed_path,
                                      const char *dtl_mode_str, const dyad_dtl_comm_mode_t dtl_comm_mode,
                                      void *flux_handle);

/* dyad_init_env initialises the context from DYAD_KVS_NAMESPACE, DYAD_PATH_PRODUCER,
 * DYAD_PATH_CONSUMER, DYAD_DTL_MODE and the other DYAD_* variables (booleans by value). */
DYAD_DLL_EXPORTED dyad_rc_t dyad_init_env(const dyad_dtl_comm_mode_t dtl_comm_mode, void *flux_handle);

/* dyad_set_prod_path and dyad_set_cons_path change a managed directory. */
DYAD_DLL_EXPORTED dyad_rc_t dyad_set_prod_path(const char *path);
DYAD_DLL_EXPORTED dyad_rc_t dyad_set_cons_path(const char *path);
/* dyad_set_and_init_dtl_mode changes the DTL the consumer asks for. */
DYAD_DLL_EXPORTED dyad_rc_t dyad_set_and_init_dtl_mode(const char *dtl_mode_name,
                                                       dyad_dtl_comm_mode_t dtl_comm_mode);
/* dyad_clear resets the context to its defaults without freeing it. */
DYAD_DLL_EXPORTED dyad_rc_t dyad_clear(void);
/* dyad_finalize releases the context. */
DYAD_DLL_EXPORTED dyad_rc_t dyad_finalize(void);

/* couplet_dyad_prod_path and couplet_dyad_cons_path return the context's absolute
 * managed directories ("" when unset, NULL without a context). */
DYAD_DLL_EXPORTED const char *couplet_dyad_prod_path(const dyad_ctx_t *ctx);
DYAD_DLL_EXPORTED const char *couplet_dyad_cons_path(const dyad_ctx_t *ctx);

#ifdef __cplusplus
}
#endif

#endif /* DYAD_CORE_DYAD_CTX_H */
