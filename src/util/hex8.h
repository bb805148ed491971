/* Eight hexadecimal digits converted as one 64-bit word (SWAR), shared by the PC-list
 * fast path (lines_hex.h) and the ITF line parser (itf_common.c). Little-endian only:
 * callers keep a per-byte path for other machines. */
#ifndef TZ_UTIL_HEX8_H
#define TZ_UTIL_HEX8_H

#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TZ_HAVE_HEX8_WORD 1
/* s[0..8) as digits, most significant first; upper: 'A'..'F' accepted too (else only
 * lower case, for parsers that must give the text back byte for byte). Returns 0 with
 * *v set, or -1 when a byte is not such a digit. */
static inline int tz_hex8_word(const void *s, int upper, uint32_t *v)
{
    uint64_t w;
    memcpy(&w, s, 8); /* byte k = s[k] */
    const uint64_t H = 0x8080808080808080ULL, L4 = 0x0F0F0F0F0F0F0F0FULL;
    uint64_t lo = upper ? w | 0x2020202020202020ULL : w;
    /* per byte x < 0x80: bit 7 of x + (0x80 - a) is x >= a, of x + (0x7F - b) is x > b */
    uint64_t dig = (w + 0x5050505050505050ULL) & ~(w + 0x4646464646464646ULL) & H;   /* '0'..'9' */
    uint64_t let = (lo + 0x1F1F1F1F1F1F1F1FULL) & ~(lo + 0x1919191919191919ULL) & H; /* 'a'..'f' */
    if ((w & H) || (dig | let) != H)
        return -1;
    uint64_t x = (w & L4) + (let >> 7) * 9; /* digit values, one per byte */
    x = (x & 0x000F000F000F000FULL) << 4 | (x & 0x0F000F000F000F00ULL) >> 8;
    x = (x & 0x000000FF000000FFULL) << 8 | (x & 0x00FF000000FF0000ULL) >> 16;
    *v = (uint32_t)((x & 0xFFFF) << 16 | (x >> 32 & 0xFFFF));
    return 0;
}
#endif

#endif
