/* Internal helpers: strings, buffers, growth, number parsing. */
#include "util/util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tz_strdup(const char *s)
{
    if (!s)
        return NULL;
    return tz_strndup(s, strlen(s));
}

char *tz_strndup(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *tz_asprintf(const char *fmt, ...)
{
    tz_buf b;
    tz_buf_init(&b);
    va_list ap;
    va_start(ap, fmt);
    tz_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    return tz_buf_take(&b);
}

int tz_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return -1;
        ncap *= 2;
    }
    if (elem && ncap > SIZE_MAX / elem)
        return -1;
    void *np = realloc(*p, ncap * elem);
    if (!np)
        return -1;
    *p = np;
    *cap = ncap;
    return 0;
}

void tz_buf_init(tz_buf *b) { memset(b, 0, sizeof *b); }
void tz_buf_free(tz_buf *b) { free(b->s); tz_buf_init(b); }
void tz_buf_reset(tz_buf *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = '\0';
}

static int buf_reserve(tz_buf *b, size_t extra)
{
    if (b->oom)
        return -1;
    if (extra > SIZE_MAX - b->len - 1 || TZ_GROW(b->s, b->cap, b->len + extra + 1) < 0) {
        b->oom = 1;
        return -1;
    }
    return 0;
}

int tz_buf_reserve_grow(tz_buf *b, size_t extra) { return buf_reserve(b, extra); }

void tz_buf_put_grow(tz_buf *b, const void *data, size_t n)
{
    if (buf_reserve(b, n) < 0)
        return;
    if (n)
        memcpy(b->s + b->len, data, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void tz_buf_puts(tz_buf *b, const char *s) { tz_buf_put(b, s, strlen(s)); }

int tz_buf_sink(void *arg, const char *data, size_t len)
{
    tz_buf *b = arg;
    tz_buf_put(b, data, len);
    return b->oom ? -1 : 0;
}

void tz_buf_vprintf(tz_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        tz_buf_put(b, small, (size_t)n);
        return;
    }
    if (buf_reserve(b, (size_t)n) < 0)
        return;
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void tz_buf_printf(tz_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tz_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *tz_buf_take(tz_buf *b)
{
    if (b->oom) {
        tz_buf_free(b);
        return NULL;
    }
    if (!b->s) {
        char *e = malloc(1);
        if (e)
            e[0] = '\0';
        return e;
    }
    char *s = b->s;
    tz_buf_init(b);
    return s;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned min;
    if ((c & 0xE0) == 0xC0) { len = 2; min = 0x80; c &= 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; min = 0x800; c &= 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; min = 0x10000; c &= 0x07; }
    else return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    return len;
}

long tz_utf8_invalid(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        if (u[i] < 0x80) { i++; continue; }
        size_t l = utf8_seq(u + i, n - i);
        if (!l)
            return (long)i;
        i += l;
    }
    return -1;
}

void tz_json_strn(tz_buf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    tz_buf_putc(b, '"');
    size_t i = 0;
    while (i < n) {
        unsigned c = u[i];
        if (c == '"' || c == '\\') {
            tz_buf_putc(b, '\\');
            tz_buf_putc(b, (char)c);
            i++;
        } else if (c < 0x20) {
            switch (c) {
            case '\n': tz_buf_puts(b, "\\n"); break;
            case '\t': tz_buf_puts(b, "\\t"); break;
            case '\r': tz_buf_puts(b, "\\r"); break;
            default: tz_buf_printf(b, "\\u%04x", c);
            }
            i++;
        } else if (c < 0x80) {
            tz_buf_putc(b, (char)c);
            i++;
        } else {
            size_t l = utf8_seq(u + i, n - i);
            if (l) {
                tz_buf_put(b, u + i, l);
                i += l;
            } else {
                tz_buf_puts(b, "\\ufffd");
                i++;
            }
        }
    }
    tz_buf_putc(b, '"');
}

void tz_buf_quoted(tz_buf *b, const char *s, char q)
{
    tz_buf_putc(b, q);
    for (; *s; s++) {
        if (*s == q)
            tz_buf_putc(b, q);
        tz_buf_putc(b, *s);
    }
    tz_buf_putc(b, q);
}

void tz_json_str(tz_buf *b, const char *s)
{
    if (!s) {
        tz_buf_puts(b, "null");
        return;
    }
    tz_json_strn(b, s, strlen(s));
}

void tz_xml_esc(tz_buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': tz_buf_puts(b, "&lt;"); break;
        case '>': tz_buf_puts(b, "&gt;"); break;
        case '&': tz_buf_puts(b, "&amp;"); break;
        case '"': tz_buf_puts(b, "&quot;"); break;
        default: tz_buf_putc(b, *s);
        }
    }
}

void tz_json_num(tz_buf *b, double v)
{
    if (!isfinite(v)) {
        tz_buf_puts(b, "null");
        return;
    }
    if (v == (double)(int64_t)v && fabs(v) < 9e15)
        tz_buf_printf(b, "%lld", (long long)v);
    else
        tz_buf_printf(b, "%.17g", v);
}

int tz_parse_i64(const char *s, size_t n, int64_t *out)
{
    if (n == 0 || n > 24)
        return -1;
    char tmp[32];
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *end;
    errno = 0;
    long long v = strtoll(tmp, &end, 10);
    if (errno || end != tmp + n || tmp[0] == ' ' || tmp[0] == '\t' || tmp[0] == '\n')
        return -1;
    *out = v;
    return 0;
}

int tz_parse_u64_hex(const char *s, size_t n, uint64_t *out)
{
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        n -= 2;
    }
    if (n == 0 || n > 16)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)s[i], d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return -1;
        v = (v << 4) | d;
    }
    *out = v;
    return 0;
}

int tz_parse_double(const char *s, size_t n, double *out)
{
    if (n == 0 || n > 64)
        return -1;
    char tmp[80];
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    if (tmp[0] == ' ' || tmp[0] == '\t')
        return -1;
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
    if (end != tmp + n || (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL)) || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int tz_read_file(const char *path, char **data, size_t *len, traza_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return traza_err_set(err, TRAZA_E_IO, "%s: cannot open: %s", path, strerror(errno));
    tz_buf b;
    tz_buf_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        tz_buf_put(&b, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        tz_buf_free(&b);
        return traza_err_set(err, TRAZA_E_IO, "%s: read error", path);
    }
    size_t l = b.len;
    char *s = tz_buf_take(&b);
    if (!s)
        return traza_err_set(err, TRAZA_E_NOMEM, "%s: out of memory reading file", path);
    *data = s;
    *len = l;
    return 0;
}

/* Seconds in a readable unit ("1.23 ms", "-250 ns"); "-" for none. */
const char *tz_secs_str(double s, char *buf, size_t size)
{
    if (isnan(s)) {
        snprintf(buf, size, "-");
        return buf;
    }
    double a = fabs(s);
    if (a >= 1 || a == 0) snprintf(buf, size, "%.3g s", s);
    else if (a >= 1e-3) snprintf(buf, size, "%.3g ms", s * 1e3);
    else if (a >= 1e-6) snprintf(buf, size, "%.3g us", s * 1e6);
    else snprintf(buf, size, "%.3g ns", s * 1e9);
    return buf;
}
