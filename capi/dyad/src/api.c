/* DYAD's C client API over the process's context. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define EXPORT __attribute__((visibility("default")))

static struct dyad_ctx g_ctx;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

EXPORT dyad_ctx_t *dyad_ctx_get(void) { return g_ctx.initialized ? &g_ctx : NULL; }

EXPORT dyad_rc_t dyad_init_env(const dyad_dtl_comm_mode_t dtl_comm_mode, void *flux_handle) {
    (void)flux_handle;
    if (dtl_comm_mode < DYAD_COMM_NONE || dtl_comm_mode >= DYAD_COMM_END)
        return fail(DYAD_RC_BAD_COMM_MODE, "comm mode %d", (int)dtl_comm_mode);
    struct dyad_ctx c;
    dyad_rc_t rc = ctx_from_env(&c);
    if (rc != DYAD_RC_OK) return rc;
    c.comm_mode = dtl_comm_mode;
    pthread_mutex_lock(&g_mu);
    ctx_free(&g_ctx);
    g_ctx = c;
    pthread_mutex_unlock(&g_mu);
    debugf(&c, "initialised from the environment: producer %s, consumer %s, namespace %s",
           c.prod ? c.prod : "-", c.cons ? c.cons : "-", c.ns);
    return DYAD_RC_OK;
}

EXPORT void dyad_ctx_init(dyad_dtl_comm_mode_t dtl_comm_mode, void *flux_handle) {
    dyad_init_env(dtl_comm_mode, flux_handle); /* a failure is logged */
}

EXPORT dyad_rc_t dyad_init(bool debug, bool check, bool shared_storage, bool reinit, bool async_publish,
                           bool fsync_write, unsigned int key_depth, unsigned int key_bins, unsigned int service_mux,
                           const char *kvs_namespace, const char *prod_managed_path, const char *cons_managed_path,
                           bool relative_to_managed_path, const char *dtl_mode_str,
                           const dyad_dtl_comm_mode_t dtl_comm_mode, void *flux_handle) {
    (void)flux_handle;
    if (!kvs_namespace || !*kvs_namespace) return fail(DYAD_RC_NOCTX, "dyad_init: a KVS namespace is required");
    if (dtl_comm_mode < DYAD_COMM_NONE || dtl_comm_mode >= DYAD_COMM_END)
        return fail(DYAD_RC_BAD_COMM_MODE, "comm mode %d", (int)dtl_comm_mode);
    if (key_bins == 0) return fail(DYAD_RC_NOCTX, "dyad_init: key_bins must be at least 1");
    /* couplet's own settings (agent socket, timeouts) come from the environment. */
    struct dyad_ctx c;
    memset(&c, 0, sizeof c);
    dyad_rc_t rc = ctx_couplet_env(&c);
    if (rc != DYAD_RC_OK) {
        ctx_free(&c);
        return rc;
    }
    c.ns = strdup(kvs_namespace);
    c.debug = debug, c.check = check, c.shared_storage = shared_storage, c.reinit = reinit;
    c.async_publish = async_publish, c.fsync_write = fsync_write;
    c.key_depth = key_depth, c.key_bins = key_bins, c.service_mux = service_mux ? service_mux : 1;
    c.relative = relative_to_managed_path;
    c.comm_mode = dtl_comm_mode;
    rc = ctx_set_dir(&c.prod, &c.prod_len, prod_managed_path);
    if (rc == DYAD_RC_OK) rc = ctx_set_dir(&c.cons, &c.cons_len, cons_managed_path);
    if (rc == DYAD_RC_OK) rc = parse_dtl(dtl_mode_str, c.dtl);
    if (rc != DYAD_RC_OK || !c.ns) {
        ctx_free(&c);
        return rc != DYAD_RC_OK ? rc : fail(DYAD_RC_SYSFAIL, "out of memory");
    }
    c.initialized = true;
    pthread_mutex_lock(&g_mu);
    ctx_free(&g_ctx);
    g_ctx = c;
    pthread_mutex_unlock(&g_mu);
    return DYAD_RC_OK;
}

EXPORT dyad_rc_t dyad_finalize(void) {
    pthread_mutex_lock(&g_mu);
    ctx_free(&g_ctx);
    pthread_mutex_unlock(&g_mu);
    return DYAD_RC_OK;
}

EXPORT void dyad_ctx_fini(void) { dyad_finalize(); }

EXPORT dyad_rc_t dyad_clear(void) { return dyad_finalize(); }

EXPORT dyad_rc_t dyad_set_prod_path(const char *path) {
    if (!g_ctx.initialized) return fail(DYAD_RC_NOCTX, "dyad_set_prod_path: no context");
    return ctx_set_dir(&g_ctx.prod, &g_ctx.prod_len, path);
}

EXPORT dyad_rc_t dyad_set_cons_path(const char *path) {
    if (!g_ctx.initialized) return fail(DYAD_RC_NOCTX, "dyad_set_cons_path: no context");
    return ctx_set_dir(&g_ctx.cons, &g_ctx.cons_len, path);
}

EXPORT dyad_rc_t dyad_set_and_init_dtl_mode(const char *dtl_mode_name, dyad_dtl_comm_mode_t dtl_comm_mode) {
    if (!g_ctx.initialized) return fail(DYAD_RC_NOCTX, "dyad_set_and_init_dtl_mode: no context");
    char dtl[8];
    dyad_rc_t rc = parse_dtl(dtl_mode_name, dtl);
    if (rc != DYAD_RC_OK) return rc;
    memcpy(g_ctx.dtl, dtl, sizeof dtl);
    g_ctx.comm_mode = dtl_comm_mode;
    return DYAD_RC_OK;
}

EXPORT const char *couplet_dyad_prod_path(const dyad_ctx_t *ctx) {
    return ctx ? (ctx->prod ? ctx->prod : "") : NULL;
}

EXPORT const char *couplet_dyad_cons_path(const dyad_ctx_t *ctx) {
    return ctx ? (ctx->cons ? ctx->cons : "") : NULL;
}

/* resolve maps fname to its absolute path and its path under dir, as the Go client
 * does: a relative name is taken under dir with DYAD_PATH_RELATIVE, else under the
 * working directory. */
static dyad_rc_t resolve(const struct dyad_ctx *c, const char *dir, size_t dirlen, const char *role,
                         const char *fname, char abs[PATH_MAX], const char **upath) {
    if (!fname || !*fname) return fail(DYAD_RC_BADBUF, "no file name");
    if (!dir) return fail(DYAD_RC_BADMANAGEDPATH, "no %s managed directory configured (DYAD_PATH_%s)", role,
                          role[0] == 'p' ? "PRODUCER" : "CONSUMER");
    if (!abs_clean(fname[0] != '/' && c->relative ? dir : NULL, fname, abs, PATH_MAX))
        return fail(DYAD_RC_BADBUF, "%s: path too long", fname);
    if (!(*upath = under(dir, dirlen, abs)))
        return fail(DYAD_RC_UNTRACKED, "%s is not under the %s managed directory %s", fname, role, dir);
    return DYAD_RC_OK;
}

EXPORT dyad_rc_t dyad_produce(dyad_ctx_t *ctx, const char *fname) {
    if (!ctx || !ctx->initialized) return fail(DYAD_RC_NOCTX, "dyad_produce: no context (call dyad_init first)");
    clear_error();
    char abs[PATH_MAX];
    const char *upath;
    dyad_rc_t rc = resolve(ctx, ctx->prod, ctx->prod_len, "producer", fname, abs, &upath);
    if (rc != DYAD_RC_OK) return rc;
    return client_produce(ctx, abs, upath, ctx->fsync_write);
}

EXPORT dyad_rc_t dyad_consume(dyad_ctx_t *ctx, const char *fname) {
    if (!ctx || !ctx->initialized) return fail(DYAD_RC_NOCTX, "dyad_consume: no context (call dyad_init first)");
    clear_error();
    char abs[PATH_MAX];
    const char *upath;
    dyad_rc_t rc = resolve(ctx, ctx->cons, ctx->cons_len, "consumer", fname, abs, &upath);
    if (rc != DYAD_RC_OK) return rc;
    return client_consume(ctx, abs, upath, NULL);
}

/* meta_box is what dyad_get_metadata hands out: DYAD's public struct first, then the
 * full metadata, which dyad_consume_w_metadata stages without asking the locator.
 * Boxes are registered so that a user-built dyad_metadata_t is never mistaken for one. */
struct meta_box {
    dyad_metadata_t pub;
    wmeta meta;
    struct meta_box *next;
};

static struct meta_box *boxes;
static pthread_mutex_t boxes_mu = PTHREAD_MUTEX_INITIALIZER;

static struct meta_box *find_box(const dyad_metadata_t *m, bool unlink) {
    pthread_mutex_lock(&boxes_mu);
    struct meta_box **pp = &boxes, *b;
    while ((b = *pp) && &b->pub != m) pp = &b->next;
    if (b && unlink) *pp = b->next;
    pthread_mutex_unlock(&boxes_mu);
    return b;
}

EXPORT dyad_rc_t dyad_get_metadata(dyad_ctx_t *ctx, const char *fname, bool should_wait, dyad_metadata_t **mdata) {
    if (!ctx || !ctx->initialized) return fail(DYAD_RC_NOCTX, "dyad_get_metadata: no context");
    if (!mdata) return fail(DYAD_RC_BADBUF, "dyad_get_metadata: NULL metadata pointer");
    clear_error();
    *mdata = NULL;
    char abs[PATH_MAX];
    const char *upath;
    dyad_rc_t rc = resolve(ctx, ctx->cons, ctx->cons_len, "consumer", fname, abs, &upath);
    if (rc != DYAD_RC_OK) return rc;
    struct meta_box *b = calloc(1, sizeof *b);
    if (!b) return fail(DYAD_RC_SYSFAIL, "out of memory");
    if ((rc = client_locate(ctx, upath, should_wait, &b->meta)) != DYAD_RC_OK) {
        free(b);
        return rc;
    }
    b->pub.fpath = strdup(upath);
    const char *owner = b->meta.owner ? b->meta.owner : "";
    uint64_t h = fnv1a64(owner, strlen(owner));
    b->pub.owner_rank = (uint32_t)(h ^ (h >> 32));
    if (!b->pub.fpath) {
        wmeta_free(&b->meta);
        free(b);
        return fail(DYAD_RC_SYSFAIL, "out of memory");
    }
    pthread_mutex_lock(&boxes_mu);
    b->next = boxes;
    boxes = b;
    pthread_mutex_unlock(&boxes_mu);
    *mdata = &b->pub;
    return DYAD_RC_OK;
}

EXPORT dyad_rc_t dyad_free_metadata(dyad_metadata_t **mdata) {
    if (!mdata || !*mdata) return DYAD_RC_OK;
    struct meta_box *b = find_box(*mdata, true);
    free((*mdata)->fpath);
    if (b) {
        wmeta_free(&b->meta);
        free(b);
    } else {
        free(*mdata);
    }
    *mdata = NULL;
    return DYAD_RC_OK;
}

EXPORT dyad_rc_t dyad_consume_w_metadata(dyad_ctx_t *ctx, const char *fname, const dyad_metadata_t *mdata) {
    if (!ctx || !ctx->initialized) return fail(DYAD_RC_NOCTX, "dyad_consume_w_metadata: no context");
    if (!mdata) return fail(DYAD_RC_BADMETADATA, "dyad_consume_w_metadata: NULL metadata");
    clear_error();
    char abs[PATH_MAX];
    const char *upath;
    dyad_rc_t rc = resolve(ctx, ctx->cons, ctx->cons_len, "consumer", fname, abs, &upath);
    if (rc != DYAD_RC_OK) return rc;
    if (mdata->fpath && strcmp(mdata->fpath, upath) != 0)
        return fail(DYAD_RC_BADMETADATA, "metadata of %s given to consume %s", mdata->fpath, upath);
    struct meta_box *b = find_box(mdata, false);
    /* The box stays registered while its full metadata is in use: the caller owns it
     * and frees it only after this call returns. */
    return client_consume(ctx, abs, upath, b ? &b->meta : NULL);
}
