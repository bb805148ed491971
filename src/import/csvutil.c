/* Shared pieces of the line-oriented importers; see csvutil.h. */
#include "import/csvutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tz_fields_free(tz_fields *r)
{
    free(r->f);
    free(r->len);
    memset(r, 0, sizeof *r);
}

static int fields_push(tz_fields *r, char *s, size_t n, traza_err *err)
{
    if (r->n == r->cap) {
        size_t cap = r->cap, cap2 = r->cap;
        if (TZ_GROW(r->f, cap, r->n + 1) < 0 || TZ_GROW(r->len, cap2, r->n + 1) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        r->cap = cap < cap2 ? cap : cap2;
    }
    r->f[r->n] = s;
    r->len[r->n] = n;
    r->n++;
    return 0;
}

int tz_fields_split(tz_fields *r, char *line, size_t len, char sep, const char *path, long lineno, traza_err *err)
{
    r->n = 0;
    size_t i = 0;
    for (;;) {
        if (i < len && line[i] == '"') {
            /* Quoted field: unescape in place. */
            size_t start = i + 1, o = start, k = start;
            for (;;) {
                if (k >= len)
                    return traza_err_set(err, TRAZA_E_PARSE,
                                         "%s:%ld: column %zu: expected a closing quote '\"', found the end of the line "
                                         "(quoted fields cannot span lines)",
                                         path, lineno, r->n + 1);
                if (line[k] == '"') {
                    if (k + 1 < len && line[k + 1] == '"') {
                        line[o++] = '"';
                        k += 2;
                        continue;
                    }
                    break;
                }
                line[o++] = line[k++];
            }
            k++; /* past the closing quote */
            if (k < len && line[k] != sep)
                return traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: column %zu: expected '%c' or the end of the line after a closing quote, found '%c'",
                                     path, lineno, r->n + 1, sep == '\t' ? 'T' : sep, line[k]);
            line[o] = '\0';
            if (fields_push(r, line + start, o - start, err) < 0)
                return -1;
            if (k >= len)
                return 0;
            i = k + 1;
            continue;
        }
        char *p = i < len ? memchr(line + i, sep, len - i) : NULL;
        size_t e = p ? (size_t)(p - line) : len;
        line[e] = '\0';
        if (fields_push(r, line + i, e - i, err) < 0)
            return -1;
        if (!p)
            return 0;
        i = e + 1;
    }
}

int tz_parse_int(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (n && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        i = 1;
    }
    if (i >= n)
        return -1;
    uint64_t v = 0;
    for (; i < n; i++) {
        unsigned d = (unsigned char)s[i] - '0';
        if (d > 9)
            return -1;
        if (v > (UINT64_MAX - d) / 10)
            return -2;
        v = v * 10 + d;
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1)
            return -2;
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    } else {
        if (v > (uint64_t)INT64_MAX)
            return -2;
        *out = (int64_t)v;
    }
    return 0;
}

int tz_frac_digits(const char *s, size_t n)
{
    const char *dot = memchr(s, '.', n);
    int64_t dummy;
    if (!dot)
        return tz_parse_int(s, n, &dummy) == -1 ? -1 : 0;
    size_t f = n - (size_t)(dot - s) - 1;
    for (size_t i = 0; i < f; i++)
        if ((unsigned char)dot[1 + i] - '0' > 9)
            return -1;
    if (dot == s || (dot == s + 1 && (s[0] == '-' || s[0] == '+'))) {
        if (f == 0)
            return -1;
    } else if (tz_parse_int(s, (size_t)(dot - s), &dummy) == -1) {
        return -1;
    }
    return f > 60 ? 60 : (int)f;
}

int tz_parse_fixed(const char *s, size_t n, int shift, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (n && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        i = 1;
    }
    uint64_t v = 0;
    int digits = 0, frac = 0, seen_dot = 0, lost = 0, over = 0;
    for (; i < n; i++) {
        unsigned c = (unsigned char)s[i];
        if (c == '.') {
            if (seen_dot)
                return -1;
            seen_dot = 1;
            continue;
        }
        unsigned d = c - '0';
        if (d > 9)
            return -1;
        digits++;
        if (seen_dot) {
            if (frac >= shift) { /* beyond the precision we keep */
                if (d)
                    lost = 1;
                continue;
            }
            frac++;
        }
        if (v > (UINT64_MAX - d) / 10)
            over = 1;
        else
            v = v * 10 + d;
    }
    if (!digits || (seen_dot && n >= 1 && s[n - 1] == '.'))
        return -1;
    if (over)
        return -2;
    if (lost)
        return -3;
    /* Scale the remaining power of ten. */
    int rest = shift - frac;
    if (rest >= 0) {
        for (int k = 0; k < rest; k++) {
            if (v > UINT64_MAX / 10)
                return v ? -2 : 0;
            v *= 10;
        }
    } else {
        for (int k = 0; k < -rest; k++) {
            if (v % 10)
                return -3;
            v /= 10;
        }
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX)
            return -2;
        *out = -(int64_t)v;
    } else {
        if (v > (uint64_t)INT64_MAX)
            return -2;
        *out = (int64_t)v;
    }
    return 0;
}

traza_ptype tz_guess_ptype(const char *s, size_t n)
{
    uint64_t h;
    int64_t i;
    double d;
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && tz_parse_u64_hex(s, n, &h) == 0)
        return TRAZA_PT_HEX;
    if (tz_parse_int(s, n, &i) == 0)
        return TRAZA_PT_INT;
    if (tz_frac_digits(s, n) >= 0 || (n && memchr(s, 'e', n) && tz_parse_double(s, n, &d) == 0 && !memchr(s, 'x', n) &&
                                      !memchr(s, 'n', n) && !memchr(s, 'N', n)))
        return TRAZA_PT_DOUBLE;
    return TRAZA_PT_STRING;
}

int tz_parse_value(traza_ptype t, const char *s, size_t n, traza_value *v)
{
    memset(v, 0, sizeof *v);
    v->kind = t;
    switch (t) {
    case TRAZA_PT_INT:
        return tz_parse_int(s, n, &v->i) == 0 ? 0 : -1;
    case TRAZA_PT_HEX: {
        uint64_t h;
        if (tz_parse_u64_hex(s, n, &h) < 0)
            return -1;
        v->i = (int64_t)h;
        return 0;
    }
    case TRAZA_PT_DOUBLE:
        if (n && (s[0] == 'n' || s[0] == 'N' || s[0] == 'i' || s[0] == 'I' || memchr(s, 'x', n) || memchr(s, 'X', n)))
            return -1;
        return tz_parse_double(s, n, &v->d);
    case TRAZA_PT_STRING:
        v->s = s;
        return 0;
    }
    return -1;
}

const char *tz_shorten(const char *s, size_t n, char *buf, size_t size)
{
    size_t o = 0, i = 0;
    const size_t keep = TZ_SHORTEN_KEEP;
    for (; i < n && i < keep && o + 5 < size; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\'') {
            buf[o++] = (char)c;
        } else {
            o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
        }
    }
    if (i < n && o + 4 < size) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o < size ? o : size - 1] = '\0';
    return buf;
}

int tz_field_err(traza_err *err, const char *path, long line, size_t col, const char *name, const char *expected,
                 const char *found, size_t foundlen)
{
    char b[200];
    if (!found)
        return traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: column %zu%s%s%s: expected %s, found nothing (the line has too few fields)",
                             path, line, col + 1, name ? " (" : "", name ? name : "", name ? ")" : "", expected);
    return traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: column %zu%s%s%s: expected %s, found '%s'", path, line, col + 1,
                         name ? " (" : "", name ? name : "", name ? ")" : "", expected, tz_shorten(found, foundlen, b, sizeof b));
}

int tz_check_utf8(const char *line, size_t len, const char *path, long lineno, traza_err *err)
{
    const char *nul = memchr(line, '\0', len);
    if (nul)
        return traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: byte %zu of the line: expected text, found a NUL byte", path, lineno,
                             (size_t)(nul - line) + 1);
    long bad = tz_utf8_invalid(line, len);
    if (bad >= 0)
        return traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: byte %ld of the line: expected UTF-8 text, found the invalid byte 0x%02x",
                             path, lineno, bad + 1, (unsigned char)line[bad]);
    return 0;
}

int tz_check_terminated(const tz_lines *lr, const char *line, size_t len, const char *path, traza_err *err)
{
    if (!lr->unterminated)
        return 0;
    char b[100];
    return traza_err_set(err, TRAZA_E_PARSE,
                         "%s:%ld: the last line has no newline, so the file may be cut inside it: expected a newline after "
                         "'%s' (add one if the line is complete)",
                         path, lr->lineno, tz_shorten(line, len, b, sizeof b));
}

void tz_namecache_init(tz_namecache *c) { tz_map_init(&c->map); }
void tz_namecache_free(tz_namecache *c) { tz_map_free(&c->map); }

int32_t tz_cached_producer(tz_namecache *c, traza_writer *w, int32_t parent, const char *name, size_t len,
                           const char *ptype, traza_err *err)
{
    int64_t id;
    if (tz_map_getn(&c->map, name, len, &id))
        return (int32_t)id;
    char *copy = tz_strndup(name, len);
    if (!copy)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    int32_t p = traza_writer_producer(w, parent, copy, ptype, err);
    if (p >= 0 && tz_map_putn(&c->map, name, len, p) < 0)
        p = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    free(copy);
    return p;
}

int32_t tz_cached_type(tz_namecache *c, traza_writer *w, const char *name, size_t len, traza_category cat,
                       const char *path, long lineno, traza_err *err)
{
    int64_t v;
    char b[200];
    if (tz_map_getn(&c->map, name, len, &v)) {
        traza_category old = (traza_category)(v & 3);
        if (old != cat)
            return traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: event type '%s' is used here as a %s event, but it was a %s event before",
                                 path, lineno, tz_shorten(name, len, b, sizeof b), traza_category_name(cat), traza_category_name(old));
        return (int32_t)(v >> 2);
    }
    char *copy = tz_strndup(name, len);
    if (!copy)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    int32_t t = traza_writer_event_type(w, copy, cat, err);
    if (t < 0)
        traza_err_prefix(err, "%s:%ld: ", path, lineno);
    else if (tz_map_putn(&c->map, name, len, ((int64_t)t << 2) | cat) < 0)
        t = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    free(copy);
    return t;
}

char tz_guess_sep(const char *line, size_t len)
{
    size_t comma = 0, semi = 0, tab = 0;
    int q = 0;
    for (size_t i = 0; i < len; i++) {
        char c = line[i];
        if (c == '"')
            q = !q;
        else if (!q) {
            if (c == ',') comma++;
            else if (c == ';') semi++;
            else if (c == '\t') tab++;
        }
    }
    if (tab > comma && tab >= semi)
        return '\t';
    if (semi > comma)
        return ';';
    return ',';
}

size_t tz_head_lines(const unsigned char *head, size_t len, const char **starts, size_t *lens, size_t max)
{
    size_t n = 0, i = 0;
    while (i < len && n < max) {
        const unsigned char *nl = memchr(head + i, '\n', len - i);
        if (!nl)
            break; /* incomplete last line */
        size_t l = (size_t)(nl - (head + i));
        if (l && head[i + l - 1] == '\r')
            l--;
        starts[n] = (const char *)head + i;
        lens[n] = l;
        n++;
        i = (size_t)(nl - head) + 1;
    }
    if (n == 0 && len > 0 && len < 8192 && n < max) { /* a one-line file without newline */
        size_t l = len;
        if (head[l - 1] == '\r')
            l--;
        starts[0] = (const char *)head;
        lens[0] = l;
        n = 1;
    }
    return n;
}

int tz_import_emit(traza_ctx *ctx, traza_writer *w, const traza_event *ev, tz_input *in, const char *path, long line,
                   int64_t *evno, traza_err *err)
{
    if (traza_writer_event(w, ev, err) < 0)
        return traza_err_prefix(err, "%s:%ld: ", path, line);
    if ((++*evno & 0xffff) == 0 && traza_progress(ctx, "importing", tz_input_raw_pos(in), tz_input_raw_size(in)))
        return traza_err_set(err, TRAZA_E_CANCELLED, "import cancelled");
    return 0;
}

void tz_param_slots_reset(tz_param_slots *s, size_t width)
{
    free(s->defs);
    free(s->ptypes);
    s->defs = NULL;
    s->ptypes = NULL;
    s->ntypes_cap = 0;
    s->width = width ? width : 1;
}

static int param_slots_grow(tz_param_slots *s, int32_t t, traza_err *err)
{
    if ((size_t)t < s->ntypes_cap)
        return 0;
    size_t ncap = s->ntypes_cap ? s->ntypes_cap * 2 : 16;
    while (ncap <= (size_t)t)
        ncap *= 2;
    int32_t *d = realloc(s->defs, ncap * s->width * sizeof *d);
    if (!d)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    s->defs = d;
    traza_ptype *p = realloc(s->ptypes, ncap * s->width * sizeof *p);
    if (!p)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    s->ptypes = p;
    for (size_t i = s->ntypes_cap * s->width; i < ncap * s->width; i++)
        s->defs[i] = -1;
    s->ntypes_cap = ncap;
    return 0;
}

int tz_param_slot_value(tz_param_slots *s, traza_writer *w, int32_t t, size_t k, const char *name, int pt, const char *f,
                        size_t fl, traza_param *p, traza_ptype *slot_type, traza_err *err)
{
    if (param_slots_grow(s, t, err) < 0)
        return -1;
    size_t slot = (size_t)t * s->width + k;
    if (s->defs[slot] < 0) {
        traza_ptype ty = pt >= 0 ? (traza_ptype)pt : tz_guess_ptype(f, fl);
        int32_t d = traza_writer_param_def(w, t, name, ty, err);
        if (d < 0)
            return -1;
        s->defs[slot] = d;
        s->ptypes[slot] = ty;
    }
    p->def = s->defs[slot];
    *slot_type = s->ptypes[slot];
    return tz_parse_value(s->ptypes[slot], f, fl, &p->v) < 0 ? -2 : 0;
}
