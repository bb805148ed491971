/* The .tzg grammar file: header + entropy-coded (zstd or xz) varint payload.
 * Layout documented in doc/formats/tzg.md. */
#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include "util/le.h"
#include "traza/grammar.h"
#include "grammar/gram_internal.h"
#include "util/util.h"

static const unsigned char TZG_MAGIC[8] = {0x89, 'T', 'Z', 'G', '\r', '\n', 0x1a, '\n'};
#define TZG_VERSION 2 /* written; 1 (no names section) is read too */
#define TZG_HDR 40
#define TZG_MAX_RAW (UINT64_C(1) << 36)


static void put_var(tz_buf *b, uint64_t v)
{
    uint8_t t[10];
    tz_buf_put(b, t, tz_put_uleb(t, v));
}

static uint32_t crc(const unsigned char *p, size_t n)
{
    uLong c = crc32(0L, Z_NULL, 0);
    while (n) {
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, p, k);
        p += k;
        n -= k;
    }
    return (uint32_t)c;
}

/* ---- payload -------------------------------------------------------------------- */

static int encode_payload(const traza_grammar *g, tz_buf *b)
{
    if (g->has_loop_header)
        put_var(b, g->loop_header);
    put_var(b, g->nrules);
    uint64_t prev = 0;
    for (uint32_t r = 0; r < g->nrules; r++) {
        uint64_t n = g->off[r + 1] - g->off[r];
        put_var(b, n << 1 | (g->is_cycle[r] ? 1 : 0));
        for (uint64_t k = g->off[r]; k < g->off[r + 1]; k++) {
            const traza_gsym *s = &g->syms[k];
            uint64_t tag = (s->rep > 1 ? 2u : 0u) | (s->is_rule ? 1u : 0u);
            put_var(b, tag);
            if (s->is_rule) {
                put_var(b, s->value);
            } else {
                int64_t d = (int64_t)(s->value - prev);
                put_var(b, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
                prev = s->value;
            }
            if (s->rep > 1)
                put_var(b, s->rep);
        }
    }
    if (g->nnames) { /* v2, flags bit 1: the names section */
        put_var(b, g->nnames);
        uint64_t pv = 0;
        for (size_t k = 0; k < g->nnames; k++) {
            put_var(b, g->name_vals[k] - pv);
            pv = g->name_vals[k];
            size_t l = strlen(g->names[k]);
            put_var(b, l);
            tz_buf_put(b, g->names[k], l);
        }
    }
    return b->oom ? -1 : 0;
}

typedef struct rd {
    const unsigned char *p;
    size_t n, i;
} rd;

static int get_var(rd *r, uint64_t *v, traza_err *err)
{
    uint64_t x = 0;
    for (int sh = 0; sh < 70; sh += 7) {
        if (r->i >= r->n)
            return traza_err_set(err, TRAZA_E_FORMAT, "tzg: payload byte %zu: truncated number", r->i);
        unsigned char c = r->p[r->i++];
        if (sh == 63 && c > 1)
            return traza_err_set(err, TRAZA_E_FORMAT, "tzg: payload byte %zu: number overflows 64 bits", r->i - 1);
        x |= (uint64_t)(c & 0x7f) << sh;
        if (!(c & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return traza_err_set(err, TRAZA_E_FORMAT, "tzg: payload byte %zu: number too long", r->i);
}

static int decode_names(rd *r, traza_grammar *g, traza_err *err)
{
    uint64_t cnt, v, pv = 0, l;
    if (get_var(r, &cnt, err) < 0)
        return -1;
    if (cnt == 0 || cnt > (r->n - r->i) / 2)
        return traza_err_set(err, TRAZA_E_FORMAT, "tzg: payload byte %zu: %llu names do not fit in %zu bytes", r->i,
                             (unsigned long long)cnt, r->n - r->i);
    g->name_vals = malloc(cnt * sizeof *g->name_vals);
    g->names = calloc(cnt, sizeof *g->names);
    if (!g->name_vals || !g->names)
        return traza_err_set(err, TRAZA_E_NOMEM, "tzg: out of memory");
    for (uint64_t k = 0; k < cnt; k++) {
        if (get_var(r, &v, err) < 0 || get_var(r, &l, err) < 0)
            return -1;
        if ((k && v == 0) || v > UINT64_MAX - pv)
            return traza_err_set(err, TRAZA_E_FORMAT, "tzg: payload byte %zu: name %llu: values must increase",
                                 r->i, (unsigned long long)k);
        if (l == 0 || l > 4096 || l > r->n - r->i)
            return traza_err_set(err, TRAZA_E_FORMAT, "tzg: payload byte %zu: name %llu has a bad length %llu", r->i,
                                 (unsigned long long)k, (unsigned long long)l);
        if (memchr(r->p + r->i, 0, (size_t)l))
            return traza_err_set(err, TRAZA_E_FORMAT, "tzg: payload byte %zu: name %llu holds a NUL byte", r->i,
                                 (unsigned long long)k);
        pv += v;
        if (!(g->names[k] = malloc((size_t)l + 1)))
            return traza_err_set(err, TRAZA_E_NOMEM, "tzg: out of memory");
        memcpy(g->names[k], r->p + r->i, (size_t)l);
        g->names[k][l] = 0;
        g->name_vals[k] = pv;
        g->nnames = (size_t)k + 1;
        r->i += (size_t)l;
    }
    return 0;
}

static traza_grammar *decode_payload(const unsigned char *p, size_t n, int flags, int algo, traza_err *err)
{
    rd r = {p, n, 0};
    traza_grammar *g = calloc(1, sizeof *g);
    if (!g) {
        traza_err_set(err, TRAZA_E_NOMEM, "tzg: out of memory");
        return NULL;
    }
    g->algo = (traza_galgo)algo;
    uint64_t v;
    if (flags & 1) {
        if (get_var(&r, &g->loop_header, err) < 0)
            goto fail;
        g->has_loop_header = 1;
    }
    if (get_var(&r, &v, err) < 0)
        goto fail;
    /* rule 0 takes at least its length byte, every other rule 3 bytes (length, and a
     * non-empty body of a tag and a value) */
    if (v == 0 || r.i == n || v - 1 > (n - r.i - 1) / 3 || v > UINT32_MAX - 1) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzg: payload byte %zu: rule count %llu does not fit in the %zu bytes left", r.i,
                      (unsigned long long)v, n - r.i);
        goto fail;
    }
    g->nrules = (uint32_t)v;
    g->off = malloc((g->nrules + (size_t)1) * sizeof *g->off);
    g->is_cycle = calloc(g->nrules, 1);
    if (!g->off || !g->is_cycle) {
        traza_err_set(err, TRAZA_E_NOMEM, "tzg: out of memory");
        goto fail;
    }
    size_t cap = 0, total = 0;
    uint64_t prev = 0;
    for (uint32_t ri = 0; ri < g->nrules; ri++) {
        if (get_var(&r, &v, err) < 0)
            goto fail;
        uint64_t len = v >> 1;
        g->is_cycle[ri] = (uint8_t)(v & 1);
        if (len > (n - r.i) / 2) { /* a symbol takes at least 2 bytes: tag and value */
            traza_err_set(err, TRAZA_E_FORMAT, "tzg: payload byte %zu: rule %u claims %llu symbols, %zu bytes left hold %zu",
                          r.i, ri, (unsigned long long)len, n - r.i, (n - r.i) / 2);
            goto fail;
        }
        g->off[ri] = total;
        if (TZ_GROW(g->syms, cap, total + len) < 0) {
            traza_err_set(err, TRAZA_E_NOMEM, "tzg: out of memory");
            goto fail;
        }
        for (uint64_t k = 0; k < len; k++) {
            traza_gsym *s = &g->syms[total++];
            uint64_t tag;
            if (get_var(&r, &tag, err) < 0)
                goto fail;
            if (tag > 3) {
                traza_err_set(err, TRAZA_E_FORMAT, "tzg: payload byte %zu: bad symbol tag %llu", r.i,
                              (unsigned long long)tag);
                goto fail;
            }
            s->is_rule = (uint32_t)(tag & 1);
            if (get_var(&r, &v, err) < 0)
                goto fail;
            if (s->is_rule) {
                s->value = v;
            } else {
                uint64_t d = (v >> 1) ^ (0 - (v & 1));
                prev += d;
                s->value = prev;
            }
            s->rep = 1;
            if (tag & 2) {
                if (get_var(&r, &s->rep, err) < 0)
                    goto fail;
                if (s->rep < 2) {
                    traza_err_set(err, TRAZA_E_FORMAT, "tzg: payload byte %zu: repetition %llu, expected >= 2", r.i,
                                  (unsigned long long)s->rep);
                    goto fail;
                }
            }
        }
    }
    g->off[g->nrules] = total;
    if ((flags & 2) && decode_names(&r, g, err) < 0)
        goto fail;
    if (r.i != n) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzg: %zu unexpected bytes after the last rule", n - r.i);
        goto fail;
    }
    if (!g->syms && !(g->syms = malloc(sizeof *g->syms))) {
        traza_err_set(err, TRAZA_E_NOMEM, "tzg: out of memory");
        goto fail;
    }
    if (traza_grammar_finish(g, err) < 0) {
        traza_err_prefix(err, "tzg: ");
        goto fail;
    }
    return g;
fail:
    traza_grammar_free(g);
    return NULL;
}

/* ---- back ends -------------------------------------------------------------------- */

static int compress_buf(int backend, const unsigned char *in, size_t n, unsigned char **out, size_t *outlen,
                        traza_err *err)
{
    if (backend == TRAZA_TZG_ZSTD) {
        size_t cap = ZSTD_compressBound(n);
        unsigned char *o = malloc(cap ? cap : 1);
        if (!o)
            return traza_err_set(err, TRAZA_E_NOMEM, "tzg: out of memory");
        size_t r = ZSTD_compress(o, cap, in, n, 19);
        if (ZSTD_isError(r)) {
            free(o);
            return traza_err_set(err, TRAZA_E_INTERNAL, "tzg: zstd: %s", ZSTD_getErrorName(r));
        }
        *out = o;
        *outlen = r;
        return 0;
    }
    size_t cap = lzma_stream_buffer_bound(n);
    unsigned char *o = malloc(cap ? cap : 1);
    if (!o)
        return traza_err_set(err, TRAZA_E_NOMEM, "tzg: out of memory");
    size_t pos = 0;
    /* xz -9e, with the dictionary no larger than the payload (saves memory and time) */
    lzma_options_lzma opt;
    if (lzma_lzma_preset(&opt, 9 | LZMA_PRESET_EXTREME)) {
        free(o);
        return traza_err_set(err, TRAZA_E_INTERNAL, "tzg: xz preset unavailable");
    }
    if (n < opt.dict_size)
        opt.dict_size = n < LZMA_DICT_SIZE_MIN ? LZMA_DICT_SIZE_MIN : (uint32_t)n;
    lzma_filter filters[2] = {{LZMA_FILTER_LZMA2, &opt}, {LZMA_VLI_UNKNOWN, NULL}};
    lzma_ret rc = lzma_stream_buffer_encode(filters, LZMA_CHECK_NONE, NULL, in, n, o, &pos, cap);
    if (rc != LZMA_OK) {
        free(o);
        return traza_err_set(err, TRAZA_E_INTERNAL, "tzg: xz encoder failed (%d)", (int)rc);
    }
    *out = o;
    *outlen = pos;
    return 0;
}

/* Decompresses exactly `raw` bytes; the buffer grows as data comes, so a lying
 * header cannot make us allocate more than the data really expands to. */
static int decompress_buf(int backend, const unsigned char *in, size_t n, uint64_t raw, unsigned char **out,
                          traza_err *err)
{
    size_t cap = raw < 65536 ? (size_t)raw + 1 : 65536, len = 0;
    unsigned char *o = malloc(cap);
    if (!o)
        return traza_err_set(err, TRAZA_E_NOMEM, "tzg: out of memory");
    int rc = -1;
    if (backend == TRAZA_TZG_ZSTD) {
        ZSTD_DStream *ds = ZSTD_createDStream();
        if (!ds) {
            free(o);
            return traza_err_set(err, TRAZA_E_NOMEM, "tzg: out of memory");
        }
        ZSTD_inBuffer ib = {in, n, 0};
        size_t last = 1;
        for (;;) {
            if (len == cap) {
                if (len > raw) {
                    traza_err_set(err, TRAZA_E_FORMAT, "tzg: payload expands beyond its recorded %llu bytes",
                                  (unsigned long long)raw);
                    break;
                }
                size_t ncap = cap * 2 > raw + 1 ? (size_t)raw + 1 : cap * 2;
                unsigned char *t = ncap > cap ? realloc(o, ncap) : NULL;
                if (!t) {
                    traza_err_set(err, ncap > cap ? TRAZA_E_NOMEM : TRAZA_E_FORMAT,
                                  "tzg: payload expands beyond its recorded %llu bytes", (unsigned long long)raw);
                    break;
                }
                o = t;
                cap = ncap;
            }
            ZSTD_outBuffer ob = {o, cap, len};
            last = ZSTD_decompressStream(ds, &ob, &ib);
            if (ZSTD_isError(last)) {
                traza_err_set(err, TRAZA_E_FORMAT, "tzg: corrupted zstd payload: %s", ZSTD_getErrorName(last));
                break;
            }
            int progress = ob.pos != len;
            len = ob.pos;
            if (last == 0 && ib.pos == ib.size) {
                rc = 0;
                break;
            }
            if (!progress && ib.pos == ib.size && len < cap) {
                traza_err_set(err, TRAZA_E_FORMAT, "tzg: truncated zstd payload");
                break;
            }
        }
        ZSTD_freeDStream(ds);
    } else {
        lzma_stream s = LZMA_STREAM_INIT;
        if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK) {
            free(o);
            return traza_err_set(err, TRAZA_E_NOMEM, "tzg: xz decoder init failed");
        }
        s.next_in = in;
        s.avail_in = n;
        for (;;) {
            if (len == cap) {
                size_t ncap = cap * 2 > raw + 1 ? (size_t)raw + 1 : cap * 2;
                unsigned char *t = ncap > cap ? realloc(o, ncap) : NULL;
                if (!t) {
                    traza_err_set(err, ncap > cap ? TRAZA_E_NOMEM : TRAZA_E_FORMAT,
                                  "tzg: payload expands beyond its recorded %llu bytes", (unsigned long long)raw);
                    break;
                }
                o = t;
                cap = ncap;
            }
            s.next_out = o + len;
            s.avail_out = cap - len;
            lzma_ret r = lzma_code(&s, LZMA_FINISH);
            len = cap - s.avail_out;
            if (r == LZMA_STREAM_END) {
                rc = s.avail_in == 0 ? 0
                                     : traza_err_set(err, TRAZA_E_FORMAT, "tzg: %zu bytes after the xz payload",
                                                     (size_t)s.avail_in);
                break;
            }
            if (r != LZMA_OK) {
                traza_err_set(err, TRAZA_E_FORMAT, "tzg: %s xz payload (lzma error %d)",
                              r == LZMA_BUF_ERROR ? "truncated" : "corrupted", (int)r);
                break;
            }
        }
        lzma_end(&s);
    }
    if (rc == 0 && len != raw)
        rc = traza_err_set(err, TRAZA_E_FORMAT, "tzg: payload is %zu bytes, header says %llu", len,
                           (unsigned long long)raw);
    if (rc < 0) {
        free(o);
        return -1;
    }
    *out = o;
    return 0;
}

traza_grammar *tzg_decode_payload(const unsigned char *p, size_t n, int has_loop_header, traza_err *err)
{
    return decode_payload(p, n, has_loop_header, TRAZA_G_SEQUITUR, err);
}

/* ---- public --------------------------------------------------------------------- */

int traza_tzg_encode(const traza_grammar *g, int backend, unsigned char **out, size_t *outlen, traza_err *err)
{
    if (backend != TRAZA_TZG_ZSTD && backend != TRAZA_TZG_XZ)
        return traza_err_set(err, TRAZA_E_USAGE, "tzg: unknown back end %d", backend);
    tz_buf b;
    tz_buf_init(&b);
    if (encode_payload(g, &b) < 0) {
        tz_buf_free(&b);
        return traza_err_set(err, TRAZA_E_NOMEM, "tzg: out of memory");
    }
    unsigned char *c = NULL;
    size_t clen = 0;
    if (compress_buf(backend, (const unsigned char *)b.s, b.len, &c, &clen, err) < 0) {
        tz_buf_free(&b);
        return -1;
    }
    unsigned char *o = malloc(TZG_HDR + clen);
    if (!o) {
        free(c);
        tz_buf_free(&b);
        return traza_err_set(err, TRAZA_E_NOMEM, "tzg: out of memory");
    }
    memset(o, 0, TZG_HDR);
    memcpy(o, TZG_MAGIC, 8);
    tz_put_le16(o + 8, TZG_VERSION);
    o[10] = (unsigned char)backend;
    o[11] = (unsigned char)g->algo;
    o[12] = (unsigned char)((g->has_loop_header ? 1 : 0) | (g->nnames ? 2 : 0));
    tz_put_le64(o + 16, b.len);
    tz_put_le64(o + 24, clen);
    tz_put_le32(o + 32, crc((const unsigned char *)b.s, b.len));
    tz_put_le32(o + 36, crc(o, 36));
    memcpy(o + TZG_HDR, c, clen);
    free(c);
    tz_buf_free(&b);
    *out = o;
    *outlen = TZG_HDR + clen;
    return 0;
}

traza_grammar *traza_tzg_decode(const unsigned char *d, size_t n, traza_err *err)
{
    if (n < TZG_HDR) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzg: truncated file: %zu bytes, the header alone is %d", n, TZG_HDR);
        return NULL;
    }
    if (memcmp(d, TZG_MAGIC, 8) != 0) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzg: not a .tzg file (bad magic number)");
        return NULL;
    }
    uint32_t ver = tz_get_le16(d + 8);
    if (ver != 1 && ver != TZG_VERSION) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzg: unsupported version %u (this reader knows 1 and %d)", ver,
                      TZG_VERSION);
        return NULL;
    }
    if (tz_get_le32(d + 36) != crc(d, 36)) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzg: header checksum mismatch (corrupted header)");
        return NULL;
    }
    int backend = d[10], algo = d[11], flags = d[12];
    if ((backend != TRAZA_TZG_ZSTD && backend != TRAZA_TZG_XZ) || algo > TRAZA_G_CYCLITUR ||
        flags > (ver == 1 ? 1 : 3)) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzg: bad header fields (back end %d, algorithm %d, flags %d)", backend,
                      algo, flags);
        return NULL;
    }
    uint64_t raw = tz_get_le64(d + 16), clen = tz_get_le64(d + 24);
    if (clen != n - TZG_HDR) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzg: %s file: payload is %zu bytes, header says %llu",
                      clen > n - TZG_HDR ? "truncated" : "oversized", n - TZG_HDR, (unsigned long long)clen);
        return NULL;
    }
    if (raw > TZG_MAX_RAW) {
        traza_err_set(err, TRAZA_E_FORMAT, "tzg: payload size %llu is beyond the limit", (unsigned long long)raw);
        return NULL;
    }
    unsigned char *p = NULL;
    if (decompress_buf(backend, d + TZG_HDR, n - TZG_HDR, raw, &p, err) < 0)
        return NULL;
    if (crc(p, (size_t)raw) != tz_get_le32(d + 32)) {
        free(p);
        traza_err_set(err, TRAZA_E_FORMAT, "tzg: payload checksum mismatch (corrupted file)");
        return NULL;
    }
    traza_grammar *g = decode_payload(p, (size_t)raw, flags, algo, err);
    free(p);
    return g;
}

int traza_tzg_write(const traza_grammar *g, const char *path, int backend, traza_err *err)
{
    unsigned char *d;
    size_t n;
    if (traza_tzg_encode(g, backend, &d, &n, err) < 0)
        return -1;
    int rc = tz_outfile_write(path, d, n, err);
    free(d);
    return rc;
}

traza_grammar *traza_tzg_read(const char *path, traza_err *err)
{
    char *d;
    size_t n;
    if (tz_read_file(path, &d, &n, err) < 0)
        return NULL;
    traza_grammar *g = traza_tzg_decode((const unsigned char *)d, n, err);
    if (!g)
        traza_err_prefix(err, "%s: ", path);
    free(d);
    return g;
}
