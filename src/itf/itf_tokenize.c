/* The generic line tokenizer of the line model: a line becomes its skeleton (literal
 * bytes with 0x01 KIND WIDTH placeholders; a literal 0x01 is 0x01 0x00) and its
 * numbers. It reads every byte of a Tarmac trace: 15 % of a compression.
 *
 * Most bytes are literal, and a byte can start a number only where it is a hex digit
 * after a byte that is not a letter or digit, or after an 'x' (of "0x"), and a 0x01
 * byte needs escaping. With SSE2 (part of x86-64) sixteen bytes are classified at once
 * and copied up to the first such byte; the byte loop then takes one step there. The
 * stops are a superset of the bytes where the loop does anything but copy, so the
 * skeletons are those of the loop alone (tests/itf/test_itf_tokenize.c builds it
 * with ITF_TOK_SCALAR and compares). */
#include <string.h>
#include "itf/itf_internal.h"
#if defined(__SSE2__) && !defined(ITF_TOK_SCALAR)
#define ITF_TOK_SSE2 1
#include <emmintrin.h>

/* in[k] < lim[k], unsigned */
static inline __m128i lt_u8(__m128i x, __m128i lim)
{
    return _mm_andnot_si128(_mm_cmpeq_epi8(_mm_max_epu8(x, lim), x), _mm_set1_epi8(-1));
}

/* Bit k: s[k] may start a token (s[-1] is read: the caller has i > 0). */
static inline unsigned tok_stops(const char *s)
{
    const __m128i cur = _mm_loadu_si128((const __m128i *)(const void *)s);
    const __m128i prev = _mm_loadu_si128((const __m128i *)(const void *)(s - 1));
    const __m128i low = _mm_set1_epi8(0x20);
    __m128i dig = lt_u8(_mm_sub_epi8(cur, _mm_set1_epi8('0')), _mm_set1_epi8(10));
    __m128i lc = _mm_or_si128(cur, low);
    __m128i hex = _mm_or_si128(dig, lt_u8(_mm_sub_epi8(lc, _mm_set1_epi8('a')), _mm_set1_epi8(6)));
    __m128i plc = _mm_or_si128(prev, low);
    __m128i palnum = _mm_or_si128(lt_u8(_mm_sub_epi8(prev, _mm_set1_epi8('0')), _mm_set1_epi8(10)),
                                  lt_u8(_mm_sub_epi8(plc, _mm_set1_epi8('a')), _mm_set1_epi8(26)));
    __m128i px = _mm_cmpeq_epi8(plc, _mm_set1_epi8('x'));
    __m128i start = _mm_and_si128(hex, _mm_or_si128(_mm_andnot_si128(palnum, _mm_set1_epi8(-1)), px));
    __m128i esc = _mm_cmpeq_epi8(cur, _mm_set1_epi8(1));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(start, esc));
}

/* The run of hex digits at s (16 bytes readable): its length, 16 when it may go on,
 * and whether it holds lower- and upper-case letters. (A Tarmac line is mostly 8- and
 * 16-digit hex numbers, which the byte loop read twice, digit by digit: 60 % of the
 * tokenizer's time.) */
static inline unsigned hex_run(const char *s, int *lower, int *upper)
{
    const __m128i cur = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i dig = lt_u8(_mm_sub_epi8(cur, _mm_set1_epi8('0')), _mm_set1_epi8(10));
    __m128i lo = lt_u8(_mm_sub_epi8(cur, _mm_set1_epi8('a')), _mm_set1_epi8(6));
    __m128i up = lt_u8(_mm_sub_epi8(cur, _mm_set1_epi8('A')), _mm_set1_epi8(6));
    unsigned hm = (unsigned)_mm_movemask_epi8(_mm_or_si128(dig, _mm_or_si128(lo, up)));
    unsigned w = (unsigned)__builtin_ctz(~hm); /* (bit 16 of ~hm is set) */
    unsigned m = (1u << w) - 1;
    *lower = ((unsigned)_mm_movemask_epi8(lo) & m) != 0;
    *upper = ((unsigned)_mm_movemask_epi8(up) & m) != 0;
    return w;
}

/* The value of 8 hex digits, the first in the low byte of x (little-endian; zero
 * bytes above the digits read as leading zeros): each byte to its nibble, then pairs,
 * quads and halves joined. */
static inline uint64_t hex8(uint64_t x)
{
    x = (x & 0x0F0F0F0F0F0F0F0FULL) + ((x >> 6) & 0x0101010101010101ULL) * 9;
    x = ((x << 4) | (x >> 8)) & 0x00FF00FF00FF00FFULL;
    x = ((x << 8) | (x >> 16)) & 0x0000FFFF0000FFFFULL;
    return ((x << 16) | (x >> 32)) & 0xFFFFFFFFULL;
}

/* The value of the w (1..16) hex digits at s (16 bytes readable). */
static inline uint64_t hex_value(const char *s, size_t w)
{
    uint64_t a, b;
    memcpy(&a, s, 8);
    memcpy(&b, s + 8, 8);
    if (w <= 8)
        return hex8(a << (8 * (8 - w)));
    return hex8(a) << (4 * (w - 8)) | hex8(b << (8 * (16 - w)));
}
#endif

size_t itf_tokenize(const char *s, size_t n, tz_buf *skel, uint64_t *nums)
{
    tz_buf_reset(skel);
    return itf_tokenize_append(s, n, skel, nums);
}

size_t itf_tokenize_append(const char *s, size_t n, tz_buf *skel, uint64_t *nums)
{
    size_t nn = 0, i = 0;
    /* One reservation: a byte gives at most 2 skeleton bytes (an escaped 0x01), a
     * number of w >= 1 characters 3; 16 more for the skip's whole-vector stores. */
    if (n > (SIZE_MAX - 32) / 3 || tz_buf_reserve(skel, 3 * n + 24) < 0)
        return 0;
    char *const base = skel->s + skel->len;
    char *o = base;
    while (i < n) {
#ifdef ITF_TOK_SSE2
        if (i > 0 && i + 16 <= n) { /* copy up to the next byte that may start a token */
            unsigned m = tok_stops(s + i);
            _mm_storeu_si128((__m128i *)(void *)o, _mm_loadu_si128((const __m128i *)(const void *)(s + i)));
            if (!m) {
                o += 16, i += 16;
                continue;
            }
            unsigned k = (unsigned)__builtin_ctz(m);
            o += k, i += k;
        }
#endif
        unsigned c = (unsigned char)s[i];
        if (itf_hexdigit(c) && nn < ITF_MAX_NUMS) {
            int boundary = (i == 0 || !itf_alnum((unsigned char)s[i - 1]));
            int after0x = (i >= 2 && (s[i - 1] | 0x20) == 'x' && s[i - 2] == '0' &&
                           (i == 2 || !itf_alnum((unsigned char)s[i - 3])));
            if (boundary || after0x) {
                size_t j = i;
                int lower = 0, upper = 0, fast = 0;
#ifdef ITF_TOK_SSE2
                /* the line's last 15 bytes or fewer: read from a copy padded with
                 * zeros (not digits), as a line's last number often is */
                char tail[32];
                const char *q = s + i;
                if (i + 16 > n) { /* (fixed-size copies: no call to memcpy) */
                    memset(tail + 16, 0, 16);
                    if (n >= 16) {
                        memcpy(tail, s + n - 16, 16);
                        q = tail + 16 - (n - i);
                    } else {
                        memset(tail, 0, 16);
                        for (size_t k = i; k < n; k++)
                            tail[k - i] = s[k];
                        q = tail;
                    }
                }
                unsigned r = hex_run(q, &lower, &upper);
                if (r < 16 || i + 16 == n || !itf_hexdigit((unsigned char)s[i + 16]))
                    fast = 1, j = i + r;
                else /* 17 digits or more: the byte loop */
                    lower = upper = 0;
#endif
                while (!fast && j < n && itf_hexdigit((unsigned char)s[j])) {
                    if (s[j] >= 'a')
                        lower = 1;
                    else if (s[j] >= 'A')
                        upper = 1;
                    j++;
                }
                size_t w = j - i;
                int ok = (j == n || !itf_alnum((unsigned char)s[j])) && !(lower && upper);
                int kind = 0;
                if (ok) {
                    if (lower || upper) {
                        if (w <= 16 && (after0x || w >= 4))
                            kind = upper ? NK_HEXU : NK_HEXL;
                    } else if (after0x || w >= 8) {
                        if (w <= 16)
                            kind = NK_HEXL;
                    } else if (w <= 18) {
                        kind = (w > 1 && s[i] == '0') ? NK_DECW : NK_DEC;
                    }
                }
                if (!kind) { /* not a number: copy the run literally */
#ifdef ITF_TOK_SSE2
                    if (i + 16 <= n && w <= 16) /* (the reservation has room for 16) */
                        _mm_storeu_si128((__m128i *)(void *)o, _mm_loadu_si128((const __m128i *)(const void *)(s + i)));
                    else
#endif
                        memcpy(o, s + i, w);
                    o += w;
                    i = j;
                    continue;
                }
                uint64_t v = 0;
                if (kind == NK_DEC || kind == NK_DECW)
                    for (size_t k = i; k < j; k++)
                        v = v * 10 + (uint64_t)(s[k] - '0');
#ifdef ITF_TOK_SSE2
                else if (fast)
                    v = hex_value(q, w);
#endif
                else
                    for (size_t k = i; k < j; k++) {
                        int d = s[k];
                        v = v << 4 | (uint64_t)(d <= '9' ? d - '0' : (d | 0x20) - 'a' + 10);
                    }
                /* Width-free kinds, so that a line keeps its skeleton when a number
                 * grows a digit: a decimal without leading zeros (right-aligned in
                 * its field of spaces when spaces precede it), a 0x number without
                 * leading zeros. */
                size_t fw = 1;
                if (kind == NK_DEC) {
                    size_t sp = 0;
                    while (sp < (size_t)(o - base) && o[-1 - (ptrdiff_t)sp] == ' ' && sp + w < 18)
                        sp++;
                    if (sp) {
                        kind = NK_DECR;
                        o -= sp;
                        fw = sp + w;
                    }
                } else if (after0x && (s[i] != '0' || w == 1))
                    kind = kind == NK_HEXU ? NK_HEXVU : NK_HEXV;
                else
                    fw = w;
                nums[nn++] = v;
                o[0] = 1, o[1] = (char)kind, o[2] = (char)fw;
                o += 3;
                i = j;
                continue;
            }
        }
        if (c == 1)
            *o++ = 1, *o++ = 0;
        else
            *o++ = (char)c;
        i++;
    }
    skel->len = (size_t)(o - skel->s);
    *o = '\0';
    return nn;
}
