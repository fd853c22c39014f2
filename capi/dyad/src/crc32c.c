/* CRC-32C (Castagnoli), the checksum the agent verifies staged files with: the
 * SSE4.2 instruction where the CPU has it, else slicing by 8. */
#include <string.h>

#include "internal.h"

static uint32_t tab[8][256];
static bool have_hw;

__attribute__((constructor)) static void crc_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
        tab[0][i] = c;
    }
    for (int t = 1; t < 8; t++)
        for (int i = 0; i < 256; i++) tab[t][i] = (tab[t - 1][i] >> 8) ^ tab[0][tab[t - 1][i] & 0xff];
#if defined(__x86_64__)
    __builtin_cpu_init();
    have_hw = __builtin_cpu_supports("sse4.2");
#endif
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t n) {
    uint64_t c = crc;
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
        p += 8, n -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
    return c32;
}
#endif

static uint32_t crc_sw(uint32_t c, const uint8_t *p, size_t n) {
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        v ^= c;
        c = tab[7][v & 0xff] ^ tab[6][(v >> 8) & 0xff] ^ tab[5][(v >> 16) & 0xff] ^ tab[4][(v >> 24) & 0xff] ^
            tab[3][(v >> 32) & 0xff] ^ tab[2][(v >> 40) & 0xff] ^ tab[1][(v >> 48) & 0xff] ^ tab[0][v >> 56];
        p += 8, n -= 8;
    }
    while (n--) c = tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return c;
}

/* crc32c_update continues crc (0 to start) over p[0:n], like Go's crc32.Update. */
uint32_t crc32c_update(uint32_t crc, const void *p, size_t n) {
    uint32_t c = ~crc;
#if defined(__x86_64__)
    if (have_hw) return ~crc_hw(c, p, n);
#endif
    return ~crc_sw(c, p, n);
}
