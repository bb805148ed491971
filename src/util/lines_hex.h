/* A fast path for line-oriented lists of hexadecimal numbers (internal).
 * tz_lines_hex_fast() looks at the next line already in the tz_lines buffer: when it
 * is exactly an optional 0x/0X prefix and 1 to 16 hexadecimal digits followed by
 * '\n', it consumes the line (lineno and offsets advance as tz_lines_next would
 * advance them), stores its value and returns 1. Otherwise (anything else on the
 * line, '\r', no complete line buffered) it consumes nothing and returns 0: the
 * caller reads the line with tz_lines_next and parses it the general way. */
#ifndef TZ_UTIL_LINES_HEX_H
#define TZ_UTIL_LINES_HEX_H

#include <stdint.h>
#include <string.h>
#include "util/input.h"

/* digit value + 1 of c, 0 when c is not a hexadecimal digit */
extern const unsigned char tz_hexval1[256];

static inline int tz_lines_hex_fast(tz_lines *lr, uint64_t *out)
{
    const unsigned char *s = (const unsigned char *)lr->buf + lr->start;
    const unsigned char *end = (const unsigned char *)lr->buf + lr->end, *p = s;
    if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (end - p >= 9 && p[8] == '\n') { /* the common case: 8 digits, as one word */
        uint64_t w;
        memcpy(&w, p, 8); /* byte k = p[k], the most significant digit in byte 0 */
        const uint64_t H = 0x8080808080808080ULL, L4 = 0x0F0F0F0F0F0F0F0FULL;
        uint64_t lo = w | 0x2020202020202020ULL;
        /* per byte x < 0x80: bit 7 of x + (0x80 - a) is x >= a, of x + (0x7F - b) is x > b */
        uint64_t dig = (w + 0x5050505050505050ULL) & ~(w + 0x4646464646464646ULL) & H; /* '0'..'9' */
        uint64_t let = (lo + 0x1F1F1F1F1F1F1F1FULL) & ~(lo + 0x1919191919191919ULL) & H; /* a..f, A..F */
        if (!(w & H) && (dig | let) == H) {
            uint64_t v = (w & L4) + (let >> 7) * 9; /* digit values, one per byte */
            v = (v & 0x000F000F000F000FULL) << 4 | (v & 0x0F000F000F000F00ULL) >> 8;
            v = (v & 0x000000FF000000FFULL) << 8 | (v & 0x00FF000000FF0000ULL) >> 16;
            v = (v & 0xFFFF) << 16 | (v >> 32 & 0xFFFF);
            size_t n = (size_t)(p - s) + 9;
            lr->start += n;
            lr->lineno++;
            lr->offset = lr->next_off;
            lr->next_off += n;
            *out = v;
            return 1;
        }
    }
#endif
    const unsigned char *d = p;
    uint64_t v = 0;
    unsigned h;
    while (p < end && (h = tz_hexval1[*p]) != 0) {
        v = v << 4 | (h - 1);
        p++;
    }
    if (p == end || *p != '\n' || p == d || p - d > 16)
        return 0;
    size_t n = (size_t)(p - s) + 1;
    lr->start += n;
    lr->lineno++;
    lr->offset = lr->next_off;
    lr->next_off += n;
    *out = v;
    return 1;
}

#endif
