/* Log lines (stderr, or the file COUPLET_DYAD_LOG names) and each thread's last error. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static __thread char last_err[1024];

const char *couplet_dyad_last_error(void) { return last_err; }

void clear_error(void) { last_err[0] = 0; }

/* vlog writes one whole line with a single write, so lines of concurrent threads and
 * processes do not interleave. */
static void vlog(const char *fmt, va_list ap) {
    char line[1200];
    int n = snprintf(line, sizeof line, "couplet-dyad[%d]: ", (int)getpid());
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    if (m < 0) return;
    n += m < (int)(sizeof line - (size_t)n - 1) ? m : (int)(sizeof line - (size_t)n - 2);
    line[n++] = '\n';
    int saved = errno;
    const char *path = getenv("COUPLET_DYAD_LOG");
    int fd = 2;
    if (path && *path) fd = sys_open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
        ssize_t w = write(fd, line, (size_t)n);
        (void)w;
        if (fd != 2) sys_close(fd);
    }
    errno = saved;
}

void dlog(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

void debugf(const struct dyad_ctx *c, const char *fmt, ...) {
    if (!c || !c->debug) return;
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

dyad_rc_t fail(dyad_rc_t rc, const char *fmt, ...) {
    int saved = errno;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_err, sizeof last_err, fmt, ap);
    va_end(ap);
    dlog("error: %s (%s)", last_err, couplet_dyad_strerror(rc));
    errno = saved;
    return rc;
}

int rc_errno(dyad_rc_t rc, int saved) {
    switch (rc) {
    case DYAD_RC_OK: return 0;
    case DYAD_RC_SYSFAIL:
    case DYAD_RC_BADFIO: return saved ? saved : EIO;
    case DYAD_RC_NOCTX:
    case DYAD_RC_BADMANAGEDPATH:
    case DYAD_RC_BADDTLMODE:
    case DYAD_RC_UNTRACKED:
    case DYAD_RC_BADBUF: return EINVAL;
    case DYAD_RC_FLUXFAIL: return ECONNREFUSED;
    case DYAD_RC_NOTFOUND: return ETIMEDOUT;
    default: return EIO;
    }
}

const char *couplet_dyad_strerror(dyad_rc_t rc) {
    switch (rc) {
    case DYAD_RC_OK: return "DYAD_RC_OK";
    case DYAD_RC_SYSFAIL: return "DYAD_RC_SYSFAIL: a system call failed";
    case DYAD_RC_NOCTX: return "DYAD_RC_NOCTX: no DYAD context";
    case DYAD_RC_BADMETADATA: return "DYAD_RC_BADMETADATA: bad metadata";
    case DYAD_RC_BADFIO: return "DYAD_RC_BADFIO: file I/O failed";
    case DYAD_RC_BADMANAGEDPATH: return "DYAD_RC_BADMANAGEDPATH: no managed directory";
    case DYAD_RC_BADDTLMODE: return "DYAD_RC_BADDTLMODE: bad DTL mode";
    case DYAD_RC_UNTRACKED: return "DYAD_RC_UNTRACKED: not under the managed directory";
    case DYAD_RC_BAD_COMM_MODE: return "DYAD_RC_BAD_COMM_MODE: bad comm mode";
    case DYAD_RC_BADBUF: return "DYAD_RC_BADBUF: bad buffer or pointer";
    case DYAD_RC_FLUXFAIL: return "DYAD_RC_FLUXFAIL: node agent unreachable";
    case DYAD_RC_BADCOMMIT: return "DYAD_RC_BADCOMMIT: publish refused";
    case DYAD_RC_NOTFOUND: return "DYAD_RC_NOTFOUND: not produced";
    case DYAD_RC_BADFETCH: return "DYAD_RC_BADFETCH: staging failed";
    case DYAD_RC_BADRPC: return "DYAD_RC_BADRPC: bad exchange with the node agent";
    default: return "DYAD error";
    }
}
