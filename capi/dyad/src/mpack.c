/* The msgpack subset the staging protocol needs: maps, strings, integers and
 * booleans to write; those plus nil to read; and a bounded skip over anything. */
#include <string.h>

#include "internal.h"

static void put(mp_buf *w, const void *p, size_t n) {
    if (w->err || n > w->cap - w->len) {
        w->err = true;
        return;
    }
    memcpy(w->b + w->len, p, n);
    w->len += n;
}

static void put1(mp_buf *w, uint8_t c) { put(w, &c, 1); }

static void putbe(mp_buf *w, uint8_t code, uint64_t v, int bytes) {
    uint8_t b[9];
    b[0] = code;
    for (int i = 0; i < bytes; i++) b[1 + i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    put(w, b, 1 + (size_t)bytes);
}

void mp_map(mp_buf *w, uint32_t n) {
    if (n < 16)
        put1(w, (uint8_t)(0x80 | n));
    else if (n <= 0xffff)
        putbe(w, 0xde, n, 2);
    else
        putbe(w, 0xdf, n, 4);
}

void mp_strn(mp_buf *w, const char *s, size_t n) {
    if (n < 32)
        put1(w, (uint8_t)(0xa0 | n));
    else if (n <= 0xff)
        putbe(w, 0xd9, n, 1);
    else if (n <= 0xffff)
        putbe(w, 0xda, n, 2);
    else if (n <= 0xffffffffu)
        putbe(w, 0xdb, n, 4);
    else {
        w->err = true;
        return;
    }
    put(w, s, n);
}

void mp_str(mp_buf *w, const char *s) { mp_strn(w, s ? s : "", s ? strlen(s) : 0); }

void mp_uint(mp_buf *w, uint64_t u) {
    if (u < 128)
        put1(w, (uint8_t)u);
    else if (u <= 0xff)
        putbe(w, 0xcc, u, 1);
    else if (u <= 0xffff)
        putbe(w, 0xcd, u, 2);
    else if (u <= 0xffffffffu)
        putbe(w, 0xce, u, 4);
    else
        putbe(w, 0xcf, u, 8);
}

void mp_int(mp_buf *w, int64_t i) {
    if (i >= 0)
        mp_uint(w, (uint64_t)i);
    else if (i >= -32)
        put1(w, (uint8_t)(int8_t)i);
    else if (i >= INT8_MIN)
        putbe(w, 0xd0, (uint8_t)(int8_t)i, 1);
    else if (i >= INT16_MIN)
        putbe(w, 0xd1, (uint16_t)(int16_t)i, 2);
    else if (i >= INT32_MIN)
        putbe(w, 0xd2, (uint32_t)(int32_t)i, 4);
    else
        putbe(w, 0xd3, (uint64_t)i, 8);
}

void mp_bool(mp_buf *w, bool v) { put1(w, v ? 0xc3 : 0xc2); }

/* ---- reading ---- */

static bool bad(mp_rd *r) {
    r->err = true;
    return false;
}

static bool need(mp_rd *r, size_t n) {
    if (r->err || (size_t)(r->end - r->p) < n) return bad(r);
    return true;
}

static uint64_t getbe(mp_rd *r, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = v << 8 | r->p[i];
    r->p += bytes;
    return v;
}

bool mp_read_map(mp_rd *r, uint32_t *n) {
    if (!need(r, 1)) return false;
    uint8_t c = *r->p;
    if ((c & 0xf0) == 0x80) {
        r->p++;
        *n = c & 0x0f;
    } else if (c == 0xde && need(r, 3)) {
        r->p++;
        *n = (uint32_t)getbe(r, 2);
    } else if (c == 0xdf && need(r, 5)) {
        r->p++;
        *n = (uint32_t)getbe(r, 4);
    } else
        return bad(r);
    /* every entry takes at least two bytes */
    if (*n > (size_t)(r->end - r->p) / 2) return bad(r);
    return true;
}

bool mp_read_str(mp_rd *r, const char **s, uint32_t *n) {
    if (!need(r, 1)) return false;
    uint8_t c = *r->p;
    uint64_t len;
    if ((c & 0xe0) == 0xa0) {
        r->p++;
        len = c & 0x1f;
    } else if (c == 0xd9 && need(r, 2)) {
        r->p++;
        len = getbe(r, 1);
    } else if (c == 0xda && need(r, 3)) {
        r->p++;
        len = getbe(r, 2);
    } else if (c == 0xdb && need(r, 5)) {
        r->p++;
        len = getbe(r, 4);
    } else
        return bad(r);
    if (!need(r, len)) return false;
    *s = (const char *)r->p;
    *n = (uint32_t)len;
    r->p += len;
    return true;
}

bool mp_read_int(mp_rd *r, int64_t *v) {
    if (!need(r, 1)) return false;
    uint8_t c = *r->p;
    if (c < 0x80 || c >= 0xe0) {
        r->p++;
        *v = (int8_t)c;
        if (c < 0x80) *v = c;
        return true;
    }
    static const int widths[] = {1, 2, 4, 8};
    if (c >= 0xcc && c <= 0xcf) {
        int k = widths[c - 0xcc];
        if (!need(r, 1 + (size_t)k)) return false;
        r->p++;
        uint64_t u = getbe(r, k);
        if (u > INT64_MAX) return bad(r);
        *v = (int64_t)u;
        return true;
    }
    if (c >= 0xd0 && c <= 0xd3) {
        int k = widths[c - 0xd0];
        if (!need(r, 1 + (size_t)k)) return false;
        r->p++;
        uint64_t u = getbe(r, k);
        switch (k) {
        case 1: *v = (int8_t)u; break;
        case 2: *v = (int16_t)u; break;
        case 4: *v = (int32_t)u; break;
        default: *v = (int64_t)u;
        }
        return true;
    }
    return bad(r);
}

bool mp_read_bool(mp_rd *r, bool *v) {
    if (!need(r, 1)) return false;
    if (*r->p != 0xc2 && *r->p != 0xc3) return bad(r);
    *v = *r->p++ == 0xc3;
    return true;
}

bool mp_is_nil(mp_rd *r) {
    if (!r->err && r->p < r->end && *r->p == 0xc0) {
        r->p++;
        return true;
    }
    return false;
}

/* skip1 skips one item of any type; containers are bounded in depth. */
static bool skip1(mp_rd *r, int depth) {
    if (depth > 32) return bad(r);
    if (!need(r, 1)) return false;
    uint8_t c = *r->p;
    uint64_t n = 0;
    size_t items = 0, raw = 0;
    if (c < 0x80 || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3) {
        r->p++;
        return true;
    }
    if ((c & 0xf0) == 0x80 || (c & 0xf0) == 0x90) {
        r->p++;
        items = (size_t)(c & 0x0f) * ((c & 0xf0) == 0x80 ? 2 : 1);
    } else if ((c & 0xe0) == 0xa0) {
        r->p++;
        raw = c & 0x1f;
    } else {
        int k;
        switch (c) {
        case 0xcc: case 0xd0: raw = 1; k = 0; break;
        case 0xcd: case 0xd1: raw = 2; k = 0; break;
        case 0xca: case 0xce: case 0xd2: raw = 4; k = 0; break;
        case 0xcb: case 0xcf: case 0xd3: raw = 8; k = 0; break;
        case 0xd4: raw = 2; k = 0; break;  /* fixext 1: type + 1 */
        case 0xd5: raw = 3; k = 0; break;
        case 0xd6: raw = 5; k = 0; break;
        case 0xd7: raw = 9; k = 0; break;
        case 0xd8: raw = 17; k = 0; break;
        case 0xc4: case 0xd9: k = 1; break;
        case 0xc5: case 0xda: k = 2; break;
        case 0xc6: case 0xdb: k = 4; break;
        case 0xc7: k = 1; raw = 1; break; /* ext 8: length, type, data */
        case 0xc8: k = 2; raw = 1; break;
        case 0xc9: k = 4; raw = 1; break;
        case 0xdc: case 0xde: k = 2; break;
        case 0xdd: case 0xdf: k = 4; break;
        default: return bad(r);
        }
        r->p++;
        if (k > 0) {
            if (!need(r, (size_t)k)) return false;
            n = getbe(r, k);
            if (c == 0xdc || c == 0xdd)
                items = (size_t)n;
            else if (c == 0xde || c == 0xdf)
                items = (size_t)n * 2;
            else
                raw += (size_t)n;
        }
    }
    if (!need(r, raw)) return false;
    r->p += raw;
    if (items > (size_t)(r->end - r->p)) return bad(r);
    for (size_t i = 0; i < items; i++)
        if (!skip1(r, depth + 1)) return false;
    return true;
}

bool mp_skip(mp_rd *r) { return skip1(r, 0); }
