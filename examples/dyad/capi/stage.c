/* stage: a C program written against DYAD's client API, unchanged from C DYAD's.
 *
 *   stage produce FILE TEXT     write TEXT to FILE (under DYAD_PATH_PRODUCER), publish it
 *   stage consume FILE          wait for FILE (under DYAD_PATH_CONSUMER), print it
 *   stage consume-meta FILE     the same through dyad_get_metadata + dyad_consume_w_metadata
 *   stage peek FILE             dyad_get_metadata without waiting: prints the return code
 *
 * Build: cc -Icapi/dyad/include stage.c -Lbin -lcouplet-dyad */
#include <dyad/client/dyad_client.h>
#include <dyad/common/dyad_rc.h>
#include <dyad/core/dyad_ctx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int print_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 1;
    }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, stdout);
    fclose(f);
    return 0;
}

static int check(dyad_rc_t rc, const char *what) {
    if (DYAD_IS_ERROR(rc)) {
        fprintf(stderr, "%s: rc %d (%s): %s\n", what, (int)rc, couplet_dyad_strerror(rc), couplet_dyad_last_error());
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: stage produce FILE TEXT | consume FILE | consume-meta FILE | peek FILE\n");
        return 2;
    }
    const char *mode = argv[1], *path = argv[2];
    dyad_rc_t rc;
    if (!strcmp(mode, "produce")) {
        if (argc != 4) return 2;
        /* dyad_init with every argument, as a code that does not use the environment. */
        rc = dyad_init(false, false, false, false, false, true, 3, 1024, 1, getenv("DYAD_KVS_NAMESPACE"),
                       getenv("DYAD_PATH_PRODUCER"), NULL, false, "FLUX_RPC", DYAD_COMM_SEND, NULL);
        if (check(rc, "dyad_init")) return 1;
        FILE *f = fopen(path, "w");
        if (!f) {
            perror(path);
            return 1;
        }
        fputs(argv[3], f);
        fclose(f);
        if (check(dyad_produce(dyad_ctx_get(), path), "dyad_produce")) return 1;
        dyad_finalize();
        return 0;
    }
    dyad_ctx_init(DYAD_COMM_RECV, NULL); /* from the DYAD_* environment */
    dyad_ctx_t *ctx = dyad_ctx_get();
    if (!ctx) {
        fprintf(stderr, "no DYAD context: %s\n", couplet_dyad_last_error());
        return 1;
    }
    int ret = 0;
    if (!strcmp(mode, "consume")) {
        ret = check(dyad_consume(ctx, path), "dyad_consume") || print_file(path);
    } else if (!strcmp(mode, "consume-meta")) {
        dyad_metadata_t *md = NULL;
        if (check(dyad_get_metadata(ctx, path, true, &md), "dyad_get_metadata")) return 1;
        printf("fpath=%s\n", md->fpath);
        ret = check(dyad_consume_w_metadata(ctx, path, md), "dyad_consume_w_metadata") || print_file(path);
        dyad_free_metadata(&md);
        if (md != NULL) ret = 1;
    } else if (!strcmp(mode, "peek")) {
        dyad_metadata_t *md = NULL;
        rc = dyad_get_metadata(ctx, path, false, &md);
        printf("rc=%d\n", (int)rc);
        if (md) dyad_free_metadata(&md);
    } else {
        ret = 2;
    }
    dyad_ctx_fini();
    return ret;
}
