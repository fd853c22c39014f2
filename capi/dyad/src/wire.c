/* The staging protocol between a client and its node agent, as dyad/wire defines
 * it: each message is a 4-byte big-endian length and a msgpack map whose keys are
 * wire.Msg's (and wire.Meta's) msgpack names. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

void wmeta_free(wmeta *m) {
    free(m->key);
    free(m->path);
    free(m->owner);
    free(m->node);
    memset(m, 0, sizeof *m);
}

void wrep_free(wrep *r) {
    free(r->err);
    wmeta_free(&r->meta);
    memset(r, 0, sizeof *r);
}

void wire_encode_meta(mp_buf *w, const wmeta *m) {
    mp_map(w, 8);
    mp_str(w, "k"), mp_str(w, m->key);
    mp_str(w, "p"), mp_str(w, m->path);
    mp_str(w, "o"), mp_str(w, m->owner);
    mp_str(w, "n"), mp_str(w, m->node);
    mp_str(w, "s"), mp_int(w, m->size);
    mp_str(w, "v"), mp_int(w, m->version);
    mp_str(w, "c"), mp_uint(w, m->checksum);
    mp_str(w, "t"), mp_int(w, m->mtime_ns);
}

static bool set(const char *s) { return s && *s; }

void wire_encode_req(mp_buf *w, const wreq *q) {
    uint32_t n = 1 + set(q->ns) + set(q->key) + set(q->path) + set(q->dest) + set(q->dtl) +
                 (q->min_version != 0) + (q->timeout_ms != 0) + (q->wait_ms != 0) + (q->meta != NULL);
    mp_map(w, n);
    mp_str(w, "op"), mp_uint(w, (uint64_t)q->op);
    if (set(q->ns)) mp_str(w, "ns"), mp_str(w, q->ns);
    if (set(q->key)) mp_str(w, "key"), mp_str(w, q->key);
    if (set(q->path)) mp_str(w, "path"), mp_str(w, q->path);
    if (set(q->dest)) mp_str(w, "dest"), mp_str(w, q->dest);
    if (q->min_version != 0) mp_str(w, "minv"), mp_int(w, q->min_version);
    if (q->timeout_ms != 0) mp_str(w, "tmo"), mp_int(w, q->timeout_ms);
    if (q->wait_ms != 0) mp_str(w, "wait"), mp_int(w, q->wait_ms);
    if (q->meta) mp_str(w, "meta"), wire_encode_meta(w, q->meta);
    if (set(q->dtl)) mp_str(w, "dtl"), mp_str(w, q->dtl);
}

static bool keyis(const char *k, uint32_t n, const char *want) {
    return strlen(want) == n && memcmp(k, want, n) == 0;
}

/* read_strdup reads a string (or nil) into a new NUL-terminated copy. */
static bool read_strdup(mp_rd *r, char **out) {
    const char *s;
    uint32_t n;
    if (mp_is_nil(r)) return true;
    if (!mp_read_str(r, &s, &n)) return false;
    if (memchr(s, 0, n)) return !(r->err = true);
    free(*out);
    *out = malloc((size_t)n + 1);
    if (!*out) return !(r->err = true);
    memcpy(*out, s, n);
    (*out)[n] = 0;
    return true;
}

bool wire_decode_meta(mp_rd *r, wmeta *m) {
    uint32_t n;
    if (!mp_read_map(r, &n)) return false;
    for (uint32_t i = 0; i < n; i++) {
        const char *k;
        uint32_t kn;
        int64_t v;
        if (!mp_read_str(r, &k, &kn)) return false;
        if (keyis(k, kn, "k")) {
            if (!read_strdup(r, &m->key)) return false;
        } else if (keyis(k, kn, "p")) {
            if (!read_strdup(r, &m->path)) return false;
        } else if (keyis(k, kn, "o")) {
            if (!read_strdup(r, &m->owner)) return false;
        } else if (keyis(k, kn, "n")) {
            if (!read_strdup(r, &m->node)) return false;
        } else if (keyis(k, kn, "s")) {
            if (!mp_read_int(r, &m->size)) return false;
        } else if (keyis(k, kn, "v")) {
            if (!mp_read_int(r, &m->version)) return false;
        } else if (keyis(k, kn, "t")) {
            if (!mp_read_int(r, &m->mtime_ns)) return false;
        } else if (keyis(k, kn, "c")) {
            if (!mp_read_int(r, &v)) return false;
            if (v < 0 || v > UINT32_MAX) return !(r->err = true);
            m->checksum = (uint32_t)v;
        } else if (!mp_skip(r))
            return false;
    }
    if (m->size < 0 || m->version < 0) return !(r->err = true);
    return true;
}

bool wire_decode_rep(const uint8_t *b, size_t len, wrep *rep, char *why, size_t whylen) {
    mp_rd r = {b, b + len, false};
    uint32_t n;
    int64_t v;
    memset(rep, 0, sizeof *rep);
    if (!mp_read_map(&r, &n)) goto bad;
    for (uint32_t i = 0; i < n; i++) {
        const char *k;
        uint32_t kn;
        if (!mp_read_str(&r, &k, &kn)) goto bad;
        if (keyis(k, kn, "op")) {
            if (!mp_read_int(&r, &v)) goto bad;
            if (v <= 0 || v >= OP_MAX) {
                snprintf(why, whylen, "unknown op %lld", (long long)v);
                goto out;
            }
            rep->op = (int)v;
        } else if (keyis(k, kn, "err")) {
            if (!read_strdup(&r, &rep->err)) goto bad;
        } else if (keyis(k, kn, "found")) {
            if (!mp_read_bool(&r, &rep->found)) goto bad;
        } else if (keyis(k, kn, "meta")) {
            if (mp_is_nil(&r)) continue;
            wmeta_free(&rep->meta);
            if (!wire_decode_meta(&r, &rep->meta)) goto bad;
            rep->has_meta = true;
        } else if (!mp_skip(&r))
            goto bad;
    }
    if (r.p != r.end) {
        snprintf(why, whylen, "%zu bytes after the message", (size_t)(r.end - r.p));
        goto out;
    }
    if (rep->op == 0) {
        snprintf(why, whylen, "message without an op");
        goto out;
    }
    return true;
bad:
    snprintf(why, whylen, "malformed message");
out:
    wrep_free(rep);
    return false;
}

/* ---- frames over a socket ---- */

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* io_full reads or writes n bytes before the deadline (poll, never spinning).
 * It fails with errno ETIMEDOUT, EINTR, EPIPE (peer gone) or the system's. */
static bool io_full(int fd, void *p, size_t n, bool rd, int64_t deadline) {
    uint8_t *b = p;
    while (n > 0) {
        int64_t left = deadline - now_ms();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return false;
        }
        struct pollfd pf = {fd, rd ? POLLIN : POLLOUT, 0};
        int k = poll(&pf, 1, left > 1000000000 ? 1000000000 : (int)left);
        if (k < 0) return false; /* EINTR included: the caller hands it on */
        if (k == 0) continue;
        ssize_t m = rd ? recv(fd, b, n, MSG_DONTWAIT) : send(fd, b, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (m < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) continue;
            return false;
        }
        if (m == 0) {
            errno = EPIPE;
            return false;
        }
        b += m;
        n -= (size_t)m;
    }
    return true;
}

dyad_rc_t agent_call(const char *socket_path, const wreq *q, int64_t timeout_ms, wrep *rep) {
    static const char *opname[] = {"invalid", "fetch", "header", "chunk", "end", "error", "publish",
                                   "lookup", "wait", "stage", "list", "meta", "stats"};
    const char *name = q->op < 13 ? opname[q->op] : "request";
    uint8_t buf[4 + WIRE_MAX_FRAME];
    mp_buf w = {buf + 4, 0, WIRE_MAX_FRAME, false};
    wire_encode_req(&w, q);
    if (w.err) return fail(DYAD_RC_BADBUF, "%s request does not fit in a frame", name);
    buf[0] = (uint8_t)(w.len >> 24), buf[1] = (uint8_t)(w.len >> 16);
    buf[2] = (uint8_t)(w.len >> 8), buf[3] = (uint8_t)w.len;

    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(socket_path) >= sizeof sa.sun_path)
        return fail(DYAD_RC_FLUXFAIL, "agent socket path %s is too long", socket_path);
    strcpy(sa.sun_path, socket_path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return fail(DYAD_RC_SYSFAIL, "socket: %s", strerror(errno));
    int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 60000);
    dyad_rc_t rc = DYAD_RC_OK;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        int e = errno;
        sys_close(fd);
        errno = e;
        return fail(DYAD_RC_FLUXFAIL, "no agent at %s (start one with `couplet agent`): %s", socket_path,
                    strerror(e));
    }
    /* The agent must run as this user, root, or $COUPLET_AGENT_UID: anything else could
     * be a squatter on the socket path, so nothing is sent to it. */
    struct ucred cred;
    socklen_t cl = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0) {
        rc = fail(DYAD_RC_FLUXFAIL, "agent at %s: peer credentials: %s", socket_path, strerror(errno));
        goto out;
    }
    const char *want_uid = getenv("COUPLET_AGENT_UID");
    char uidbuf[16];
    snprintf(uidbuf, sizeof uidbuf, "%u", (unsigned)cred.uid);
    if (cred.uid != getuid() && cred.uid != 0 && !(want_uid && !strcmp(want_uid, uidbuf))) {
        rc = fail(DYAD_RC_FLUXFAIL, "agent socket %s owned by another user: uid %u (pid %d), not %u, root or $COUPLET_AGENT_UID",
                  socket_path, (unsigned)cred.uid, (int)cred.pid, (unsigned)getuid());
        goto out;
    }
    uint8_t hdr[4];
    uint8_t *body = buf; /* the request is sent; its buffer takes the reply */
    if (!io_full(fd, buf, 4 + w.len, false, deadline)) goto ioerr;
    if (!io_full(fd, hdr, 4, true, deadline)) goto ioerr;
    uint32_t n = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
    if (n == 0 || n > WIRE_MAX_FRAME) {
        rc = fail(DYAD_RC_BADRPC, "%s reply from agent at %s: frame length %u not in 1..%d", name, socket_path,
                  n, WIRE_MAX_FRAME);
        goto out;
    }
    if (!io_full(fd, body, n, true, deadline)) goto ioerr;
    char why[128];
    if (!wire_decode_rep(body, n, rep, why, sizeof why)) {
        rc = fail(DYAD_RC_BADRPC, "%s reply from agent at %s: %s", name, socket_path, why);
        goto out;
    }
    goto out;
ioerr: {
    int e = errno;
    if (e == EINTR || e == ETIMEDOUT)
        rc = fail(DYAD_RC_SYSFAIL, "%s request to agent at %s: %s", name, socket_path, strerror(e));
    else
        rc = fail(DYAD_RC_BADRPC, "%s request to agent at %s: %s", name, socket_path,
                  e == EPIPE ? "the agent closed the connection" : strerror(e));
    errno = e;
}
out : {
    int e = errno;
    sys_close(fd);
    errno = e;
}
    return rc;
}
