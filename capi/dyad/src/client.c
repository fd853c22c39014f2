/* Produce and consume, making the requests the Go client (dyad/client.go) makes:
 * publish on produce; on consume an OFD lock per path, then the locator (complete
 * local copy, the agent's cache, a wait on the global KVS), then a staging request. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* STAGED_ATTR is the extended attribute in which a staged copy carries its record (the Go
 * client's dyad.StagedAttr). */
#define STAGED_ATTR "user.couplet.meta"

int sys_open(const char *path, int flags, mode_t mode) {
    return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

int sys_close(int fd) { return (int)syscall(SYS_close, fd); }

int mkdir_parents(const char *path) {
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf) return 0;
    *slash = 0;
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0755) < 0 && errno != EEXIST) return -1;
            *p = c;
            if (!c) break;
        }
    }
    return 0;
}

/* state_path is DIR/.couplet/SUB/UPATH+SUFFIX, the layout the Go client uses. */
static char *state_path(const char *dir, const char *sub, const char *upath, const char *suffix) {
    char *p = NULL;
    return asprintf(&p, "%s/.couplet/%s/%s%s", dir, sub, upath, suffix) < 0 ? NULL : p;
}

/* checksum_file reads the file at path for its size and CRC-32C. */
static dyad_rc_t checksum_file(const char *path, int64_t *size, uint32_t *sum, int64_t *mtime) {
    int fd = sys_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return fail(DYAD_RC_BADFIO, "open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        sys_close(fd);
        errno = e;
        return fail(DYAD_RC_BADFIO, "stat %s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        sys_close(fd);
        errno = EINVAL;
        return fail(DYAD_RC_BADFIO, "%s is not a regular file", path);
    }
    if (mtime) *mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        sys_close(fd);
        return fail(DYAD_RC_SYSFAIL, "out of memory");
    }
    uint32_t c = 0;
    int64_t n = 0;
    for (;;) {
        ssize_t k = read(fd, buf, cap);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            int e = errno;
            free(buf);
            sys_close(fd);
            errno = e;
            return fail(DYAD_RC_BADFIO, "read %s: %s", path, strerror(e));
        }
        if (k == 0) break;
        c = crc32c_update(c, buf, (size_t)k);
        n += k;
    }
    free(buf);
    sys_close(fd);
    *size = n, *sum = c;
    return DYAD_RC_OK;
}

dyad_rc_t client_produce(const struct dyad_ctx *c, const char *abs, const char *upath, bool do_fsync) {
    if (do_fsync) {
        int fd = sys_open(abs, O_RDONLY | O_CLOEXEC, 0);
        if (fd < 0 || fsync(fd) < 0) {
            int e = errno;
            if (fd >= 0) sys_close(fd);
            errno = e;
            return fail(DYAD_RC_BADFIO, "produce: fsync %s: %s", abs, strerror(e));
        }
        sys_close(fd);
    }
    wmeta m = {0};
    dyad_rc_t rc = checksum_file(abs, &m.size, &m.checksum, &m.mtime_ns);
    if (rc != DYAD_RC_OK) return rc;
    m.key = path_key(upath, c->key_depth, c->key_bins);
    m.path = (char *)upath;
    char *sock = agent_socket_for(c, c->prod);
    if (!m.key || !sock) {
        free(m.key);
        free(sock);
        return fail(DYAD_RC_SYSFAIL, "out of memory");
    }
    wreq q = {.op = OP_PUBLISH, .ns = c->ns, .key = m.key, .path = abs, .meta = &m};
    wrep r;
    rc = agent_call(sock, &q, c->timeout_ms, &r);
    if (rc == DYAD_RC_OK) {
        if (r.op == OP_ERROR)
            rc = fail(DYAD_RC_BADCOMMIT, "produce %s: agent: %s", upath, r.err ? r.err : "?");
        else if (!r.has_meta)
            rc = fail(DYAD_RC_BADRPC, "produce %s: the agent's reply has no metadata", upath);
        else
            debugf(c, "produced %s key %s version %lld size %lld", upath, m.key, (long long)r.meta.version,
                   (long long)r.meta.size);
        wrep_free(&r);
    }
    free(m.key);
    free(sock);
    return rc;
}

/* local_copy reports whether a complete local copy of key at version >= minv exists: the
 * copy's record names it (in its user.couplet.meta extended attribute, set before the
 * copy's rename, or where the file system keeps none, in the sidecar written after it) and
 * the size still matches. */
static bool local_copy(const struct dyad_ctx *c, const char *upath, const char *key, int64_t minv, wmeta *out) {
    char abs[PATH_MAX];
    snprintf(abs, sizeof abs, "%s/%s", c->cons, upath);
    uint8_t buf[WIRE_MAX_FRAME];
    size_t n = 0;
    ssize_t a = getxattr(abs, STAGED_ATTR, buf, sizeof buf);
    if (a >= 0) {
        n = (size_t)a;
    } else {
        if (errno == ENOENT) return false;
        char *side = state_path(c->cons, "meta", upath, ".meta");
        if (!side) return false;
        int fd = sys_open(side, O_RDONLY | O_CLOEXEC, 0);
        free(side);
        if (fd < 0) return false;
        for (;;) {
            ssize_t k = read(fd, buf + n, sizeof buf - n);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) break;
            n += (size_t)k;
            if (n == sizeof buf) break;
        }
        sys_close(fd);
    }
    wmeta m = {0};
    mp_rd r = {buf, buf + n, false};
    bool ok = wire_decode_meta(&r, &m) && m.key && !strcmp(m.key, key) && m.version >= minv;
    if (ok) {
        struct stat st;
        ok = stat(abs, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == m.size;
        if (ok && c->check) {
            int64_t size;
            uint32_t sum;
            ok = checksum_file(abs, &size, &sum, NULL) == DYAD_RC_OK && sum == m.checksum;
        }
    }
    if (ok && out)
        *out = m;
    else
        wmeta_free(&m);
    return ok;
}

/* locate finds upath's metadata; *local says it was a complete local copy. */
static dyad_rc_t locate(const struct dyad_ctx *c, const char *upath, bool wait, wmeta *out, bool *local) {
    char *key = path_key(upath, c->key_depth, c->key_bins);
    char *sock = agent_socket_for(c, c->cons);
    dyad_rc_t rc = DYAD_RC_OK;
    *local = false;
    if (!key || !sock) {
        rc = fail(DYAD_RC_SYSFAIL, "out of memory");
        goto out;
    }
    if (local_copy(c, upath, key, 0, out)) {
        *local = true;
        debugf(c, "located %s version %lld locally", upath, (long long)out->version);
        goto out;
    }
    for (int level = 0; level < 2; level++) {
        wreq q = {.op = level == 0 ? OP_LOOKUP : OP_WAIT, .ns = c->ns, .key = key};
        int64_t tmo = c->timeout_ms;
        if (level == 1) {
            /* Without waiting, ask for 1 ms: the agent reads a timeout of 0 as forever. */
            q.timeout_ms = wait ? c->timeout_ms : 1;
            tmo = q.timeout_ms + 10000;
        }
        wrep r;
        if ((rc = agent_call(sock, &q, tmo, &r)) != DYAD_RC_OK) goto out;
        if (r.op == OP_ERROR) {
            rc = fail(level == 1 ? DYAD_RC_NOTFOUND : DYAD_RC_FLUXFAIL, "locate %s (key %s): agent: %s", upath, key,
                      r.err ? r.err : "?");
            wrep_free(&r);
            goto out;
        }
        if (r.found && r.has_meta) {
            *out = r.meta;
            memset(&r.meta, 0, sizeof r.meta);
            wrep_free(&r);
            debugf(c, "located %s version %lld %s (owner %s)", upath, (long long)out->version,
                   level == 0 ? "in the agent's cache" : "in the KVS", out->owner ? out->owner : "?");
            goto out;
        }
        wrep_free(&r);
    }
    if (wait)
        rc = fail(DYAD_RC_NOTFOUND, "%s (key %s) not produced within %lld ms", upath, key, (long long)c->timeout_ms);
    else
        rc = fail(DYAD_RC_NOTFOUND, "%s (key %s) is not produced", upath, key);
out:
    free(key);
    free(sock);
    return rc;
}

dyad_rc_t client_locate(const struct dyad_ctx *c, const char *upath, bool wait, wmeta *out) {
    bool local;
    return locate(c, upath, wait, out, &local);
}

/* lock_path takes the node-wide OFD lock of upath: one consumer per path stages it,
 * the others wait here and then find the complete copy. The wait polls with a
 * growing sleep (no thread parked in the kernel, no spinning), up to the timeout. */
static int lock_path(const struct dyad_ctx *c, const char *upath) {
    char *lp = state_path(c->cons, "locks", upath, ".lock");
    if (!lp) {
        errno = ENOMEM;
        return -1;
    }
    int fd = -1;
    if (mkdir_parents(lp) == 0) fd = sys_open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    int e = errno;
    free(lp);
    if (fd < 0) {
        errno = e;
        return -1;
    }
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    long sleep_us = 500;
    int64_t waited_us = 0;
    while (fcntl(fd, F_OFD_SETLK, &fl) < 0) {
        if (errno != EAGAIN && errno != EACCES && errno != EINTR) goto bad;
        if (waited_us >= c->timeout_ms * 1000) {
            errno = ETIMEDOUT;
            goto bad;
        }
        struct timespec ts = {sleep_us / 1000000, (sleep_us % 1000000) * 1000};
        if (nanosleep(&ts, NULL) < 0) goto bad; /* EINTR: let the program see its signal */
        waited_us += sleep_us;
        if (sleep_us < 50000) sleep_us *= 2;
    }
    return fd;
bad:
    e = errno;
    sys_close(fd);
    errno = e;
    return -1;
}

/* stage asks the agent to stage upath into abs: the version want names, or, with want
 * NULL, the record of key, which the agent locates (its cache, else the KVS, where it
 * waits up to the timeout) in the same request, with no round trip in between. */
static dyad_rc_t stage(const struct dyad_ctx *c, const char *abs, const char *upath, const char *key,
                       const wmeta *want) {
    char *side = state_path(c->cons, "meta", upath, ".meta");
    char *sock = agent_socket_for(c, c->cons);
    dyad_rc_t rc = DYAD_RC_OK;
    if (!side || !sock) {
        rc = fail(DYAD_RC_SYSFAIL, "out of memory");
        goto out;
    }
    wreq q = {.op = OP_STAGE, .ns = c->ns, .key = want ? want->key : key, .dest = abs, .path = side, .meta = want,
              .dtl = c->dtl};
    int64_t tmo = c->transfer_timeout_ms;
    if (!want) {
        q.wait_ms = c->timeout_ms, q.timeout_ms = c->transfer_timeout_ms;
        tmo += c->timeout_ms + 10000;
    }
    wrep r;
    if ((rc = agent_call(sock, &q, tmo, &r)) != DYAD_RC_OK) goto out;
    const wmeta *got = want ? want : r.has_meta ? &r.meta : NULL;
    if (r.op == OP_ERROR)
        rc = fail(DYAD_RC_BADFETCH, "consume %s: agent: %s", upath, r.err ? r.err : "?");
    else if (!want && !r.found)
        rc = fail(DYAD_RC_NOTFOUND, "%s (key %s) not produced within %lld ms", upath, key, (long long)c->timeout_ms);
    else
        debugf(c, "staged %s version %lld (%lld bytes)", upath, got ? (long long)got->version : -1LL,
               got ? (long long)got->size : -1LL);
    wrep_free(&r);
out:
    free(side);
    free(sock);
    return rc;
}

dyad_rc_t client_consume(const struct dyad_ctx *c, const char *abs, const char *upath, const wmeta *given) {
    int lk = lock_path(c, upath);
    if (lk < 0) return fail(DYAD_RC_SYSFAIL, "consume %s: lock: %s", upath, strerror(errno));
    wmeta m = {0};
    const wmeta *want = given; /* the record, when it is known before the staging */
    char *key = NULL;
    bool local = false;
    dyad_rc_t rc = DYAD_RC_OK;
    if (given) {
        local = local_copy(c, upath, given->key ? given->key : "", given->version, NULL);
    } else if (c->shared_storage) {
        /* Shared storage compares sizes: it needs the record itself. */
        rc = locate(c, upath, true, &m, &local);
        want = &m;
    } else if (!(key = path_key(upath, c->key_depth, c->key_bins))) {
        rc = fail(DYAD_RC_SYSFAIL, "out of memory");
    } else if ((local = local_copy(c, upath, key, 0, NULL))) {
        debugf(c, "located %s locally", upath);
    }
    if (rc != DYAD_RC_OK || local) goto out;
    if (c->shared_storage) {
        /* Shared storage: the producer's file is already here; synchronise only. */
        struct stat st;
        if (stat(abs, &st) < 0)
            rc = fail(DYAD_RC_BADFIO, "consume %s (shared storage): published but not visible here: %s", upath,
                      strerror(errno));
        else if (st.st_size != want->size)
            rc = fail(DYAD_RC_BADFIO, "consume %s (shared storage): size %lld, published %lld", upath,
                      (long long)st.st_size, (long long)want->size);
        goto out;
    }
    rc = stage(c, abs, upath, key, want);
out: {
    int e = errno;
    free(key);
    wmeta_free(&m);
    sys_close(lk); /* drops the OFD lock */
    errno = e;
}
    return rc;
}
