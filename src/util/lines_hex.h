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
#include "util/hex8.h"
#include "util/input.h"

/* digit value + 1 of c, 0 when c is not a hexadecimal digit */
extern const unsigned char tz_hexval1[256];

/* Consumes the next n buffered bytes as one line, as tz_lines_next would. */
static inline void lines_take(tz_lines *lr, size_t n)
{
    lr->start += n;
    lr->lineno++;
    lr->offset = lr->next_off;
    lr->next_off += n;
}

static inline int tz_lines_hex_fast(tz_lines *lr, uint64_t *out)
{
    const unsigned char *s = (const unsigned char *)lr->buf + lr->start;
    const unsigned char *end = (const unsigned char *)lr->buf + lr->end, *p = s;
    if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
#ifdef TZ_HAVE_HEX8_WORD
    uint32_t v8;
    if (end - p >= 9 && p[8] == '\n' && tz_hex8_word(p, 1, &v8) == 0) { /* the common case */
        lines_take(lr, (size_t)(p - s) + 9);
        *out = v8;
        return 1;
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
    lines_take(lr, (size_t)(p - s) + 1);
    *out = v;
    return 1;
}

#endif
