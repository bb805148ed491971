/* ITFComp line model: a line's text from its skeleton and numbers.
 *
 * A skeleton is the line with each number replaced by a placeholder (0x01, kind,
 * width; an 0x01 byte of the text is 0x01 0x00). itf_skel_render renders one as it
 * is stored; the reader compiles each skeleton once (itf_skel_compile) into literal
 * runs and placeholders that itf_prog_render copies and fills without looking at the
 * bytes again. Numbers are written with SSE2 where x86-64 has it; ITF_RENDER_SCALAR
 * builds the plain loops (test_itf_render compares both with printf). */
#include <stdlib.h>
#include <string.h>
#include "itf/itf_internal.h"
#if defined(__SSE2__) && !defined(ITF_RENDER_SCALAR)
#include <emmintrin.h>
#endif

int itf_skel_count(const uint8_t *k, size_t len, size_t *nnums)
{
    size_t nn = 0;
    for (size_t i = 0; i < len; i++) {
        if (k[i] != 1)
            continue;
        if (i + 1 >= len)
            return -1;
        if (k[i + 1] == 0) {
            i++;
            continue;
        }
        if (i + 2 >= len || k[i + 1] > NK_HEXVU || k[i + 2] < 1 || k[i + 2] > 18)
            return -1;
        nn++;
        i += 2;
    }
    *nnums = nn;
    return 0;
}

/* The low w (<= 16) hexadecimal digits of v at o, most significant first. With SSE2
 * all 16 at once: the digits shifted to the top, the nibbles spread one per byte, '0'
 * added and 7 or 39 more where a nibble is above 9; the store writes 16 bytes, so o
 * needs 16 - w bytes of room past the digits (every renderer reserves 20 per number).
 * A Tarmac line is mostly such digits: per digit, the loop cost a third of the render
 * thread. */
static inline char *render_hex(char *o, uint64_t v, int w, int upper)
{
    if (w <= 0)
        return o;
#if defined(__SSE2__) && !defined(ITF_RENDER_SCALAR)
    uint64_t x = __builtin_bswap64(w < 16 ? v << (4 * (16 - w)) : v);
    __m128i b = _mm_cvtsi64_si128((long long)x), m = _mm_set1_epi8(0x0F);
    __m128i n = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(b, 4), m), _mm_and_si128(b, m));
    __m128i a = _mm_and_si128(_mm_cmpgt_epi8(n, _mm_set1_epi8(9)), _mm_set1_epi8(upper ? 7 : 39));
    _mm_storeu_si128((__m128i *)(void *)o, _mm_add_epi8(_mm_add_epi8(n, _mm_set1_epi8('0')), a));
#else
    const char *dg = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    for (int q = w - 1; q >= 0; q--) {
        o[q] = dg[v & 15];
        v >>= 4;
    }
#endif
    return o + w;
}

/* v in decimal at o, padded on the left to w (at most 20) with '0' (NK_DECW) or ' '
 * (NK_DECR): the digit count first (from the bit length), then two digits per
 * division from the end. Writes 16 bytes for any padding, so o needs that much room
 * (every renderer reserves 20 per number). */
static inline __attribute__((always_inline)) char *render_dec(char *o, uint64_t v, int kind, int w)
{
    static const uint64_t P10[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
                                     100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
                                     1000000000000ull, 10000000000000ull, 100000000000000ull,
                                     1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
                                     1000000000000000000ull, 10000000000000000000ull};
    static const char D2[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                             "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                             "8081828384858687888990919293949596979899";
    static const char SP[16] = "                ", ZR[16] = "0000000000000000";
    int t = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12; /* floor(log10(v)) or one less */
    int nd = t + (v >= P10[t]);
    nd += !nd;
    int pad = 0;
    if (kind != NK_DEC) {
        int ww = w < 20 ? w : 20;
        pad = ww > nd ? ww - nd : 0;
    }
    if (pad) {
        const char *c = kind == NK_DECW ? ZR : SP;
        memcpy(o, c, 16);
        if (pad > 16)
            memcpy(o + pad - 16, c, 16);
    }
    char *e = o + pad + nd, *end = e;
    while (v >= 100) {
        uint64_t q = v % 100;
        v /= 100;
        e -= 2;
        memcpy(e, D2 + 2 * q, 2);
    }
    if (v >= 10)
        memcpy(e - 2, D2 + 2 * v, 2);
    else
        e[-1] = (char)('0' + v);
    return end;
}

/* Writes number v of a placeholder kind and width at o; returns the end (at most 20
 * characters). */
static inline __attribute__((always_inline)) char *render_num(char *o, int kind, int w, uint64_t v)
{
    if (kind == NK_DEC || kind == NK_DECW || kind == NK_DECR)
        return render_dec(o, v, kind, w);
    if (kind == NK_HEXV || kind == NK_HEXVU)
        return render_hex(o, v, v ? (67 - __builtin_clzll(v)) / 4 : 1, kind == NK_HEXVU);
    return render_hex(o, v, w, kind == NK_HEXU); /* w <= 16: checked by the caller */
}
int itf_skel_render(tz_buf *b, const uint8_t *k, size_t len, const uint64_t *nums, size_t nnums)
{
    /* One reservation per line (a number takes at most 20 characters), then the
     * literal runs found with memchr and the numbers written in place. */
    if (nnums > len || tz_buf_reserve(b, len + 20 * nnums) < 0)
        return -1;
    char *o = b->s + b->len;
    size_t nn = 0, i = 0;
    while (i < len) {
        const uint8_t *m = memchr(k + i, 1, len - i);
        size_t j = m ? (size_t)(m - k) : len;
        memcpy(o, k + i, j - i);
        o += j - i;
        if (j == len)
            break;
        if (j + 1 >= len)
            return -1;
        if (k[j + 1] == 0) { /* an escaped 0x01 */
            *o++ = 1;
            i = j + 2;
            continue;
        }
        if (j + 2 >= len || nn >= nnums)
            return -1;
        int kind = k[j + 1], w = k[j + 2];
        if (kind != NK_DEC && kind != NK_DECW && kind != NK_DECR && kind != NK_HEXV && kind != NK_HEXVU && w > 16)
            return -1;
        o = render_num(o, kind, w, nums[nn++]);
        i = j + 3;
    }
    b->len = (size_t)(o - b->s);
    b->s[b->len] = '\0';
    return 0;
}

/* A skeleton compiled for rendering (itf_prog_render): for each placeholder, a 32-bit
 * literal length, the literal (escaped 0x01 bytes resolved), then the kind and the
 * width; the last literal is followed by kind 0. No memchr per run and no escape
 * checks per line: the renderer copies each literal 16, 32 or 64 bytes at a time, so the
 * program is followed by ITF_PROG_PAD readable bytes and the output needs that much
 * room past its *maxout. Returns -1 on a malformed skeleton. */
int itf_skel_compile(tz_buf *prog, const uint8_t *k, size_t len, size_t *maxout)
{
    size_t i = 0, out = 0;
    for (;;) {
        size_t at = prog->len;
        tz_buf_put(prog, "\0\0\0\0", 4);
        size_t lit = 0;
        while (i < len) { /* literal runs up to the next 0x01, copied whole */
            const uint8_t *m = memchr(k + i, 1, len - i);
            size_t j = m ? (size_t)(m - k) : len;
            tz_buf_put(prog, k + i, j - i);
            lit += j - i;
            i = j;
            if (i >= len || (i + 1 < len && k[i + 1] != 0))
                break; /* the end, or a placeholder */
            if (i + 1 >= len) /* an escape cut short */
                return -1;
            tz_buf_putc(prog, 1); /* an escaped 0x01 (its second byte is 0) */
            i += 2;
            lit++;
        }
        if (lit > UINT32_MAX || prog->oom)
            return -1;
        uint32_t l32 = (uint32_t)lit;
        memcpy(prog->s + at, &l32, 4);
        out += lit;
        if (i >= len) {
            tz_buf_putc(prog, 0);
            break;
        }
        if (i + 2 >= len) /* a placeholder cut short */
            return -1;
        int kind = k[i + 1], w = k[i + 2];
        if (kind < NK_DEC || kind > NK_HEXVU || (kind != NK_DEC && kind != NK_DECW && kind != NK_DECR &&
                                                 kind != NK_HEXV && kind != NK_HEXVU && w > 16))
            return -1;
        tz_buf_putc(prog, (char)kind);
        tz_buf_putc(prog, (char)w);
        out += 20;
        i += 3;
    }
    *maxout = out;
    return prog->oom ? -1 : 0;
}

int itf_prog_append(tz_buf *b, const uint8_t *prog, size_t room, const uint64_t *nums)
{
    if (tz_buf_reserve(b, room) < 0)
        return -1;
    b->len += itf_prog_render(b->s + b->len, prog, nums);
    b->s[b->len] = '\0';
    return 0;
}

size_t itf_prog_render(char *o, const uint8_t *q, const uint64_t *nums)
{
    char *start = o;
    for (;;) {
        uint32_t l32;
        memcpy(&l32, q, 4);
        size_t lit = l32;
        q += 4;
        if (lit <= 16) {
            memcpy(o, q, 16);
        } else if (lit <= 32) {
            memcpy(o, q, 16);
            memcpy(o + 16, q + 16, 16);
        } else if (lit <= 64) { /* (the text of a Tarmac instruction line) */
            memcpy(o, q, 16);
            memcpy(o + 16, q + 16, 16);
            memcpy(o + 32, q + 32, 16);
            memcpy(o + 48, q + 48, 16);
        } else {
            memcpy(o, q, lit);
        }
        o += lit;
        q += lit;
        int kind = *q++;
        if (!kind)
            break;
        int w = *q++;
        o = render_num(o, kind, w, *nums++);
    }
    return (size_t)(o - start);
}
