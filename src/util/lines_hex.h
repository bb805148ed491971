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
#include "util/input.h"

/* digit value + 1 of c, 0 when c is not a hexadecimal digit */
extern const unsigned char tz_hexval1[256];

static inline int tz_lines_hex_fast(tz_lines *lr, uint64_t *out)
{
    const unsigned char *s = (const unsigned char *)lr->buf + lr->start;
    const unsigned char *end = (const unsigned char *)lr->buf + lr->end, *p = s;
    if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    if (end - p >= 9 && p[8] == '\n') { /* the common case: 8 digits, unrolled */
        const unsigned char *t = tz_hexval1;
        unsigned h0 = t[p[0]] - 1u, h1 = t[p[1]] - 1u, h2 = t[p[2]] - 1u, h3 = t[p[3]] - 1u;
        unsigned h4 = t[p[4]] - 1u, h5 = t[p[5]] - 1u, h6 = t[p[6]] - 1u, h7 = t[p[7]] - 1u;
        if ((h0 | h1 | h2 | h3 | h4 | h5 | h6 | h7) < 16u) {
            size_t n = (size_t)(p - s) + 9;
            lr->start += n;
            lr->lineno++;
            lr->offset = lr->next_off;
            lr->next_off += n;
            *out = (uint64_t)(h0 << 28 | h1 << 24 | h2 << 20 | h3 << 16 | h4 << 12 | h5 << 8 | h6 << 4 | h7);
            return 1;
        }
    }
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
