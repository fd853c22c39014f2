#define _GNU_SOURCE
/* The context's configuration: DYAD's environment variables (booleans by value),
 * managed directories made absolute, and the rule that finds the node agent's socket. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>
#include <unistd.h>

#include "internal.h"

/* clean_into appends the lexical clean of path (absolute) to out, like Go's filepath.Clean. */
static bool clean_abs(const char *path, char *out, size_t outlen) {
    size_t o = 0;
    if (outlen < 2) return false;
    out[o++] = '/';
    const char *p = path;
    while (*p) {
        while (*p == '/') p++;
        const char *e = p;
        while (*e && *e != '/') e++;
        size_t n = (size_t)(e - p);
        if (n == 0) break;
        if (n == 1 && p[0] == '.') {
            /* skip */
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            while (o > 1 && out[o - 1] != '/') o--;
            if (o > 1) o--; /* drop the slash too */
        } else {
            if (o > 1) {
                if (o + 1 >= outlen) return false;
                out[o++] = '/';
            }
            if (o + n >= outlen) return false;
            memcpy(out + o, p, n);
            o += n;
        }
        p = e;
    }
    out[o] = 0;
    return true;
}

bool abs_clean(const char *base, const char *path, char *out, size_t outlen) {
    if (path[0] == '/') return clean_abs(path, out, outlen);
    char cwd[PATH_MAX];
    if (!base) {
        if (!getcwd(cwd, sizeof cwd)) return false;
        base = cwd;
    }
    size_t bl = strlen(base), pl = strlen(path);
    char tmp[2 * PATH_MAX];
    if (bl + pl + 2 > sizeof tmp) return false;
    memcpy(tmp, base, bl);
    tmp[bl] = '/';
    memcpy(tmp + bl + 1, path, pl + 1);
    return clean_abs(tmp, out, outlen);
}

const char *under(const char *dir, size_t dirlen, const char *p) {
    if (!dir) return NULL;
    if (dirlen == 1) return p[0] == '/' && p[1] ? p + 1 : NULL;
    if (strncmp(p, dir, dirlen) == 0 && p[dirlen] == '/' && p[dirlen + 1]) return p + dirlen + 1;
    return NULL;
}

dyad_rc_t ctx_set_dir(char **dst, size_t *len, const char *path) {
    free(*dst);
    *dst = NULL;
    *len = 0;
    if (!path || !*path) return DYAD_RC_OK;
    char buf[PATH_MAX];
    if (!abs_clean(NULL, path, buf, sizeof buf))
        return fail(DYAD_RC_BADMANAGEDPATH, "managed directory %s: cannot make it absolute", path);
    if (!(*dst = strdup(buf))) return fail(DYAD_RC_SYSFAIL, "out of memory");
    *len = strlen(buf);
    return DYAD_RC_OK;
}

dyad_rc_t parse_dtl(const char *s, char out[8]) {
    char v[16] = "";
    size_t n = 0;
    if (s)
        for (; *s && n < sizeof v - 1; s++)
            if (!isspace((unsigned char)*s)) v[n++] = (char)tolower((unsigned char)*s);
    v[n] = 0;
    if (n == 0) {
        out[0] = 0;
        return DYAD_RC_OK;
    }
    if (!strcmp(v, "rpc") || !strcmp(v, "flux_rpc")) {
        strcpy(out, "rpc");
        return DYAD_RC_OK;
    }
    if (!strcmp(v, "ucx")) {
        strcpy(out, "ucx");
        return DYAD_RC_OK;
    }
    if (!strcmp(v, "margo"))
        return fail(DYAD_RC_BADDTLMODE,
                    "DTL %s needs Mercury/Margo, which is not available on this platform; use FLUX_RPC or UCX", s);
    return fail(DYAD_RC_BADDTLMODE, "unknown DTL mode %s (want FLUX_RPC, UCX or MARGO)", s);
}

/* env_bool parses a boolean by value; presence alone does not turn it on. */
static bool env_bool(const char *name, bool *dst, char *errs, size_t errlen) {
    const char *v = getenv(name);
    if (!v) return true;
    static const char *yes[] = {"1", "true", "yes", "on", "y", "t"};
    static const char *no[] = {"0", "false", "no", "off", "n", "f", ""};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (!strcasecmp(v, yes[i])) return (*dst = true);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (!strcasecmp(v, no[i])) return !(*dst = false);
    snprintf(errs + strlen(errs), errlen - strlen(errs), "%s=\"%s\" is not a boolean; ", name, v);
    return false;
}

static bool env_uint(const char *name, unsigned *dst, unsigned lo, char *errs, size_t errlen) {
    const char *v = getenv(name);
    if (!v) return true;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    while (isspace((unsigned char)*end)) end++;
    if (errno || end == v || *end || n < (long)lo || n > INT_MAX) {
        snprintf(errs + strlen(errs), errlen - strlen(errs), "%s=\"%s\" is not an integer >= %u; ", name, v, lo);
        return false;
    }
    *dst = (unsigned)n;
    return true;
}

/* parse_duration_ms reads a Go duration ("90s", "1m30s", "250ms", "1.5h") in ms. */
static bool parse_duration_ms(const char *s, int64_t *ms) {
    double total = 0;
    const char *p = s;
    if (!*p) return false;
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || v < 0) return false;
        p = end;
        double unit;
        if (!strncmp(p, "ns", 2)) unit = 1e-6, p += 2;
        else if (!strncmp(p, "us", 2) || !strncmp(p, "\xc2\xb5s", 3)) unit = 1e-3, p += p[0] == 'u' ? 2 : 3;
        else if (!strncmp(p, "ms", 2)) unit = 1, p += 2;
        else if (*p == 's') unit = 1e3, p++;
        else if (*p == 'm') unit = 60e3, p++;
        else if (*p == 'h') unit = 3600e3, p++;
        else return false;
        total += v * unit;
    }
    if (total <= 0 || total > 9.2e15) return false;
    *ms = total < 1 ? 1 : (int64_t)total;
    return true;
}

static bool env_duration(const char *name, int64_t *dst, char *errs, size_t errlen) {
    const char *v = getenv(name);
    if (!v) return true;
    if (!parse_duration_ms(v, dst)) {
        snprintf(errs + strlen(errs), errlen - strlen(errs), "%s=\"%s\" is not a positive duration; ", name, v);
        return false;
    }
    return true;
}

/* couplet_env reads couplet's own settings: the agent socket and the timeouts. */
static void couplet_env(struct dyad_ctx *c, char *errs, size_t errlen) {
    env_duration("COUPLET_DYAD_TIMEOUT", &c->timeout_ms, errs, errlen);
    env_duration("COUPLET_DYAD_TRANSFER_TIMEOUT", &c->transfer_timeout_ms, errs, errlen);
    const char *sock = getenv("COUPLET_AGENT_SOCKET");
    free(c->agent_socket);
    c->agent_socket = sock && *sock ? strdup(sock) : NULL;
}

dyad_rc_t ctx_couplet_env(struct dyad_ctx *c) {
    char errs[512] = "";
    c->timeout_ms = 60000, c->transfer_timeout_ms = 600000;
    couplet_env(c, errs, sizeof errs);
    if (errs[0]) {
        errs[strlen(errs) - 2] = 0;
        return fail(DYAD_RC_NOCTX, "bad environment: %s", errs);
    }
    return DYAD_RC_OK;
}

void ctx_free(struct dyad_ctx *c) {
    free(c->ns);
    free(c->prod);
    free(c->cons);
    free(c->agent_socket);
    memset(c, 0, sizeof *c);
}

dyad_rc_t ctx_from_env(struct dyad_ctx *c) {
    char errs[1024] = "";
    memset(c, 0, sizeof *c);
    c->key_depth = 3, c->key_bins = 1024, c->service_mux = 1;
    c->timeout_ms = 60000, c->transfer_timeout_ms = 600000;
    const char *ns = getenv("DYAD_KVS_NAMESPACE");
    if (ns && *ns) c->ns = strdup(ns);
    dyad_rc_t rc = ctx_set_dir(&c->prod, &c->prod_len, getenv("DYAD_PATH_PRODUCER"));
    if (rc == DYAD_RC_OK) rc = ctx_set_dir(&c->cons, &c->cons_len, getenv("DYAD_PATH_CONSUMER"));
    if (rc != DYAD_RC_OK) {
        ctx_free(c);
        return rc;
    }
    env_bool("DYAD_PATH_RELATIVE", &c->relative, errs, sizeof errs);
    env_bool("DYAD_SHARED_STORAGE", &c->shared_storage, errs, sizeof errs);
    env_bool("DYAD_ASYNC_PUBLISH", &c->async_publish, errs, sizeof errs);
    env_bool("DYAD_FSYNC_WRITE", &c->fsync_write, errs, sizeof errs);
    env_bool("DYAD_SYNC_DEBUG", &c->debug, errs, sizeof errs);
    env_bool("DYAD_SYNC_CHECK", &c->check, errs, sizeof errs);
    env_bool("DYAD_REINIT", &c->reinit, errs, sizeof errs);
    env_uint("DYAD_KEY_DEPTH", &c->key_depth, 0, errs, sizeof errs);
    env_uint("DYAD_KEY_BINS", &c->key_bins, 1, errs, sizeof errs);
    env_uint("DYAD_SERVICE_MUX", &c->service_mux, 1, errs, sizeof errs);
    couplet_env(c, errs, sizeof errs);
    if (!c->ns) snprintf(errs + strlen(errs), sizeof errs - strlen(errs), "DYAD_KVS_NAMESPACE is required; ");
    if (errs[0]) {
        errs[strlen(errs) - 2] = 0;
        ctx_free(c);
        return fail(DYAD_RC_NOCTX, "bad environment: %s", errs);
    }
    if ((rc = parse_dtl(getenv("DYAD_DTL_MODE"), c->dtl)) != DYAD_RC_OK) {
        ctx_free(c);
        return rc;
    }
    c->initialized = true;
    return DYAD_RC_OK;
}

/* agent_socket_for applies the agent socket rule: COUPLET_AGENT_SOCKET if set, else
 * DIR/.couplet/agent.sock for the absolute managed directory DIR, unless that would not
 * fit a socket address (108 bytes or more): then $XDG_RUNTIME_DIR/couplet/H.sock, or
 * /tmp/couplet-UID/H.sock without XDG_RUNTIME_DIR, where H is the FNV-1a 64 of DIR in
 * 16 lowercase hex digits. */
char *agent_socket_for(const struct dyad_ctx *c, const char *dir) {
    if (c->agent_socket) return strdup(c->agent_socket);
    if (!dir) return NULL;
    char *p = NULL;
    if (asprintf(&p, "%s/.couplet/agent.sock", dir) < 0) return NULL;
    if (strlen(p) < sizeof(((struct sockaddr_un *)0)->sun_path)) return p;
    free(p);
    unsigned long long h = (unsigned long long)fnv1a64(dir, strlen(dir));
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    int n = xdg && *xdg ? asprintf(&p, "%s/couplet/%016llx.sock", xdg, h)
                        : asprintf(&p, "/tmp/couplet-%u/%016llx.sock", (unsigned)getuid(), h);
    return n < 0 ? NULL : p;
}
