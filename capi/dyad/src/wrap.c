/* LD_PRELOAD interception of open and close for unmodified programs.
 *
 * A read-only open under DYAD_PATH_CONSUMER blocks until the file is produced and
 * staged, then opens the local copy. A file opened for writing under
 * DYAD_PATH_PRODUCER is published when its last descriptor in the process is closed
 * (close, fclose, or a dup2 over it), fsync'd first with DYAD_FSYNC_WRITE; dup, dup2,
 * dup3 and F_DUPFD are followed so that a shell's `> file` redirection publishes once,
 * after the data is written. A program started with such a descriptor that its own
 * process opened before exec (a shell's `cmd > file`) publishes it when it closes it
 * or exits.
 * Everything else goes straight to libc. Interception is on when the library is
 * preloaded (or COUPLET_DYAD_INTERCEPT=1); a program linked with it for DYAD's C API
 * alone keeps its own opens.
 *
 * The library is plain C with no thread of its own, so it survives fork and exec;
 * after a fork the child does not publish the descriptors it inherited (the parent
 * still writes through them). Calls made from inside never come back here: internal
 * I/O uses raw system calls, and a per-thread depth counter guards the rest. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#define EXPORT __attribute__((visibility("default")))

/* ---- the real functions ---- */

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*open2_fn)(const char *, int);
typedef int (*openat2_fn)(int, const char *, int);
typedef int (*creat_fn)(const char *, mode_t);
typedef FILE *(*fopen_fn)(const char *, const char *);
typedef FILE *(*freopen_fn)(const char *, const char *, FILE *);
typedef int (*close_fn)(int);
typedef int (*fclose_fn)(FILE *);
typedef int (*dup_fn)(int);
typedef int (*dup2_fn)(int, int);
typedef int (*dup3_fn)(int, int, int);
typedef int (*fcntl_fn)(int, int, ...);

static struct {
    open_fn open, open64;
    openat_fn openat, openat64;
    open2_fn open_2, open64_2;
    openat2_fn openat_2, openat64_2;
    creat_fn creat, creat64;
    fopen_fn fopen, fopen64;
    freopen_fn freopen, freopen64;
    close_fn close;
    fclose_fn fclose;
    dup_fn dup;
    dup2_fn dup2;
    dup3_fn dup3;
    fcntl_fn fcntl, fcntl64;
} real;

static void *next(const char *name) { return dlsym(RTLD_NEXT, name); }

/* REAL resolves lazily too: other libraries' constructors may open files before ours runs. */
#define REAL(field, name)                                                                                          \
    __extension__({                                                                                                \
        if (!real.field) real.field = next(name);                                                                  \
        real.field;                                                                                                \
    })

static void resolve_all(void) {
    REAL(open, "open"), REAL(open64, "open64"), REAL(openat, "openat"), REAL(openat64, "openat64");
    REAL(open_2, "__open_2"), REAL(open64_2, "__open64_2"), REAL(openat_2, "__openat_2");
    REAL(openat64_2, "__openat64_2"), REAL(creat, "creat"), REAL(creat64, "creat64");
    REAL(fopen, "fopen"), REAL(fopen64, "fopen64"), REAL(freopen, "freopen"), REAL(freopen64, "freopen64");
    REAL(close, "close"), REAL(fclose, "fclose"), REAL(dup, "dup"), REAL(dup2, "dup2"), REAL(dup3, "dup3");
    REAL(fcntl, "fcntl"), REAL(fcntl64, "fcntl64");
}

/* raw_openat is the fallback when a symbol is missing from libc. */
static int raw_openat(int dirfd, const char *path, int flags, mode_t mode) {
    return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

/* ---- state ---- */

enum { ST_UNINIT, ST_OFF, ST_ON, ST_BADENV };

static struct dyad_ctx W; /* the wrapper's own context, from the environment */
static int state;         /* ST_*; written once by init */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static __thread int depth; /* > 0 while this thread is inside the library */

static void init(void);

static inline bool on(void) {
    int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (__builtin_expect(s == ST_UNINIT, 0)) {
        pthread_once(&once, init);
        s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    }
    return s >= ST_ON;
}

/* ---- descriptors opened for writing under the producer directory ---- */

/* A tracked file is one open file description: every descriptor dup'd from it shares
 * the entry, and the file is published when refs drops to zero. */
struct tracked {
    int refs;
    bool inherited; /* came through a fork: the parent publishes it */
    size_t upath_off;
    char path[];
};

#define CHUNK 1024
#define NCHUNKS 1024 /* descriptors up to 2^20 */

static struct tracked **chunks[NCHUNKS];
static int ntracked; /* descriptors in the table; 0 keeps close and dup on the fast path */
static pthread_mutex_t tmu = PTHREAD_MUTEX_INITIALIZER;

static struct tracked *get(int fd) {
    if (fd < 0 || fd >= CHUNK * NCHUNKS) return NULL;
    struct tracked **c = __atomic_load_n(&chunks[fd / CHUNK], __ATOMIC_ACQUIRE);
    return c ? __atomic_load_n(&c[fd % CHUNK], __ATOMIC_ACQUIRE) : NULL;
}

/* put and take run under tmu. */
static bool put(int fd, struct tracked *t) {
    if (fd < 0 || fd >= CHUNK * NCHUNKS) return false;
    struct tracked **c = chunks[fd / CHUNK];
    if (!c) {
        if (!(c = calloc(CHUNK, sizeof *c))) return false;
        __atomic_store_n(&chunks[fd / CHUNK], c, __ATOMIC_RELEASE);
    }
    if (!c[fd % CHUNK]) __atomic_add_fetch(&ntracked, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&c[fd % CHUNK], t, __ATOMIC_RELEASE);
    return true;
}

static struct tracked *take(int fd) {
    struct tracked *t = get(fd);
    if (t) {
        __atomic_store_n(&chunks[fd / CHUNK][fd % CHUNK], NULL, __ATOMIC_RELEASE);
        __atomic_sub_fetch(&ntracked, 1, __ATOMIC_RELAXED);
    }
    return t;
}

static inline bool any_tracked(void) { return __atomic_load_n(&ntracked, __ATOMIC_RELAXED) > 0; }

static struct tracked *new_tracked(const char *abs, const char *upath) {
    size_t n = strlen(abs);
    struct tracked *t = malloc(sizeof *t + n + 1);
    if (!t) return NULL;
    t->refs = 1, t->inherited = false;
    memcpy(t->path, abs, n + 1);
    t->upath_off = (size_t)(upath - abs);
    return t;
}

static void track(int fd, const char *abs, const char *upath) {
    struct tracked *t = new_tracked(abs, upath);
    pthread_mutex_lock(&tmu);
    struct tracked *old = take(fd); /* a stale entry: the descriptor was closed behind our back */
    bool ok = t && put(fd, t);
    pthread_mutex_unlock(&tmu);
    if (old) {
        pthread_mutex_lock(&tmu);
        bool last = --old->refs == 0;
        pthread_mutex_unlock(&tmu);
        if (last) free(old);
    }
    if (!ok) {
        free(t);
        dlog("error: cannot track descriptor %d of %s: it will not be published on close", fd, abs);
    } else {
        debugf(&W, "tracking %s on descriptor %d", abs, fd);
    }
}

/* share makes newfd another descriptor of oldfd's tracked file, if it has one. */
static void share(int oldfd, int newfd) {
    pthread_mutex_lock(&tmu);
    struct tracked *t = get(oldfd);
    if (t && put(newfd, t)) t->refs++;
    pthread_mutex_unlock(&tmu);
}

/* release drops fd's reference; it returns the entry when that was the last one. */
static struct tracked *release(int fd) {
    pthread_mutex_lock(&tmu);
    struct tracked *t = take(fd);
    bool last = t && --t->refs == 0;
    pthread_mutex_unlock(&tmu);
    return last ? t : NULL;
}

/* last_ref says whether fd holds the only reference to its tracked file. */
static bool last_ref(int fd) {
    pthread_mutex_lock(&tmu);
    struct tracked *t = get(fd);
    bool last = t && t->refs == 1 && !t->inherited;
    pthread_mutex_unlock(&tmu);
    return last;
}

/* publish produces a released file and frees its entry. It returns 0, or -1 with
 * errno set after logging why. */
static int publish(struct tracked *t) {
    int rc = 0;
    if (!t->inherited) {
        depth++;
        int saved = errno;
        dyad_rc_t r = state == ST_ON ? client_produce(&W, t->path, t->path + t->upath_off, false)
                                     : fail(DYAD_RC_NOCTX, "cannot publish %s: bad DYAD environment", t->path);
        if (r != DYAD_RC_OK) {
            saved = rc_errno(r, errno);
            rc = -1;
        }
        errno = saved;
        depth--;
    }
    free(t);
    return rc;
}

/* sync_fd fsyncs a tracked file before its publication (DYAD_FSYNC_WRITE). */
static void sync_fd(int fd) {
    if (fsync(fd) < 0)
        dlog("error: fsync of descriptor %d before publishing: %s", fd, strerror(errno));
    else
        debugf(&W, "fsync'd descriptor %d before publishing", fd);
}

/* ---- classification ---- */

enum role { ROLE_NONE, ROLE_CONSUME, ROLE_PRODUCE };

static bool is_state(const char *rel) { return !strncmp(rel, ".couplet", 8) && (rel[8] == 0 || rel[8] == '/'); }

/* The working directory, cached so that an open by relative path costs no getcwd: chdir
 * and fchdir invalidate it. Readers copy it under a sequence counter (a seqlock). */
static char cwd_buf[PATH_MAX];
static unsigned cwd_seq; /* odd while being written */
static bool cwd_valid;
static pthread_mutex_t cwd_mu = PTHREAD_MUTEX_INITIALIZER;

static bool cwd(char out[PATH_MAX]) {
    for (int tries = 0; tries < 8; tries++) {
        unsigned s = __atomic_load_n(&cwd_seq, __ATOMIC_ACQUIRE);
        if (s & 1 || !__atomic_load_n(&cwd_valid, __ATOMIC_ACQUIRE)) break;
        memcpy(out, cwd_buf, PATH_MAX);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&cwd_seq, __ATOMIC_RELAXED) == s && memchr(out, 0, PATH_MAX)) return true;
    }
    pthread_mutex_lock(&cwd_mu);
    __atomic_add_fetch(&cwd_seq, 1, __ATOMIC_ACQ_REL);
    bool ok = getcwd(cwd_buf, sizeof cwd_buf) != NULL;
    __atomic_store_n(&cwd_valid, ok, __ATOMIC_RELEASE);
    if (ok) memcpy(out, cwd_buf, PATH_MAX);
    __atomic_add_fetch(&cwd_seq, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_unlock(&cwd_mu);
    return ok;
}

static void cwd_changed(void) {
    pthread_mutex_lock(&cwd_mu);
    __atomic_add_fetch(&cwd_seq, 1, __ATOMIC_ACQ_REL);
    __atomic_store_n(&cwd_valid, false, __ATOMIC_RELEASE);
    __atomic_add_fetch(&cwd_seq, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_unlock(&cwd_mu);
}

/* absolute resolves path as the kernel would for dirfd (lexically). */
static bool absolute(int dirfd, const char *path, char out[PATH_MAX]) {
    if (path[0] == '/') return abs_clean(NULL, path, out, PATH_MAX);
    if (dirfd == AT_FDCWD) {
        char base[PATH_MAX];
        return cwd(base) && abs_clean(base, path, out, PATH_MAX);
    }
    char link[64], base[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
    ssize_t n = readlink(link, base, sizeof base - 1);
    if (n <= 0 || base[0] != '/') return false;
    base[n] = 0;
    return abs_clean(base, path, out, PATH_MAX);
}

/* classify decides what an open of abs with flags means; *upath is set for a role. */
static enum role classify(const char *abs, int flags, const char **upath) {
    const char *rel;
    int acc = flags & O_ACCMODE;
    if (flags & O_PATH) return ROLE_NONE;
    if (acc == O_RDONLY && !(flags & (O_DIRECTORY | O_CREAT)) && (rel = under(W.cons, W.cons_len, abs)) &&
        !is_state(rel)) {
        struct stat st;
        if (stat(abs, &st) == 0 && S_ISDIR(st.st_mode)) return ROLE_NONE;
        *upath = rel;
        return ROLE_CONSUME;
    }
    if (acc != O_RDONLY && (rel = under(W.prod, W.prod_len, abs)) && !is_state(rel)) {
        *upath = rel;
        return ROLE_PRODUCE;
    }
    return ROLE_NONE;
}

/* bad_env fails a managed open when the DYAD environment is unusable. */
static int bad_env(const char *abs) {
    dlog("error: %s is under a managed directory but the DYAD environment is unusable (see above)", abs);
    errno = EINVAL;
    return -1;
}

/* consume blocks until abs is staged; 0, or -1 with errno. */
static int consume(const char *abs, const char *upath) {
    if (state != ST_ON) return bad_env(abs);
    depth++;
    dyad_rc_t r = client_consume(&W, abs, upath, NULL);
    int e = rc_errno(r, errno);
    depth--;
    if (r != DYAD_RC_OK) {
        errno = e;
        return -1;
    }
    return 0;
}

/* ---- open family ---- */

static void claim(int fd);

#define NEEDS_MODE(flags) (((flags) & O_CREAT) || ((flags) & __O_TMPFILE) == __O_TMPFILE)

/* managed_open handles an open that may be managed; real_call performs the real open. */
static int managed_open(int dirfd, const char *path, int flags, mode_t mode,
                        int (*real_call)(int, const char *, int, mode_t, const void *), const void *arg) {
    char abs[PATH_MAX];
    const char *upath = NULL;
    enum role role = path && absolute(dirfd, path, abs) ? classify(abs, flags, &upath) : ROLE_NONE;
    if (role == ROLE_NONE || depth) return real_call(dirfd, path, flags, mode, arg);
    if (role == ROLE_CONSUME) {
        debugf(&W, "open %s for reading: consuming", abs);
        if (consume(abs, upath) < 0) return -1;
        return real_call(dirfd, path, flags, mode, arg);
    }
    if (state != ST_ON) return bad_env(abs);
    int fd = real_call(dirfd, path, flags, mode, arg);
    if (fd < 0 && errno == ENOENT && (flags & O_CREAT)) {
        /* C DYAD left missing parent directories to the program; create them. */
        depth++;
        int made = mkdir_parents(abs);
        depth--;
        if (made == 0) fd = real_call(dirfd, path, flags, mode, arg);
    }
    if (fd >= 0) {
        claim(fd);
        track(fd, abs, upath);
    }
    return fd;
}

/* claim marks this process as the writer of fd's open file description (F_SETOWN, a
 * field of the description that plain files otherwise ignore), so that a program this
 * process execs adopts the descriptor, and a forked child's program does not. */
static void claim(int fd) { syscall(SYS_fcntl, fd, F_SETOWN, (long)getpid()); }

static int call_open(int dirfd, const char *path, int flags, mode_t mode, const void *fn) {
    (void)dirfd;
    return fn ? ((open_fn)fn)(path, flags, mode) : raw_openat(AT_FDCWD, path, flags, mode);
}

static int call_openat(int dirfd, const char *path, int flags, mode_t mode, const void *fn) {
    return fn ? ((openat_fn)fn)(dirfd, path, flags, mode) : raw_openat(dirfd, path, flags, mode);
}

static int call_open2(int dirfd, const char *path, int flags, mode_t mode, const void *fn) {
    (void)dirfd, (void)mode;
    return fn ? ((open2_fn)fn)(path, flags) : raw_openat(AT_FDCWD, path, flags, 0);
}

static int call_openat2(int dirfd, const char *path, int flags, mode_t mode, const void *fn) {
    (void)mode;
    return fn ? ((openat2_fn)fn)(dirfd, path, flags) : raw_openat(dirfd, path, flags, 0);
}

static int call_creat(int dirfd, const char *path, int flags, mode_t mode, const void *fn) {
    (void)dirfd, (void)flags;
    return fn ? ((creat_fn)fn)(path, mode) : raw_openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

#define MODE_ARG(flags)                                                                                            \
    mode_t mode = 0;                                                                                               \
    if (NEEDS_MODE(flags)) {                                                                                       \
        va_list ap;                                                                                                \
        va_start(ap, flags);                                                                                       \
        mode = (mode_t)va_arg(ap, int);                                                                            \
        va_end(ap);                                                                                                \
    }

EXPORT int open(const char *path, int flags, ...) {
    MODE_ARG(flags);
    void *fn = REAL(open, "open");
    if (!on()) return call_open(AT_FDCWD, path, flags, mode, fn);
    return managed_open(AT_FDCWD, path, flags, mode, call_open, fn);
}

EXPORT int open64(const char *path, int flags, ...) {
    MODE_ARG(flags);
    void *fn = REAL(open64, "open64");
    if (!on()) return call_open(AT_FDCWD, path, flags, mode, fn);
    return managed_open(AT_FDCWD, path, flags, mode, call_open, fn);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...) {
    MODE_ARG(flags);
    void *fn = REAL(openat, "openat");
    if (!on()) return call_openat(dirfd, path, flags, mode, fn);
    return managed_open(dirfd, path, flags, mode, call_openat, fn);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...) {
    MODE_ARG(flags);
    void *fn = REAL(openat64, "openat64");
    if (!on()) return call_openat(dirfd, path, flags, mode, fn);
    return managed_open(dirfd, path, flags, mode, call_openat, fn);
}

/* The _FORTIFY_SOURCE entry points programs built with it call. */
EXPORT int __open_2(const char *path, int flags) {
    void *fn = REAL(open_2, "__open_2");
    if (!on()) return call_open2(AT_FDCWD, path, flags, 0, fn);
    return managed_open(AT_FDCWD, path, flags, 0, call_open2, fn);
}

EXPORT int __open64_2(const char *path, int flags) {
    void *fn = REAL(open64_2, "__open64_2");
    if (!on()) return call_open2(AT_FDCWD, path, flags, 0, fn);
    return managed_open(AT_FDCWD, path, flags, 0, call_open2, fn);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags) {
    void *fn = REAL(openat_2, "__openat_2");
    if (!on()) return call_openat2(dirfd, path, flags, 0, fn);
    return managed_open(dirfd, path, flags, 0, call_openat2, fn);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags) {
    void *fn = REAL(openat64_2, "__openat64_2");
    if (!on()) return call_openat2(dirfd, path, flags, 0, fn);
    return managed_open(dirfd, path, flags, 0, call_openat2, fn);
}

EXPORT int creat(const char *path, mode_t mode) {
    void *fn = REAL(creat, "creat");
    if (!on()) return call_creat(AT_FDCWD, path, 0, mode, fn);
    return managed_open(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, call_creat, fn);
}

EXPORT int creat64(const char *path, mode_t mode) {
    void *fn = REAL(creat64, "creat64");
    if (!on()) return call_creat(AT_FDCWD, path, 0, mode, fn);
    return managed_open(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, call_creat, fn);
}

/* ---- stdio ---- */

/* fopen_flags maps an fopen mode to the open flags that decide the role. */
static int fopen_flags(const char *mode) {
    int flags;
    switch (mode ? mode[0] : 'r') {
    case 'w': flags = O_WRONLY | O_CREAT | O_TRUNC; break;
    case 'a': flags = O_WRONLY | O_CREAT | O_APPEND; break;
    default: flags = O_RDONLY;
    }
    if (mode && strchr(mode, '+')) flags = (flags & ~O_ACCMODE) | O_RDWR;
    return flags;
}

static FILE *managed_fopen(const char *path, const char *mode, FILE *(*fn)(const char *, const char *),
                           FILE *(*refn)(const char *, const char *, FILE *), FILE *stream) {
    char abs[PATH_MAX];
    const char *upath = NULL;
    int flags = fopen_flags(mode);
    enum role role = path && absolute(AT_FDCWD, path, abs) ? classify(abs, flags, &upath) : ROLE_NONE;
#define CALL() (refn ? refn(path, mode, stream) : fn(path, mode))
    if (role == ROLE_NONE || depth) return CALL();
    if (role == ROLE_CONSUME) {
        debugf(&W, "fopen %s for reading: consuming", abs);
        if (consume(abs, upath) < 0) {
            if (refn) {
                int e = errno;
                REAL(fclose, "fclose")(stream); /* freopen closes the stream even when it fails */
                errno = e;
            }
            return NULL;
        }
        return CALL();
    }
    if (state != ST_ON) {
        bad_env(abs);
        return NULL;
    }
    FILE *f = CALL();
    if (!f && errno == ENOENT && (flags & O_CREAT) && !refn) {
        depth++;
        int made = mkdir_parents(abs);
        depth--;
        if (made == 0) f = CALL();
    }
#undef CALL
    if (f) {
        claim(fileno(f));
        track(fileno(f), abs, upath);
    }
    return f;
}

EXPORT FILE *fopen(const char *path, const char *mode) {
    fopen_fn fn = REAL(fopen, "fopen");
    if (!on()) return fn(path, mode);
    return managed_fopen(path, mode, fn, NULL, NULL);
}

EXPORT FILE *fopen64(const char *path, const char *mode) {
    fopen_fn fn = REAL(fopen64, "fopen64");
    if (!on()) return fn(path, mode);
    return managed_fopen(path, mode, fn, NULL, NULL);
}

/* do_freopen publishes the stream's old file if this was its last descriptor, then
 * reopens it as fopen would open path. A NULL path (a mode change) passes through. */
static FILE *do_freopen(const char *path, const char *mode, FILE *stream, freopen_fn fn) {
    if (!path || depth || !(on() || any_tracked())) return fn(path, mode, stream);
    int oldfd = fileno(stream);
    struct tracked *old = NULL;
    if (get(oldfd)) {
        if (W.fsync_write && last_ref(oldfd)) {
            fflush(stream);
            sync_fd(oldfd);
        }
        old = release(oldfd);
    }
    FILE *f = on() ? managed_fopen(path, mode, NULL, fn, stream) : fn(path, mode, stream);
    if (old) {
        int e = errno;
        publish(old);
        errno = e;
    }
    return f;
}

EXPORT FILE *freopen(const char *path, const char *mode, FILE *stream) {
    return do_freopen(path, mode, stream, REAL(freopen, "freopen"));
}

EXPORT FILE *freopen64(const char *path, const char *mode, FILE *stream) {
    return do_freopen(path, mode, stream, REAL(freopen64, "freopen64"));
}

/* ---- close family ---- */

EXPORT int close(int fd) {
    close_fn fn = REAL(close, "close");
    if (!any_tracked() || !get(fd) || depth) return fn ? fn(fd) : sys_close(fd);
    if (W.fsync_write && last_ref(fd)) sync_fd(fd);
    struct tracked *t = release(fd);
    int rc = fn ? fn(fd) : sys_close(fd);
    if (t && publish(t) < 0) rc = -1; /* the descriptor is closed; errno says why publishing failed */
    return rc;
}

EXPORT int fclose(FILE *f) {
    fclose_fn fn = REAL(fclose, "fclose");
    int fd;
    if (!any_tracked() || !f || depth || !get(fd = fileno(f))) return fn(f);
    if (W.fsync_write && last_ref(fd)) {
        fflush(f);
        sync_fd(fd);
    }
    struct tracked *t = release(fd);
    int rc = fn(f);
    if (t && publish(t) < 0) rc = EOF;
    return rc;
}

EXPORT int dup(int oldfd) {
    int r = REAL(dup, "dup")(oldfd);
    if (r >= 0 && any_tracked() && !depth && get(oldfd)) share(oldfd, r);
    return r;
}

/* redirect is dup2/dup3's bookkeeping: newfd's old file loses a descriptor, and newfd
 * joins oldfd's file. */
static int redirect(int oldfd, int newfd, int r) {
    if (r < 0 || oldfd == newfd) return r;
    pthread_mutex_lock(&tmu);
    struct tracked *gone = take(newfd);
    bool last = gone && --gone->refs == 0;
    struct tracked *t = get(oldfd);
    if (t && put(newfd, t)) t->refs++;
    pthread_mutex_unlock(&tmu);
    /* The descriptor did move: a failed publish is logged, not reported as a failed
     * dup2, which a shell undoing a redirection could not recover from. */
    if (last) publish(gone);
    return r;
}

EXPORT int dup2(int oldfd, int newfd) {
    dup2_fn fn = REAL(dup2, "dup2");
    if (!any_tracked() || depth) return fn(oldfd, newfd);
    if (oldfd != newfd && W.fsync_write && last_ref(newfd)) sync_fd(newfd);
    return redirect(oldfd, newfd, fn(oldfd, newfd));
}

EXPORT int dup3(int oldfd, int newfd, int flags) {
    dup3_fn fn = REAL(dup3, "dup3");
    if (!any_tracked() || depth) return fn(oldfd, newfd, flags);
    if (oldfd != newfd && W.fsync_write && last_ref(newfd)) sync_fd(newfd);
    return redirect(oldfd, newfd, fn(oldfd, newfd, flags));
}

static int do_fcntl(fcntl_fn fn, int fd, int cmd, void *arg) {
    int r = fn(fd, cmd, arg);
    if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && r >= 0 && any_tracked() && !depth && get(fd)) share(fd, r);
    return r;
}

EXPORT int fcntl(int fd, int cmd, ...) {
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    return do_fcntl(REAL(fcntl, "fcntl"), fd, cmd, arg);
}

EXPORT int fcntl64(int fd, int cmd, ...) {
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    fcntl_fn fn = REAL(fcntl64, "fcntl64");
    return do_fcntl(fn ? fn : REAL(fcntl, "fcntl"), fd, cmd, arg);
}

/* ---- working directory ---- */

typedef int (*chdir_fn)(const char *);
typedef int (*fchdir_fn)(int);
static chdir_fn real_chdir;
static fchdir_fn real_fchdir;

EXPORT int chdir(const char *path) {
    if (!real_chdir) real_chdir = (chdir_fn)next("chdir");
    int r = real_chdir ? real_chdir(path) : (int)syscall(SYS_chdir, path);
    if (r == 0) cwd_changed();
    return r;
}

EXPORT int fchdir(int fd) {
    if (!real_fchdir) real_fchdir = (fchdir_fn)next("fchdir");
    int r = real_fchdir ? real_fchdir(fd) : (int)syscall(SYS_fchdir, fd);
    if (r == 0) cwd_changed();
    return r;
}

/* ---- process lifetime ---- */

static void atfork_prepare(void) {
    pthread_mutex_lock(&cwd_mu);
    pthread_mutex_lock(&tmu);
}

static void atfork_parent(void) {
    pthread_mutex_unlock(&tmu);
    pthread_mutex_unlock(&cwd_mu);
}

/* In the child every tracked file is the parent's too: the child never publishes it. */
static void atfork_child(void) {
    for (int c = 0; c < NCHUNKS; c++)
        if (chunks[c])
            for (int i = 0; i < CHUNK; i++)
                if (chunks[c][i]) chunks[c][i]->inherited = true;
    pthread_mutex_unlock(&tmu);
    pthread_mutex_unlock(&cwd_mu);
}

/* adopt_open_fds tracks the descriptors this program was started with that are open for
 * writing on files under the producer directory (a shell's `cmd > file` set up before
 * exec): descriptors of the same file share one entry. */
static void adopt_open_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    if (!d) return;
    int self = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        if (*end || end == e->d_name || fd == self) continue;
        int fl = (int)syscall(SYS_fcntl, (int)fd, F_GETFL);
        if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) continue;
        /* Only what this process opened before its exec: not what a parent still writes. */
        if (syscall(SYS_fcntl, (int)fd, F_GETOWN) != getpid()) continue;
        char link[64], target[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%ld", fd);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0) continue;
        target[n] = 0;
        const char *rel = under(W.prod, W.prod_len, target);
        if (!rel || is_state(rel)) continue;
        struct tracked *same = NULL;
        for (int c = 0; c < NCHUNKS && !same; c++)
            if (chunks[c])
                for (int i = 0; i < CHUNK && !same; i++)
                    if (chunks[c][i] && !strcmp(chunks[c][i]->path, target)) same = chunks[c][i];
        if (same) {
            pthread_mutex_lock(&tmu);
            if (put((int)fd, same)) same->refs++;
            pthread_mutex_unlock(&tmu);
        } else {
            track((int)fd, target, target + (rel - target));
        }
    }
    closedir(d);
}

/* preloaded says whether interception is wanted: the library is in LD_PRELOAD (a program
 * linked with it for the C API keeps its own opens), or COUPLET_DYAD_INTERCEPT=1. */
static bool preloaded(void) {
    const char *force = getenv("COUPLET_DYAD_INTERCEPT");
    if (force && *force) return strcmp(force, "0") != 0;
    const char *pre = getenv("LD_PRELOAD");
    Dl_info info;
    if (!pre || !dladdr((void *)&preloaded, &info) || !info.dli_fname) return false;
    const char *base = strrchr(info.dli_fname, '/');
    return strstr(pre, base ? base + 1 : info.dli_fname) != NULL;
}

static void init(void) {
    depth++;
    resolve_all();
    const char *p = getenv("DYAD_PATH_PRODUCER"), *c = getenv("DYAD_PATH_CONSUMER");
    int s = ST_OFF;
    if (((p && *p) || (c && *c)) && preloaded()) {
        if (ctx_from_env(&W) == DYAD_RC_OK) {
            s = ST_ON;
        } else {
            /* Keep the directories so that their opens fail clearly instead of passing. */
            ctx_set_dir(&W.prod, &W.prod_len, p);
            ctx_set_dir(&W.cons, &W.cons_len, c);
            s = ST_BADENV;
        }
        pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    }
    __atomic_store_n(&state, s, __ATOMIC_RELEASE);
    if (s != ST_OFF && W.prod) adopt_open_fds();
    depth--;
}

__attribute__((constructor)) static void wrap_init(void) { pthread_once(&once, init); }

/* wrap_fini publishes what the program never closed: stdio is flushed first, since
 * exit flushes it only after the libraries' destructors. */
__attribute__((destructor)) static void wrap_fini(void) {
    if (!any_tracked()) return;
    fflush(NULL);
    for (int c = 0; c < NCHUNKS; c++) {
        if (!chunks[c]) continue;
        for (int i = 0; i < CHUNK; i++) {
            int fd = c * CHUNK + i;
            if (!get(fd)) continue;
            if (W.fsync_write && last_ref(fd)) sync_fd(fd);
            struct tracked *t = release(fd);
            if (t) publish(t);
        }
    }
}
