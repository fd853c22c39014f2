/* Internal declarations of libcouplet-dyad: the msgpack subset, the staging wire
 * protocol, the key, checksums, configuration and the client operations shared by
 * the C API and the open/close interception. Nothing here is exported. */
#ifndef COUPLET_DYAD_INTERNAL_H
#define COUPLET_DYAD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <dyad/client/dyad_client.h>
#include <dyad/common/dyad_rc.h>
#include <dyad/core/dyad_ctx.h>

#define HIDDEN __attribute__((visibility("hidden")))

/* ---- msgpack subset (mpack.c) ---- */

/* mp_buf is an encoder's output: bytes up to cap; err is set once anything overflows. */
typedef struct {
    uint8_t *b;
    size_t len, cap;
    bool err;
} mp_buf;

HIDDEN void mp_map(mp_buf *w, uint32_t n);
HIDDEN void mp_str(mp_buf *w, const char *s);
HIDDEN void mp_strn(mp_buf *w, const char *s, size_t n);
HIDDEN void mp_uint(mp_buf *w, uint64_t u);
HIDDEN void mp_int(mp_buf *w, int64_t i);
HIDDEN void mp_bool(mp_buf *w, bool v);

/* mp_rd is a decoder's input; err is set at the first malformed or truncated item. */
typedef struct {
    const uint8_t *p, *end;
    bool err;
} mp_rd;

HIDDEN bool mp_read_map(mp_rd *r, uint32_t *n);
/* mp_read_str points *s at the string's bytes inside the input (not NUL-terminated). */
HIDDEN bool mp_read_str(mp_rd *r, const char **s, uint32_t *n);
HIDDEN bool mp_read_int(mp_rd *r, int64_t *v);
HIDDEN bool mp_read_bool(mp_rd *r, bool *v);
HIDDEN bool mp_is_nil(mp_rd *r);
HIDDEN bool mp_skip(mp_rd *r);

/* ---- wire protocol (wire.c), mirroring dyad/wire ---- */

enum {
    OP_FETCH = 1,
    OP_HEADER,
    OP_CHUNK,
    OP_END,
    OP_ERROR,
    OP_PUBLISH,
    OP_LOOKUP,
    OP_WAIT,
    OP_STAGE,
    OP_LIST,
    OP_META,
    OP_STATS,
    OP_FETCH_UCX,
    OP_READY,
    OP_ACK,
    OP_MAX
};

#define WIRE_MAX_FRAME (64 << 10)

/* wmeta is wire.Meta; strings are malloc'd (or NULL). */
typedef struct {
    char *key, *path, *owner, *node;
    int64_t size, version, mtime_ns;
    uint32_t checksum;
} wmeta;

/* wmsg is the subset of wire.Msg a client sends and reads. */
typedef struct {
    int op;
    const char *ns, *key, *path, *dest, *dtl;
    int64_t min_version, timeout_ms;
    /* wait_ms bounds an OP_STAGE's wait for its record when it names a key, not meta. */
    int64_t wait_ms;
    const wmeta *meta;
} wreq;

typedef struct {
    int op;
    bool found;
    char *err;
    bool has_meta;
    wmeta meta;
} wrep;

HIDDEN void wmeta_free(wmeta *m);
HIDDEN void wrep_free(wrep *r);
/* wire_encode_req encodes q's msgpack body into w. */
HIDDEN void wire_encode_req(mp_buf *w, const wreq *q);
HIDDEN void wire_encode_meta(mp_buf *w, const wmeta *m);
/* wire_decode_rep decodes a reply body; false (with a message in why) when malformed. */
HIDDEN bool wire_decode_rep(const uint8_t *b, size_t n, wrep *r, char *why, size_t whylen);
HIDDEN bool wire_decode_meta(mp_rd *r, wmeta *m);
/* agent_call sends q to the agent at socket_path and reads one reply, within
 * timeout_ms. It returns DYAD_RC_OK, DYAD_RC_FLUXFAIL (no agent), DYAD_RC_BADRPC
 * (broken reply) or DYAD_RC_SYSFAIL with errno (EINTR, ETIMEDOUT). An OpError reply
 * is returned as DYAD_RC_OK with rep->op == OP_ERROR. */
HIDDEN dyad_rc_t agent_call(const char *socket_path, const wreq *q, int64_t timeout_ms, wrep *rep);

/* ---- key, hashes, checksums (key.c, crc32c.c) ---- */

/* dyad_murmur3_128 is C DYAD's MurmurHash3_x64_128, tail quirk included. */
HIDDEN void dyad_murmur3_128(const void *key, size_t len, uint32_t seed, uint64_t out[2]);
/* path_key writes C DYAD's key of upath into out (malloc'd). */
HIDDEN char *path_key(const char *upath, unsigned depth, unsigned bins);
HIDDEN uint64_t fnv1a64(const void *p, size_t n);
HIDDEN uint32_t crc32c_update(uint32_t crc, const void *p, size_t n);

/* ---- configuration and client (config.c, client.c) ---- */

struct dyad_ctx {
    bool initialized, debug, check, shared_storage, reinit, async_publish, fsync_write, relative;
    unsigned key_depth, key_bins, service_mux;
    dyad_dtl_comm_mode_t comm_mode;
    char *ns;
    char *prod, *cons; /* absolute, cleaned; NULL when unset */
    size_t prod_len, cons_len;
    char dtl[8];        /* what the consumer asks its agent for: "", "rpc" or "ucx" */
    char *agent_socket; /* COUPLET_AGENT_SOCKET, or NULL for the default rule */
    int64_t timeout_ms, transfer_timeout_ms;
};

/* ctx_from_env fills c from the environment; on failure it logs why. */
HIDDEN dyad_rc_t ctx_from_env(struct dyad_ctx *c);
/* ctx_couplet_env reads only COUPLET_AGENT_SOCKET and the COUPLET_DYAD_*TIMEOUT variables. */
HIDDEN dyad_rc_t ctx_couplet_env(struct dyad_ctx *c);
HIDDEN void ctx_free(struct dyad_ctx *c);
HIDDEN dyad_rc_t ctx_set_dir(char **dst, size_t *len, const char *path);
HIDDEN dyad_rc_t parse_dtl(const char *s, char out[8]);
/* agent_socket_for returns the agent socket for a managed directory (malloc'd). */
HIDDEN char *agent_socket_for(const struct dyad_ctx *c, const char *dir);
/* clean_path writes the lexical clean of path (absolute against cwd when base is NULL
 * and path relative, else against base) into out; false if it does not fit. */
HIDDEN bool abs_clean(const char *base, const char *path, char *out, size_t outlen);
/* under returns the path relative to dir when p is strictly under it, else NULL. */
HIDDEN const char *under(const char *dir, size_t dirlen, const char *p);

HIDDEN dyad_rc_t client_produce(const struct dyad_ctx *c, const char *abs, const char *upath, bool do_fsync);
/* client_consume makes upath complete locally; with meta it stages that version
 * without asking the locator. */
HIDDEN dyad_rc_t client_consume(const struct dyad_ctx *c, const char *abs, const char *upath, const wmeta *meta);
/* client_locate finds upath's metadata (waiting up to the timeout when wait). */
HIDDEN dyad_rc_t client_locate(const struct dyad_ctx *c, const char *upath, bool wait, wmeta *out);

/* ---- logging and errors (log.c) ---- */

HIDDEN void dlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* fail records msg as the thread's last error, logs it, and returns rc. */
HIDDEN dyad_rc_t fail(dyad_rc_t rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
HIDDEN void clear_error(void);
HIDDEN void debugf(const struct dyad_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* rc_errno maps a failed call's code (and saved errno) to the errno the program sees. */
HIDDEN int rc_errno(dyad_rc_t rc, int saved);

/* sys_open and sys_close bypass the interposed symbols. */
HIDDEN int sys_open(const char *path, int flags, mode_t mode);
HIDDEN int sys_close(int fd);
HIDDEN int mkdir_parents(const char *path);

#endif
