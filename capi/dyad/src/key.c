/* The metadata key, bit-exact with C DYAD's gen_path_key, and the hashes it needs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t fmix64(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

static inline uint64_t le64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8); /* x86_64 and every little-endian host */
    return v;
}

/* The body (16-byte blocks) and the finalisation are MurmurHash3_x64_128's. C DYAD's
 * tail switch ends each case with a break instead of falling through, so of the
 * len % 16 trailing bytes only two cases mix anything: one byte mixes tail[0] into h1
 * (as the textbook does), nine bytes mix only tail[8] into h2; every other remainder
 * adds nothing. */
void dyad_murmur3_128(const void *key, size_t len, uint32_t seed, uint64_t out[2]) {
    const uint8_t *data = key;
    const size_t nblocks = len / 16;
    const uint64_t c1 = 0x87c37b91114253d5ULL, c2 = 0x4cf5ad432745937fULL;
    uint64_t h1 = seed, h2 = seed;
    for (size_t i = 0; i < nblocks; i++) {
        uint64_t k1 = le64(data + 16 * i), k2 = le64(data + 16 * i + 8);
        k1 *= c1, k1 = rotl64(k1, 31), k1 *= c2, h1 ^= k1;
        h1 = rotl64(h1, 27), h1 += h2, h1 = h1 * 5 + 0x52dce729;
        k2 *= c2, k2 = rotl64(k2, 33), k2 *= c1, h2 ^= k2;
        h2 = rotl64(h2, 31), h2 += h1, h2 = h2 * 5 + 0x38495ab5;
    }
    const uint8_t *tail = data + nblocks * 16;
    switch (len & 15) {
    case 9: {
        uint64_t k2 = (uint64_t)tail[8];
        k2 *= c2, k2 = rotl64(k2, 33), k2 *= c1, h2 ^= k2;
        break;
    }
    case 1: {
        uint64_t k1 = (uint64_t)tail[0];
        k1 *= c1, k1 = rotl64(k1, 31), k1 *= c2, h1 ^= k1;
        break;
    }
    default:
        break;
    }
    h1 ^= (uint64_t)len, h2 ^= (uint64_t)len;
    h1 += h2, h2 += h1;
    h1 = fmix64(h1), h2 = fmix64(h2);
    h1 += h2, h2 += h1;
    out[0] = h1, out[1] = h2;
}

static const uint32_t key_seeds[10] = {104677, 104681, 104683, 104693, 104701,
                                       104707, 104711, 104717, 104723, 104729};

#define KEY_PAD 128

char *path_key(const char *upath, unsigned depth, unsigned bins) {
    size_t n = strlen(upath);
    size_t plen = n < KEY_PAD ? KEY_PAD : n;
    char *padded = malloc(plen);
    char *out = malloc((size_t)depth * 9 + n + 1);
    if (!padded || !out) {
        free(padded);
        free(out);
        return NULL;
    }
    memcpy(padded, upath, n);
    memset(padded + n, '@', plen - n);
    size_t o = 0;
    uint32_t seed = 57;
    for (unsigned d = 0; d < depth; d++) {
        uint64_t h[2];
        seed += key_seeds[d % 10];
        dyad_murmur3_128(padded, plen, seed, h);
        uint32_t bin = (uint32_t)h[0] ^ (uint32_t)(h[0] >> 32) ^ (uint32_t)h[1] ^ (uint32_t)(h[1] >> 32);
        if (bins > 0) bin %= bins;
        o += (size_t)sprintf(out + o, "%x.", bin);
    }
    memcpy(out + o, upath, n + 1);
    free(padded);
    return out;
}

uint64_t fnv1a64(const void *p, size_t n) {
    const uint8_t *b = p;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}
