/* ITFComp entropy back ends: the zero-run form, LZMA2 (xz), zstd and bzip2 packing of
 * one stream, and its unpacking, whole or in steps. */
#include <bzlib.h>
#include <limits.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "itf/itf_internal.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum { M_STORED = 0, M_XZ = 1, M_ZSTD = 2, M_BZIP2 = 3 /* version 5 */ };
#define M_ZRUN 0x80   /* version 4: the data holds the stream in zero-run form */
#define M_PRESET 0x40 /* version 5: coded with chunk 0's same stream as preset dictionary */

/* The number of zero bytes at p[0..n), 16 at a time with SSE2. At a value's start a
 * zero byte is a whole value 0, so this is a run of zero values: most of a predicted
 * stream, which byte by byte costs zrun_encode 4 % of an ES compression. */
static size_t zero_bytes(const uint8_t *p, size_t n)
{
    size_t k = 0;
#ifdef __SSE2__
    for (; k + 16 <= n; k += 16) {
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + k)), _mm_setzero_si128()));
        if (m != 0xFFFF)
            return k + (size_t)__builtin_ctz(~m);
    }
#endif
    while (k < n && p[k] == 0)
        k++;
    return k;
}

/* Zero-run form of a stream of varints: (uv run of zero values, uv next nonzero
 * value)* then uv the final run. The model streams are mostly zeros once the
 * predictions hit (99.97 % of the block sequence of a FreeRTOS trace, 60-90 % of the
 * Tarmac number streams): in this form LZMA has 2 to 1000 times fewer bytes to code
 * and to decode, for about the same packed size. Used when the stream parses as
 * canonical varints (so that the form gives the same bytes back) and at least half of
 * its values are 0. Returns 1 with *out (malloc'd) and *on, 0 when the stream does not
 * qualify, -1 on out of memory. */
static int zrun_encode(const uint8_t *in, size_t n, uint8_t **out, size_t *on)
{
    size_t zeros = 0, vals = 0;
    for (size_t i = 0; i < n;) { /* canonical varints only: no 0x80 0x00 tails, <= 10 bytes */
        if (in[i] == 0) {
            size_t z = zero_bytes(in + i, n - i);
            zeros += z, vals += z, i += z;
            continue;
        }
        size_t j = i;
        while (j < n && (in[j] & 0x80) && j - i < 9)
            j++;
        if (j >= n || (in[j] & 0x80) || (j > i && in[j] == 0) || (j - i == 9 && in[j] > 1))
            return 0;
        zeros += j == i && in[i] == 0;
        vals++;
        i = j + 1;
    }
    if (vals == 0 || 2 * zeros < vals)
        return 0;
    uint8_t *o = malloc(n + (vals - zeros) + 16);
    if (!o)
        return -1;
    size_t k = 0, run = 0;
    for (size_t i = 0; i < n;) {
        if (in[i] == 0) {
            size_t z = zero_bytes(in + i, n - i);
            run += z, i += z;
            continue;
        }
        size_t j = i;
        while (in[j] & 0x80)
            j++;
        if (j == i && in[i] == 0)
            run++;
        else {
            k += itf_put_uv_at(o + k, run);
            memcpy(o + k, in + i, j + 1 - i);
            k += j + 1 - i;
            run = 0;
        }
        i = j + 1;
    }
    k += itf_put_uv_at(o + k, run);
    *out = o;
    *on = k;
    return 1;
}

/* The stream back from its zero-run form in[0..n); -1 when the form is corrupt or the
 * stream would exceed ITF_MAX_RAW. */
static int zrun_decode(const uint8_t *in, size_t n, uint8_t **out, size_t *on)
{
    itf_rd r = {in, in + n, 0};
    uint64_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint8_t *o = pass ? *out : NULL;
        r.p = in;
        for (;;) {
            uint64_t run = itf_get_uv(&r);
            if (r.bad || run > ITF_MAX_RAW)
                return -1;
            if (pass)
                memset(o, 0, (size_t)run), o += run;
            else if ((total += run) > ITF_MAX_RAW)
                return -1;
            if (r.p == r.end)
                break;
            uint64_t v = itf_get_uv(&r);
            if (r.bad || v == 0)
                return -1;
            uint8_t tmp[10];
            size_t k = itf_put_uv_at(tmp, v);
            if (pass)
                memcpy(o, tmp, k), o += k;
            else if ((total += k) > ITF_MAX_RAW)
                return -1;
        }
        if (!pass) {
            *out = malloc((size_t)total + 1);
            if (!*out)
                return -2;
            *on = (size_t)total;
        }
    }
    return 0;
}

#define XZ_BT2_MAX (128u << 10)

/* LZMA2 options: preset 9, lc=lp=pb=0 (the streams are varints and ids, not text) and
 * a dictionary of the next power of two >= the preset dictionary plus the data, so
 * that the reader derives the same options from the lengths. The encoder may use a
 * larger dictionary (min_ds): distances never exceed the data, so the bytes do not
 * change, while equal sizes let a packer reuse its match finder's memory. */
static void xz_setup(lzma_filter f[2], lzma_options_lzma *o, size_t n, const itf_pre *pre, uint32_t min_ds)
{
    lzma_lzma_preset(o, 9);
    uint64_t need = (uint64_t)n + (pre ? pre->n : 0);
    uint32_t ds = 4096;
    while (ds < need && ds < (64u << 20))
        ds <<= 1;
    o->lc = 0;
    o->lp = 0;
    o->pb = 0;
    if (pre && pre->n) {
        o->preset_dict = pre->p;
        o->preset_dict_size = (uint32_t)(pre->n < ds ? pre->n : ds);
        if (pre->n > ds) /* liblzma keeps the dictionary's last bytes; say so explicitly */
            o->preset_dict = pre->p + (pre->n - ds);
    }
    o->dict_size = ds < min_ds ? min_ds : ds;
    /* The encoder's match finder (the reader does not depend on it): up to 128 KiB the
     * binary tree over 2-byte hashes, whose table is 256 kB where bt4's tables are
     * 516 kB, zeroed by every new encoder (65 page faults fewer per encoder; Tarmac
     * samples compressed 1.5-3 % faster, to the same sizes). On longer streams its
     * trees get deep, so bt4 stays there (at 1 MiB the generated traces were 4-7 %
     * slower to compress). */
    if (need <= XZ_BT2_MAX)
        o->mf = LZMA_MF_BT2;
    f[0].id = LZMA_FILTER_LZMA2;
    f[0].options = o;
    f[1].id = LZMA_VLI_UNKNOWN;
    f[1].options = NULL;
}

/* Encoder state kept between streams: liblzma reuses an encoder's memory when the
 * next stream has the same dictionary size, zstd a compression context. Creating
 * them per stream cost a fresh 1.5 MB match finder (page faults, zeroing) each time:
 * 28 % of the page faults of a FreeRTOS compression. */
struct itf_packer {
    lzma_stream xz;
    ZSTD_CCtx *zc;
};

/* liblzma's allocator for encoders. With the default one it callocs its hash table:
 * fresh pages, which the match finder reads before it writes them, so each is first
 * mapped to the shared zero page, then copied on the first write, and that copy must
 * flush the old mapping from the other core's TLB (an interrupt through the
 * hypervisor): about 90 such shootdowns per Tarmac compression. With an allocator of
 * its own, liblzma zeroes the table itself, so each page is first written. */
static void *xz_alloc(void *opaque, size_t nmemb, size_t size)
{
    (void)opaque;
    return size && nmemb > SIZE_MAX / size ? NULL : malloc(nmemb * size);
}
static void xz_free(void *opaque, void *p)
{
    (void)opaque;
    free(p);
}
static const lzma_allocator xz_allocator = {xz_alloc, xz_free, NULL};

itf_packer *itf_packer_new(void)
{
    itf_packer *pk = calloc(1, sizeof *pk);
    if (pk) {
        lzma_stream init = LZMA_STREAM_INIT;
        pk->xz = init;
        pk->xz.allocator = &xz_allocator;
    }
    return pk;
}

void itf_packer_free(itf_packer *pk)
{
    if (!pk)
        return;
    lzma_end(&pk->xz);
    ZSTD_freeCCtx(pk->zc);
    free(pk);
}

/* Smallest encoder dictionary: up to here liblzma's hash table has its minimum size,
 * so a larger dictionary changes no byte of the output. */
#define XZ_REUSE_DS (128u << 10)

/* Raw LZMA2 into out[0..cap) through the packer's encoder (or a one-shot one);
 * LZMA_BUF_ERROR when it does not fit. */
static lzma_ret xz_encode(itf_packer *pk, const uint8_t *in, size_t n, const itf_pre *pre, uint8_t *out, size_t *pos,
                          size_t cap)
{
    lzma_filter f[2];
    lzma_options_lzma o;
    xz_setup(f, &o, n, pre, pk ? XZ_REUSE_DS : 0);
    if (!pk)
        return lzma_raw_buffer_encode(f, &xz_allocator, in, n, out, pos, cap);
    lzma_ret rc = lzma_raw_encoder(&pk->xz, f);
    if (rc != LZMA_OK)
        return rc;
    pk->xz.next_in = in;
    pk->xz.avail_in = n;
    pk->xz.next_out = out;
    pk->xz.avail_out = cap;
    do
        rc = lzma_code(&pk->xz, LZMA_FINISH);
    while (rc == LZMA_OK && pk->xz.avail_out > 0);
    *pos = cap - pk->xz.avail_out;
    return rc == LZMA_STREAM_END ? LZMA_OK : rc == LZMA_OK ? LZMA_BUF_ERROR : rc;
}

/* A first stream costs a fresh encoder about 1.5 ms more than the next ones (its hash
 * table, match finder and price tables are first touched then: page faults). Starting
 * it on a few bytes touches that memory ahead of time, e.g. while the trace is parsed:
 * liblzma zeroes the whole hash table itself with our allocator. (Coding 2 KB, then
 * starting again, would cost 1 ms per encoder of LZMA's optimum parser, and on a slow
 * minute the parse would wait for it.) */
void itf_packer_warm(itf_packer *pk)
{
    static const uint8_t in[16] = {1, 0, 2, 0, 0, 3, 1, 0, 0, 0, 4, 2, 0, 1, 0, 5};
    uint8_t out[256];
    size_t pos = 0;
    (void)xz_encode(pk, in, sizeof in, NULL, out, &pos, sizeof out);
}

/* zstd at the level given (19, or ITF_ZSTD_FAST), with the preset dictionary as a
 * raw-content prefix. Returns the packed size, 0 when it would not be smaller than n,
 * or -1 (zstd error in *e). */
static long zstd_pack(itf_packer *pk, int level, const uint8_t *in, size_t n, const itf_pre *pre, uint8_t *tmp,
                      size_t cap, const char **e)
{
    ZSTD_CCtx *c = pk && pk->zc ? pk->zc : ZSTD_createCCtx();
    if (!c) {
        *e = "out of memory";
        return -1;
    }
    size_t r = ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    /* zstd's content checksum (4 bytes): a damaged stream then fails to decode, as
     * LZMA2's range decoder makes it fail, instead of decoding to other bytes */
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    if (!ZSTD_isError(r) && pre && pre->n)
        r = ZSTD_CCtx_refPrefix(c, pre->p, pre->n);
    if (!ZSTD_isError(r))
        r = ZSTD_compress2(c, tmp, cap, in, n);
    if (pk)
        pk->zc = c;
    else
        ZSTD_freeCCtx(c);
    if (ZSTD_isError(r)) {
        *e = ZSTD_getErrorName(r);
        return -1;
    }
    return r < n ? (long)r : 0;
}

/* Codes in[0..n) with the back end (zstd at zlevel) into tmp (cap bytes); the packed
 * size, 0 when it is not smaller than n, -1 on error (in err). */
static long backend_pack(itf_packer *pk, int backend, int zlevel, const uint8_t *in, size_t n, const itf_pre *pre,
                         uint8_t *tmp, size_t cap, traza_err *err)
{
    if (backend == TRAZA_ITF_XZ) {
        size_t pos = 0;
        lzma_ret rc = xz_encode(pk, in, n, pre, tmp, &pos, cap);
        if (rc == LZMA_OK)
            return pos < n ? (long)pos : 0;
        if (rc == LZMA_BUF_ERROR)
            return 0;
        return traza_err_set(err, rc == LZMA_MEM_ERROR ? TRAZA_E_NOMEM : TRAZA_E_INTERNAL,
                             "itf: lzma encoder failed (code %d)", (int)rc);
    }
    const char *e = NULL;
    long r = zstd_pack(pk, zlevel, in, n, pre, tmp, cap, &e);
    if (r < 0)
        return traza_err_set(err, TRAZA_E_INTERNAL, "itf: zstd: %s", e);
    return r;
}

/* bzip2 (libbz2) with the smallest block size that holds the stream (the reader's
 * memory follows the block size). The packed size, or 0 when not smaller than n. */
static long bz2_pack(const uint8_t *in, size_t n, uint8_t *tmp, size_t cap, traza_err *err)
{
    if (n > UINT_MAX || cap > UINT_MAX)
        return 0;
    int level = (int)(n / 99000 + 1);
    unsigned int tl = (unsigned int)cap;
    int rc = BZ2_bzBuffToBuffCompress((char *)tmp, &tl, (char *)(uintptr_t)in, (unsigned int)n, level < 9 ? level : 9,
                                      0, 0);
    if (rc == BZ_OUTBUFF_FULL)
        return 0;
    if (rc != BZ_OK)
        return traza_err_set(err, rc == BZ_MEM_ERROR ? TRAZA_E_NOMEM : TRAZA_E_INTERNAL,
                             "itf: bzip2 encoder failed (code %d)", rc);
    return tl < n ? (long)tl : 0;
}

long itf_pack_stream(itf_packer *pk, int backend, const uint8_t *in, size_t n, const itf_pre *pre, tz_buf *form, tz_buf *out,
                     traza_err *err)
{
    int trybz = (backend & ITF_PACK_BZIP2) != 0, zlevel = backend & ITF_PACK_ZFAST ? ITF_ZSTD_FAST : 19;
    backend &= ~(ITF_PACK_BZIP2 | ITF_PACK_ZFAST);
    size_t start = out->len;
    uint8_t *tmp = NULL, *tmp2 = NULL, *zr = NULL;
    size_t tl = 0, zn = 0;
    long rc = -1;
    int zrun = zrun_encode(in, n, &zr, &zn);
    if (zrun < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "itf: out of memory packing %zu bytes", n);
    if (zrun) {
        in = zr;
        n = zn;
    }
    if (form && (tz_buf_put(form, in, n), form->oom))
        goto nomem;
    int method = M_STORED, usepre = pre && pre->n;
    if (n > 0 && (backend == TRAZA_ITF_XZ || backend == TRAZA_ITF_ZSTD)) {
        size_t cap = backend == TRAZA_ITF_XZ ? n + n / 4 + 1024 : ZSTD_compressBound(n);
        /* The dictionary's instruction texts, xz back end: bzip2 too, kept when
         * smaller. Its sorting transform finds the operand patterns of disassembly
         * that LZMA's matches miss: 13-17 % smaller on the generated traces' texts,
         * for about 0.5 ms more to decode 50 KB (doc/formats/tzi.md). (On the Tarmac
         * skeletons it saved 0.3-0.7 % of the file for 3 % of the decoding time.) */
        long z = 0;
        if (trybz && backend == TRAZA_ITF_XZ && !usepre && n >= 256) {
            if (!(tmp2 = malloc(cap)))
                goto nomem;
            if ((z = bz2_pack(in, n, tmp2, cap, err)) < 0)
                goto out;
        }
        /* LZMA is not tried on texts of 16 KiB or more that bzip2 packs to a quarter
         * or less: on all seven generated traces' texts (20-56 KB, bzip2 at 0.16 of
         * the raw size) bzip2 won by 12-17 %, and the LZMA attempt alone was the
         * last 10-13 ms of their compression, with nothing left to overlap it.
         * Otherwise with chunk 0's stream as preset dictionary whenever there is one:
         * coding both ways to keep the smaller cost 15 % of a bitcount compression
         * and changed the seven generated traces by at most one byte. */
        if (!(z > 0 && n >= 16384 && (size_t)z * 4 <= n)) {
            if (!(tmp = malloc(cap)))
                goto nomem;
            long a = backend_pack(pk, backend, zlevel, in, n, usepre ? pre : NULL, tmp, cap, err);
            if (a < 0)
                goto out;
            if (a > 0) {
                method = backend == TRAZA_ITF_XZ ? M_XZ : M_ZSTD;
                tl = (size_t)a;
            }
        }
        if (z > 0 && (method == M_STORED || (size_t)z < tl)) {
            uint8_t *t = tmp;
            tmp = tmp2, tmp2 = t, tl = (size_t)z, method = M_BZIP2;
        }
    }
    int preset_bit = usepre && (method == M_XZ || method == M_ZSTD) ? M_PRESET : 0;
    tz_buf_putc(out, (char)(method | (zrun ? M_ZRUN : 0) | preset_bit));
    itf_put_uv(out, n);
    itf_put_uv(out, method == M_STORED ? n : tl);
    tz_buf_put(out, method == M_STORED ? in : tmp, method == M_STORED ? n : tl);
    if (out->oom)
        goto nomem;
    rc = (long)(out->len - start);
    goto out;
nomem:
    rc = traza_err_set(err, TRAZA_E_NOMEM, "itf: out of memory packing %zu bytes", n);
out:
    free(tmp);
    free(tmp2);
    free(zr);
    return rc;
}

int itf_stream_wants_pre(const itf_rd *r, int version)
{
    return itf_has_presets((unsigned)version) && r->p < r->end && (*r->p & M_PRESET) && (*r->p & 0x3f) != M_STORED;
}

int itf_skip_stream(itf_rd *r)
{
    if (r->p >= r->end)
        return -1;
    r->p++;
    (void)itf_get_uv(r);
    uint64_t len = itf_get_uv(r);
    if (r->bad || len > (uint64_t)(r->end - r->p))
        return -1;
    r->p += len;
    return 0;
}

int itf_stream_empty(const uint8_t *p, size_t n) { return n == 3 && p[0] == 0 && p[1] == 0 && p[2] == 0; }

int itf_frame_compact(tz_buf *payload, int nstreams)
{
    if (payload->oom)
        return -2;
    if (nstreams > 63)
        return -1;
    itf_rd d = {(const uint8_t *)payload->s, (const uint8_t *)payload->s + payload->len, 0};
    const uint8_t *at[64];
    size_t len[64];
    uint64_t mask = 0;
    for (int k = 0; k < nstreams; k++) {
        at[k] = d.p;
        if (itf_skip_stream(&d) < 0)
            return -1;
        len[k] = (size_t)(d.p - at[k]);
        if (!itf_stream_empty(at[k], len[k]))
            mask |= (uint64_t)1 << k;
    }
    if (d.p != d.end)
        return -1;
    tz_buf c;
    tz_buf_init(&c);
    itf_put_uv(&c, mask);
    size_t head = c.len;
    for (int k = 0; k < nstreams; k++)
        if (mask >> k & 1)
            tz_buf_put(&c, at[k], len[k]);
    if (c.oom) {
        tz_buf_free(&c);
        return -2;
    }
    tz_buf_free(payload);
    *payload = c;
    return (int)head;
}

int itf_frame_expand(uint8_t **payload, size_t *n, int nstreams, traza_err *err)
{
    itf_rd d = {*payload, *payload + *n, 0};
    uint64_t mask = itf_get_uv(&d);
    if (d.bad)
        return traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt frame: no stream mask");
    if (nstreams < 64 && mask >> nstreams)
        return traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt frame: it names stream %d, past its %d streams",
                             63 - __builtin_clzll(mask), nstreams);
    size_t cap = *n + 3 * (size_t)nstreams + 1;
    uint8_t *o = malloc(cap), *w = o;
    if (!o)
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
    for (int k = 0; k < nstreams; k++) {
        if (!(mask >> k & 1)) {
            *w++ = 0, *w++ = 0, *w++ = 0;
            continue;
        }
        const uint8_t *s = d.p;
        if (itf_skip_stream(&d) < 0) {
            free(o);
            return traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt frame: stream %d is cut short", k);
        }
        memcpy(w, s, (size_t)(d.p - s));
        w += d.p - s;
    }
    if (d.p != d.end) {
        free(o);
        return traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt frame: %zu bytes after its streams", (size_t)(d.end - d.p));
    }
    free(*payload);
    *payload = o;
    *n = (size_t)(w - o);
    return 0;
}

void itf_zpool_init(itf_zpool *p)
{
    memset(p, 0, sizeof *p);
    p->ok = pthread_mutex_init(&p->mu, NULL) == 0;
}

void itf_zpool_free(itf_zpool *p)
{
    for (int i = 0; i < p->n; i++)
        ZSTD_freeDCtx(p->d[i]);
    if (p->ok)
        pthread_mutex_destroy(&p->mu);
    memset(p, 0, sizeof *p);
}

/* A context from the pool, or a new one (NULL: out of memory). */
static ZSTD_DCtx *zpool_get(itf_zpool *p)
{
    ZSTD_DCtx *d = NULL;
    if (p && p->ok) {
        pthread_mutex_lock(&p->mu);
        if (p->n)
            d = p->d[--p->n];
        pthread_mutex_unlock(&p->mu);
    }
    return d ? d : ZSTD_createDCtx();
}

/* Back to the pool (reset: no prefix, no error state), or freed when it is full. */
static void zpool_put(itf_zpool *p, ZSTD_DCtx *d)
{
    if (p && p->ok && !ZSTD_isError(ZSTD_DCtx_reset(d, ZSTD_reset_session_and_parameters))) {
        pthread_mutex_lock(&p->mu);
        int kept = p->n < ITF_ZPOOL;
        if (kept)
            p->d[p->n++] = d;
        pthread_mutex_unlock(&p->mu);
        if (kept)
            return;
    }
    ZSTD_freeDCtx(d);
}

static int zstd_unpack(itf_zpool *zp, const uint8_t *in, size_t len, const itf_pre *pre, uint8_t *o, size_t raw,
                       const char **e)
{
    ZSTD_DCtx *d = zpool_get(zp);
    if (!d) {
        *e = "out of memory";
        return -1;
    }
    size_t z = pre ? ZSTD_DCtx_refPrefix(d, pre->p, pre->n) : 0;
    if (!ZSTD_isError(z))
        z = ZSTD_decompressDCtx(d, o, raw, in, len);
    zpool_put(zp, d);
    if (ZSTD_isError(z) || z != raw) {
        *e = ZSTD_isError(z) ? ZSTD_getErrorName(z) : "length mismatch";
        return -1;
    }
    return 0;
}

/* Reads and checks a stream header: its method (without the flag bits), whether it is
 * in zero-run form, its stored and packed lengths; r is left at the packed bytes. The
 * preset dictionary is *pre when the stream names one, else NULL. */
static int stream_head(itf_rd *r, int version, const itf_pre **pre, int *methodp, int *zrunp, uint64_t *rawp,
                       uint64_t *lenp, traza_err *err)
{
    if (r->p >= r->end)
        return traza_err_set(err, TRAZA_E_FORMAT, "tzi: stream header truncated");
    int method = *r->p++;
    int zrun = itf_has_zero_runs((unsigned)version) && (method & M_ZRUN);
    int usepre = itf_has_presets((unsigned)version) && (method & M_PRESET);
    method &= ~((zrun ? M_ZRUN : 0) | (usepre ? M_PRESET : 0));
    uint64_t raw = itf_get_uv(r), len = itf_get_uv(r);
    if (r->bad)
        return traza_err_set(err, TRAZA_E_FORMAT, "tzi: stream header truncated");
    if (method > (itf_has_bzip2((unsigned)version) ? M_BZIP2 : M_ZSTD))
        return traza_err_set(err, TRAZA_E_FORMAT, "tzi: unknown stream method %d (expected 0..%d)", method,
                             itf_has_bzip2((unsigned)version) ? M_BZIP2 : M_ZSTD);
    if (usepre && (method == M_STORED || method == M_BZIP2 || !*pre || !(*pre)->n))
        return traza_err_set(err, TRAZA_E_FORMAT, "tzi: stream names a preset dictionary where there is none%s",
                             method == M_STORED  ? " (stored stream)"
                             : method == M_BZIP2 ? " (bzip2 stream)"
                                                 : " (chunk 0, or chunk 0's stream is empty)");
    if (!usepre)
        *pre = NULL;
    if (len > (uint64_t)(r->end - r->p))
        return traza_err_set(err, TRAZA_E_FORMAT, "tzi: stream of %llu bytes exceeds its section (%zu left)",
                             (unsigned long long)len, (size_t)(r->end - r->p));
    if (raw > ITF_MAX_RAW)
        return traza_err_set(err, TRAZA_E_FORMAT, "tzi: stream claims %llu decoded bytes (limit %u)",
                             (unsigned long long)raw, ITF_MAX_RAW);
    if (method == M_STORED && raw != len)
        return traza_err_set(err, TRAZA_E_FORMAT, "tzi: stored stream length %llu != %llu",
                             (unsigned long long)raw, (unsigned long long)len);
    *methodp = method, *zrunp = zrun, *rawp = raw, *lenp = len;
    return 0;
}

/* bzip2 stream in[0..len) into o[0..raw); -1 with err unless exactly raw bytes came. */
static int bz2_unpack(const uint8_t *in, uint64_t len, uint8_t *o, uint64_t raw, traza_err *err)
{
    unsigned int ol = (unsigned int)raw;
    int rc = len > UINT_MAX ? BZ_DATA_ERROR
                            : BZ2_bzBuffToBuffDecompress((char *)o, &ol, (char *)(uintptr_t)in, (unsigned int)len, 0, 0);
    if (rc == BZ_OK && ol == raw)
        return 0;
    if (rc == BZ_MEM_ERROR)
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory (bzip2)");
    return traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt bzip2 stream (bzip2 code %d, %u of %llu bytes)", rc,
                         rc == BZ_OK ? ol : 0u, (unsigned long long)raw);
}

static int xz_corrupt(traza_err *err, int rc, size_t op, uint64_t raw)
{
    return traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt xz stream (lzma code %d, %zu of %llu bytes)", rc, op,
                         (unsigned long long)raw);
}

int itf_unpack_stream(itf_zpool *zp, itf_rd *r, int version, const itf_pre *pre, uint8_t **out, size_t *n,
                      size_t *packed, uint8_t **form, size_t *nform, traza_err *err)
{
    const uint8_t *st = r->p;
    if (out)
        *out = NULL;
    if (form)
        *form = NULL, *nform = 0;
    int method, zrun;
    uint64_t raw, len;
    if (stream_head(r, version, &pre, &method, &zrun, &raw, &len, err) < 0)
        return -1;
    uint8_t *o = malloc((size_t)raw + 1);
    if (!o)
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory (%llu bytes)", (unsigned long long)raw);
    if (method == M_STORED) {
        if (raw)
            memcpy(o, r->p, (size_t)raw);
    } else if (method == M_XZ) {
        lzma_filter f[2];
        lzma_options_lzma opt;
        xz_setup(f, &opt, (size_t)raw, pre, 0);
        size_t ip = 0, op = 0;
        lzma_ret rc = lzma_raw_buffer_decode(f, NULL, r->p, &ip, (size_t)len, o, &op, (size_t)raw);
        if (rc != LZMA_OK || op != raw || ip != len) {
            free(o);
            return xz_corrupt(err, (int)rc, op, raw);
        }
    } else if (method == M_BZIP2) {
        if (bz2_unpack(r->p, len, o, raw, err) < 0) {
            free(o);
            return -1;
        }
    } else {
        const char *e = NULL;
        if (zstd_unpack(zp, r->p, (size_t)len, pre, o, (size_t)raw, &e) < 0) {
            free(o);
            return traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt zstd stream (%s)", e);
        }
    }
    o[raw] = 0;
    r->p += len;
    if (form && !out) { /* the packed form only */
        *form = o;
        *nform = (size_t)raw;
        if (packed)
            *packed = (size_t)(r->p - st);
        return 0;
    }
    if (form) { /* the packed form, a copy of its own */
        if (!(*form = malloc((size_t)raw + 1))) {
            free(o);
            return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
        } else {
            memcpy(*form, o, (size_t)raw);
            *nform = (size_t)raw;
        }
    }
    if (zrun) {
        uint8_t *x = NULL;
        size_t xn = 0;
        int zr = zrun_decode(o, (size_t)raw, &x, &xn);
        free(o);
        if (zr < 0 && form) {
            free(*form);
            *form = NULL, *nform = 0;
        }
        if (zr == -2)
            return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
        if (zr < 0)
            return traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt zero-run stream");
        x[xn] = 0;
        o = x;
        raw = xn;
    }
    *out = o;
    *n = (size_t)raw;
    if (packed)
        *packed = (size_t)(r->p - st);
    return 0;
}

/* ---------------- a stream unpacked in steps ----------------
 * The line model's decoder reads its streams while a second thread still unpacks
 * them (itf_read_line.c): LZMA decodes in steps of any size, so the stream is there in
 * its stored form (zero-run form included, which the reader reads as it is) up to
 * `done`. zstd and bzip2 streams are decoded whole at the first step. */
int itf_sunpack_init(itf_sunpack *s, itf_zpool *zp, itf_rd *r, int version, const itf_pre *pre, traza_err *err)
{
    memset(s, 0, sizeof *s);
    s->zp = zp;
    uint64_t raw, len;
    if (stream_head(r, version, &pre, &s->method, &s->zrun, &raw, &len, err) < 0)
        return -1;
    s->in = r->p;
    s->len = (size_t)len;
    s->raw = (size_t)raw;
    r->p += len;
    if (!(s->out = malloc(s->raw + 1)))
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory (%zu bytes)", s->raw);
    s->out[s->raw] = 0;
    if (s->method == M_STORED) {
        if (s->raw)
            memcpy(s->out, s->in, s->raw);
        s->done = s->raw;
        s->finished = 1;
    } else { /* (an xz decoder is made at the first step: by the thread that takes it) */
        s->pre = pre ? *pre : (itf_pre){NULL, 0};
    }
    return 0;
}

/* The xz decoder of a stream, at its first step. */
static int sunpack_xz_start(itf_sunpack *s, traza_err *err)
{
    lzma_stream *x = malloc(sizeof *x);
    if (!x)
        return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory");
    *x = (lzma_stream)LZMA_STREAM_INIT;
    lzma_filter f[2];
    lzma_options_lzma opt;
    xz_setup(f, &opt, s->raw, s->pre.n ? &s->pre : NULL, 0);
    lzma_ret rc = lzma_raw_decoder(x, f);
    if (rc != LZMA_OK) {
        free(x);
        return rc == LZMA_MEM_ERROR ? traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory (lzma decoder)")
                                    : xz_corrupt(err, (int)rc, 0, s->raw);
    }
    x->next_in = s->in;
    x->avail_in = s->len;
    s->xz = x;
    return 0;
}

int itf_sunpack_step(itf_sunpack *s, size_t upto, traza_err *err)
{
    /* finished: all of it there and its end checked (an empty xz stream's too) */
    if (s->finished || (s->done >= upto && upto < s->raw))
        return 0;
    if (s->method == M_BZIP2 || s->method == M_ZSTD) {
        const char *e = NULL;
        const itf_pre *pre = s->pre.n ? &s->pre : NULL;
        if (s->method == M_BZIP2 ? bz2_unpack(s->in, s->len, s->out, s->raw, err) < 0
                                 : zstd_unpack(s->zp, s->in, s->len, pre, s->out, s->raw, &e) < 0)
            return e ? traza_err_set(err, TRAZA_E_FORMAT, "tzi: corrupt zstd stream (%s)", e) : -1;
        s->done = s->raw;
        s->finished = 1;
        return 0;
    }
    if (!s->xz && sunpack_xz_start(s, err) < 0)
        return -1;
    lzma_stream *x = s->xz;
    /* the last step may write one byte past raw (out has room): a stream that would
     * go on is then caught as corrupt instead of being cut */
    int last = upto >= s->raw;
    x->next_out = s->out + s->done;
    x->avail_out = (last ? s->raw + 1 : upto) - s->done;
    lzma_ret rc = LZMA_OK;
    while (x->avail_out > 0 && rc == LZMA_OK)
        rc = lzma_code(x, LZMA_RUN);
    s->done = (size_t)(x->next_out - s->out);
    if (rc == LZMA_STREAM_END ? s->done != s->raw || x->avail_in != 0 : rc != LZMA_OK || last) {
        lzma_ret code = rc == LZMA_STREAM_END || (rc == LZMA_OK && last) ? LZMA_DATA_ERROR : rc;
        if (code == LZMA_MEM_ERROR)
            return traza_err_set(err, TRAZA_E_NOMEM, "tzi: out of memory (lzma decoder)");
        return xz_corrupt(err, (int)code, s->done, s->raw);
    }
    s->finished = rc == LZMA_STREAM_END;
    return 0;
}

void itf_sunpack_end(itf_sunpack *s)
{
    if (s->xz) {
        lzma_end(s->xz);
        free(s->xz);
        s->xz = NULL;
    }
}
