/* openclose times open(O_RDONLY) + close of a file, by absolute and by relative path,
 * and prints the nanoseconds of CPU time (user + system, so that a crowded machine's
 * waits for a core do not count) per pair: "ABS REL". Case 7 of the bench runs it with and
 * without libcouplet-dyad.so preloaded, on a file outside the managed directories.
 *
 *   openclose DIR ITERS */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double pairs(const char *path, long iters) {
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        int fd = open(path, O_RDONLY);
        if (fd < 0 || close(fd) < 0) {
            perror(path);
            exit(1);
        }
    }
    return (now_ns() - t0) / (double)iters;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: openclose DIR ITERS\n");
        return 2;
    }
    long iters = atol(argv[2]);
    if (chdir(argv[1]) < 0) {
        perror(argv[1]);
        return 1;
    }
    char abs[4096];
    snprintf(abs, sizeof abs, "%s/f", argv[1]);
    int fd = open(abs, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || close(fd) < 0) {
        perror(abs);
        return 1;
    }
    pairs(abs, iters / 10 + 1); /* warm up */
    double a = pairs(abs, iters);
    double r = pairs("f", iters);
    printf("%.1f %.1f\n", a, r);
    return 0;
}
