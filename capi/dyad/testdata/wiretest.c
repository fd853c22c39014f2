/* wiretest exercises the library's internals line by line on stdin for the Go tests:
 *   encode: "op<TAB>ns<TAB>key<TAB>path<TAB>dest<TAB>dtl<TAB>minv<TAB>tmo<TAB>wait[<TAB>k<TAB>p<TAB>o<TAB>n<TAB>s<TAB>v<TAB>c<TAB>t]"
 *           -> the msgpack body in hex
 *   decode: a reply body in hex -> "ok op=.. found=.. err=.. meta=k|p|o|n|s|v|c|t" or "bad WHY"
 *   key:    "depth<TAB>bins<TAB>upath" -> the key
 *   crc:    data in hex -> its CRC-32C in hex
 *   socket: "dir" -> the agent socket for that managed directory
 *   clean:  "base<TAB>path" -> the lexical absolute clean (base "-" = working directory) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/internal.h"

static size_t unhex(const char *s, uint8_t *out, size_t cap) {
    size_t n = 0;
    for (; s[0] && s[1] && n < cap; s += 2) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1) break;
        out[n++] = (uint8_t)v;
    }
    return n;
}

static char *field(char **p) {
    char *s = *p;
    if (!s) return "";
    char *t = strchr(s, '\t');
    if (t) {
        *t = 0;
        *p = t + 1;
    } else {
        *p = NULL;
    }
    return s;
}

/* nz prints a decoded string on one line: NULL as <nil>, line breaks as '?'. */
static const char *nz(char *s) {
    if (!s) return "<nil>";
    for (char *p = s; *p; p++)
        if (*p == '\n' || *p == '\r') *p = '?';
    return s;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    const char *mode = argv[1];
    static char line[1 << 20];
    static uint8_t buf[1 << 19];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        char *p = line;
        if (!strcmp(mode, "encode")) {
            wreq q = {0};
            wmeta m = {0};
            q.op = atoi(field(&p));
            q.ns = field(&p), q.key = field(&p), q.path = field(&p), q.dest = field(&p), q.dtl = field(&p);
            q.min_version = atoll(field(&p)), q.timeout_ms = atoll(field(&p)), q.wait_ms = atoll(field(&p));
            if (p) {
                m.key = field(&p), m.path = field(&p), m.owner = field(&p), m.node = field(&p);
                m.size = atoll(field(&p)), m.version = atoll(field(&p));
                m.checksum = (uint32_t)strtoul(field(&p), NULL, 10), m.mtime_ns = atoll(field(&p));
                q.meta = &m;
            }
            mp_buf w = {buf, 0, WIRE_MAX_FRAME, false};
            wire_encode_req(&w, &q);
            if (w.err) {
                puts("overflow");
                continue;
            }
            for (size_t i = 0; i < w.len; i++) printf("%02x", buf[i]);
            putchar('\n');
        } else if (!strcmp(mode, "decode")) {
            size_t n = unhex(p, buf, sizeof buf);
            wrep r;
            char why[128];
            if (!wire_decode_rep(buf, n, &r, why, sizeof why)) {
                printf("bad %s\n", why);
                continue;
            }
            printf("ok op=%d found=%d err=%s", r.op, r.found, nz(r.err));
            if (r.has_meta)
                printf(" meta=%s|%s|%s|%s|%lld|%lld|%u|%lld", nz(r.meta.key), nz(r.meta.path), nz(r.meta.owner),
                       nz(r.meta.node), (long long)r.meta.size, (long long)r.meta.version, r.meta.checksum,
                       (long long)r.meta.mtime_ns);
            putchar('\n');
            wrep_free(&r);
        } else if (!strcmp(mode, "key")) {
            unsigned depth = (unsigned)atoi(field(&p)), bins = (unsigned)atoi(field(&p));
            char *k = path_key(field(&p), depth, bins);
            puts(k);
            free(k);
        } else if (!strcmp(mode, "crc")) {
            size_t n = unhex(p, buf, sizeof buf);
            printf("%08x\n", crc32c_update(0, buf, n));
        } else if (!strcmp(mode, "socket")) {
            struct dyad_ctx c = {0};
            char *s = agent_socket_for(&c, p);
            puts(s ? s : "<nil>");
            free(s);
        } else if (!strcmp(mode, "clean")) {
            char *base = field(&p), *path = field(&p), out[4096];
            if (abs_clean(strcmp(base, "-") ? base : NULL, path, out, sizeof out))
                puts(out);
            else
                puts("<too long>");
        } else {
            return 2;
        }
        fflush(stdout);
    }
    return 0;
}
