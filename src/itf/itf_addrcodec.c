/* ITFComp address codecs (raw, periodic, pattern, distribution, sequitur: one per
 * instruction's data addresses in a chunk) and the cache model that reports what a
 * lossy codec changes. */
#include <stdlib.h>
#include <string.h>
#include "itf/itf_internal.h"
#include "traza/grammar.h"

/* Smallest period p of d[0..n) (d[i] = d[i mod p]); n when aperiodic. */
size_t itf_period(const int64_t *d, size_t n, size_t *f)
{
    if (n == 0)
        return 0;
    f[0] = 0;
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        while (k > 0 && d[i] != d[k])
            k = f[k - 1];
        if (d[i] == d[k])
            k++;
        f[i] = k;
    }
    return n - f[n - 1];
}

static size_t uvlen(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}
static size_t svlen(int64_t v) { return uvlen(itf_zz(v)); }

static uint64_t xs64(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

typedef struct dv { int64_t v; uint64_t c; } dv;
static int dv_cmp_v(const void *a, const void *b)
{
    int64_t x = ((const dv *)a)->v, y = ((const dv *)b)->v;
    return x < y ? -1 : x > y;
}
static int dv_cmp_c(const void *a, const void *b)
{
    uint64_t x = ((const dv *)a)->c, y = ((const dv *)b)->c;
    if (x != y)
        return x > y ? -1 : 1;
    return dv_cmp_v(a, b);
}

static const size_t PAT_TRY[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};

/* Sequitur on the deltas: the grammar's rules, each as uv body length then per
 * symbol uv tag = value << 2 | is_rule | (rep > 1) << 1 (then uv rep); a terminal's
 * value is the zig-zag delta. Returns the encoded size, or 0 on failure. */
static size_t seq_encode(const int64_t *x, size_t L, tz_buf *out)
{
    uint64_t *z = malloc((L + 1) * sizeof *z);
    if (!z)
        return 0;
    for (size_t i = 0; i < L; i++)
        z[i] = itf_zz(x[i]);
    traza_err e;
    memset(&e, 0, sizeof e);
    traza_grammar *g = traza_grammar_build(z, L, TRAZA_G_SEQUITUR, NULL, &e);
    free(z);
    if (!g)
        return 0;
    size_t n0 = out->len;
    itf_put_uv(out, g->nrules);
    for (uint32_t r = 0; r < g->nrules; r++) {
        itf_put_uv(out, g->off[r + 1] - g->off[r]);
        for (uint64_t i = g->off[r]; i < g->off[r + 1]; i++) {
            const traza_gsym *y = &g->syms[i];
            itf_put_uv(out, y->value << 2 | (y->is_rule ? 1u : 0u) | (y->rep > 1 ? 2u : 0u));
            if (y->rep > 1)
                itf_put_uv(out, y->rep);
        }
    }
    traza_grammar_free(g);
    return out->oom ? 0 : out->len - n0;
}

typedef struct seq_fill {
    uint32_t *out;
    size_t i, n;
} seq_fill;
static int seq_put(void *u, uint64_t sym)
{
    seq_fill *f = u;
    if (f->i >= f->n)
        return 1;
    int64_t v = itf_unzz(sym);
    f->out[f->i + 1] = (uint32_t)(f->out[f->i] + (uint64_t)v);
    f->i++;
    return 0;
}

static int seq_decode(itf_rd *in, uint32_t *out, size_t L)
{
    uint64_t nr = itf_get_uv(in);
    if (in->bad || nr == 0 || nr > (uint64_t)(in->end - in->p) + 1 || nr > UINT32_MAX)
        return -1;
    traza_grammar *g = calloc(1, sizeof *g);
    if (!g)
        return -1;
    g->algo = TRAZA_G_SEQUITUR;
    g->nrules = (uint32_t)nr;
    g->off = malloc((nr + 1) * sizeof *g->off);
    g->is_cycle = calloc(nr, 1);
    size_t cap = 0, ns = 0;
    int rc = -1;
    if (!g->off || !g->is_cycle)
        goto out;
    g->off[0] = 0;
    for (uint64_t r = 0; r < nr; r++) {
        uint64_t bl = itf_get_uv(in);
        if (in->bad || bl > (uint64_t)(in->end - in->p))
            goto out;
        if (TZ_GROW(g->syms, cap, ns + bl + 1) < 0)
            goto out;
        for (uint64_t i = 0; i < bl; i++) {
            uint64_t t = itf_get_uv(in);
            traza_gsym *y = &g->syms[ns++];
            y->value = t >> 2;
            y->is_rule = (uint32_t)(t & 1);
            y->rep = (t & 2) ? itf_get_uv(in) : 1;
            if (in->bad || y->rep < 2 * ((t & 2) >> 1))
                goto out;
        }
        g->off[r + 1] = ns;
    }
    traza_err e;
    memset(&e, 0, sizeof e);
    if (traza_grammar_finish(g, &e) < 0 || g->len[0] != L)
        goto out;
    seq_fill f = {out, 0, L};
    if (traza_grammar_extract(g, 0, L, seq_put, &f, &e) < 0 || f.i != L)
        goto out;
    rc = 0;
out:
    traza_grammar_free(g);
    return rc;
}

/* Autocorrelation of the delta sequence at lags 1..64: the share of positions whose
 * delta equals the one p earlier. Picks the smallest lag within 1 % of the best, if
 * that best reaches 90 %. */
static int noisy_period(const int64_t *x, size_t L, size_t *p, size_t *score)
{
    size_t maxp = L / 4 < 64 ? L / 4 : 64, best = 0, bp = 0;
    size_t sc[65] = {0};
    for (size_t q = 1; q <= maxp; q++) {
        size_t m = 0;
        for (size_t i = q; i < L; i++)
            m += x[i] == x[i - q];
        sc[q] = m * 1000 / (L - q);
        if (sc[q] > best)
            best = sc[q], bp = q;
    }
    if (best < 900)
        return 0;
    for (size_t q = 1; q < bp; q++)
        if (sc[q] + 10 >= best) {
            bp = q;
            break;
        }
    *p = bp;
    *score = sc[bp];
    return 1;
}

/* Most frequent value of x[j], x[j+p], x[j+2p], ... (ties: the first seen). */
static int64_t phase_mode(const int64_t *x, size_t L, size_t p, size_t j)
{
    int64_t cand = x[j];
    size_t cnt = 0;
    for (size_t i = j; i < L; i += p) { /* Boyer-Moore majority vote */
        if (cnt == 0)
            cand = x[i], cnt = 1;
        else
            cnt += x[i] == cand ? 1 : (size_t)-1;
    }
    return cand;
}

int itf_mem_encode(const int64_t *d, size_t n, int want, int lossy, itf_enc_streams *s, size_t *f, uint64_t seed)
{
    (void)seed;
    const int64_t *x = d + 1;
    size_t L = n ? n - 1 : 0;
    size_t rawcost = 0;
    for (size_t i = 0; i < L; i++)
        rawcost += svlen(x[i]);
    size_t p = L ? itf_period(x, L, f) : 0;
    int per_ok = L >= 2 && p * 2 <= L;
    size_t percost = 0;
    for (size_t i = 0; per_ok && i < p; i++)
        percost += svlen(x[i]);
    /* pattern: periodic after an initial part, or before a final part */
    size_t bk = 0, bm = 0, bp = 0, bcost = SIZE_MAX;
    if (L >= 8 && (want == TRAZA_ITF_MEM_AUTO || want == TRAZA_ITF_MEM_PATTERN) && !per_ok) {
        for (size_t t = 0; t < sizeof PAT_TRY / sizeof PAT_TRY[0] && PAT_TRY[t] * 2 < L; t++) {
            size_t k = PAT_TRY[t];
            size_t q = itf_period(x + k, L - k, f);
            if (q * 2 <= L - k && k + q < bcost) {
                bcost = k + q;
                bk = k, bm = 0, bp = q;
            }
            q = itf_period(x, L - k, f);
            if (q * 2 <= L - k && k + q < bcost) {
                bcost = k + q;
                bk = 0, bm = k, bp = q;
            }
        }
    }
    /* offsets from the smallest address, in units of their gcd */
    uint32_t base = 0, gcd = 0, owidth = 0;
    size_t offcost = SIZE_MAX;
    if (L >= 1 && (want == TRAZA_ITF_MEM_AUTO || want == TRAZA_ITF_MEM_RAW)) {
        uint32_t a = (uint32_t)d[0];
        base = UINT32_MAX;
        for (size_t i = 0; i < L; i++) {
            a = (uint32_t)(a + (uint64_t)x[i]);
            if (a < base)
                base = a;
        }
        a = (uint32_t)d[0];
        for (size_t i = 0; i < L; i++) {
            a = (uint32_t)(a + (uint64_t)x[i]);
            uint32_t v = a - base, t = gcd;
            while (v) { /* gcd(t, v) */
                uint32_t r = t % v;
                t = v;
                v = r;
            }
            gcd = t;
        }
        if (gcd == 0)
            gcd = 1;
        a = (uint32_t)d[0];
        uint32_t mx = 0;
        for (size_t i = 0; i < L; i++) {
            a = (uint32_t)(a + (uint64_t)x[i]);
            if ((a - base) / gcd > mx)
                mx = (a - base) / gcd;
        }
        owidth = mx < 0x100 ? 1 : mx < 0x10000 ? 2 : mx < 0x1000000 ? 3 : 4;
        offcost = svlen((int64_t)(int32_t)(base - (uint32_t)d[0])) + uvlen(gcd) + 1 + L * owidth;
    }
    size_t np_p = 0, np_score = 0;
    int codec = TRAZA_ITF_MEM_RAW;
    if (want == TRAZA_ITF_MEM_DISTRIBUTION && lossy && L >= 1)
        codec = TRAZA_ITF_MEM_DISTRIBUTION;
    else if (want == TRAZA_ITF_MEM_RAW || want == TRAZA_ITF_MEM_SEQUITUR)
        codec = TRAZA_ITF_MEM_RAW;
    else if (per_ok && percost < rawcost)
        codec = TRAZA_ITF_MEM_PERIODIC;
    else if (bcost != SIZE_MAX && bcost < L)
        codec = TRAZA_ITF_MEM_PATTERN;
    else if (lossy && (want == TRAZA_ITF_MEM_AUTO || want == TRAZA_ITF_MEM_PATTERN) && L >= 16 &&
             noisy_period(x, L, &np_p, &np_score)) {
        /* noisy periodic (lossy): the lag of highest autocorrelation (share of equal
         * deltas at that distance, at least 90 %), the mode of each phase as period */
        itf_put_uv(s->hdr, ITF_CODEC_NOISY);
        itf_put_uv(s->hdr, np_p);
        for (size_t j = 0; j < np_p; j++)
            itf_put_sv(s->pat, phase_mode(x, L, np_p, j));
        return TRAZA_ITF_MEM_PATTERN;
    } else if (lossy && want == TRAZA_ITF_MEM_AUTO && L >= 64)
        codec = TRAZA_ITF_MEM_DISTRIBUTION;

    if (codec == TRAZA_ITF_MEM_RAW && want == TRAZA_ITF_MEM_SEQUITUR) {
        /* Sequitur on the deltas (opt-in: with LZMA behind, the plain deltas or offsets
         * came out smaller on every sample, also when the grammar is 8x smaller) */
        size_t h0 = s->hdr->len;
        itf_put_uv(s->hdr, TRAZA_ITF_MEM_SEQUITUR);
        size_t t0 = s->seq->len;
        size_t c = seq_encode(x, L, s->seq);
        if (c && c)
            return TRAZA_ITF_MEM_SEQUITUR;
        s->hdr->len = h0;
        s->seq->len = t0;
        s->seq->oom = 0;
    }
    int hcodec = codec == TRAZA_ITF_MEM_RAW && offcost < rawcost ? ITF_CODEC_OFFSET : codec;
    itf_put_uv(s->hdr, (uint64_t)hcodec);
    if (hcodec == ITF_CODEC_OFFSET) {
        itf_put_sv(s->hdr, (int64_t)(int32_t)(base - (uint32_t)d[0]));
        itf_put_uv(s->hdr, gcd);
        itf_put_uv(s->hdr, owidth);
        uint32_t a = (uint32_t)d[0];
        for (size_t i = 0; i < L; i++) { /* fixed width, little-endian */
            a = (uint32_t)(a + (uint64_t)x[i]);
            uint32_t v = (a - base) / gcd;
            for (uint32_t b = 0; b < owidth; b++)
                tz_buf_putc(s->off, (char)(v >> (8 * b)));
        }
        return codec;
    }
    switch (codec) {
    case TRAZA_ITF_MEM_RAW:
        for (size_t i = 0; i < L; i++)
            itf_put_sv(s->raw, x[i]);
        break;
    case TRAZA_ITF_MEM_PERIODIC:
        itf_put_uv(s->hdr, p);
        for (size_t i = 0; i < p; i++)
            itf_put_sv(s->per, x[i]);
        break;
    case TRAZA_ITF_MEM_PATTERN:
        itf_put_uv(s->hdr, bk);
        itf_put_uv(s->hdr, bm);
        itf_put_uv(s->hdr, bp);
        for (size_t i = 0; i < bk; i++)
            itf_put_sv(s->pat, x[i]);
        for (size_t i = 0; i < bp; i++)
            itf_put_sv(s->pat, x[bk + i]);
        for (size_t i = L - bm; i < L; i++)
            itf_put_sv(s->pat, x[i]);
        break;
    case TRAZA_ITF_MEM_DISTRIBUTION: {
        dv *h = malloc(L * sizeof *h);
        if (!h)
            return -1;
        for (size_t i = 0; i < L; i++)
            h[i] = (dv){x[i], 1};
        qsort(h, L, sizeof *h, dv_cmp_v);
        size_t u = 0;
        for (size_t i = 0; i < L; i++) {
            if (u && h[u - 1].v == h[i].v)
                h[u - 1].c++;
            else
                h[u++] = h[i];
        }
        size_t keep = u / 4 ? u / 4 : 1;
        qsort(h, u, sizeof *h, dv_cmp_c);
        /* fold each dropped value into the nearest kept one */
        for (size_t i = keep; i < u; i++) {
            size_t best = 0;
            uint64_t bd = UINT64_MAX;
            for (size_t j = 0; j < keep; j++) {
                uint64_t dd = h[i].v > h[j].v ? (uint64_t)h[i].v - (uint64_t)h[j].v : (uint64_t)h[j].v - (uint64_t)h[i].v;
                if (dd < bd)
                    bd = dd, best = j;
            }
            h[best].c += h[i].c;
        }
        itf_put_uv(s->hdr, keep);
        for (size_t j = 0; j < keep; j++) {
            itf_put_sv(s->dist, h[j].v);
            itf_put_uv(s->dist, h[j].c);
        }
        free(h);
        break;
    }
    default:
        break;
    }
    return codec;
}

int itf_mem_decode(int codec, itf_rd *hdr, itf_dec_streams *s, uint32_t a0, uint32_t *out, size_t n, uint64_t seed)
{
    if (n == 0)
        return 0;
    size_t L = n - 1;
    out[0] = a0;
    switch (codec) {
    case TRAZA_ITF_MEM_SEQUITUR:
        return seq_decode(s->seq, out, L);
    case ITF_CODEC_NOISY: {
        uint64_t p = itf_get_uv(hdr);
        if (hdr->bad || p == 0 || p > L)
            return -1;
        for (size_t i = 0; i < p; i++)
            out[i + 1] = (uint32_t)(out[i] + (uint64_t)itf_get_sv(s->pat));
        for (size_t i = p; i < L; i++)
            out[i + 1] = (uint32_t)(out[i] + (out[i + 1 - p] - out[i - p]));
        return s->pat->bad ? -1 : 0;
    }
    case ITF_CODEC_OFFSET: {
        uint32_t base = (uint32_t)(a0 + (uint64_t)itf_get_sv(hdr));
        uint64_t g = itf_get_uv(hdr), wd = itf_get_uv(hdr);
        if (hdr->bad || g == 0 || g > UINT32_MAX || wd == 0 || wd > 4 ||
            (uint64_t)(s->off->end - s->off->p) / wd < L)
            return -1;
        for (size_t i = 0; i < L; i++) {
            uint32_t v = 0;
            for (uint64_t b = 0; b < wd; b++)
                v |= (uint32_t)*s->off->p++ << (8 * b);
            out[i + 1] = (uint32_t)(base + (uint64_t)v * g);
        }
        return 0;
    }
    case TRAZA_ITF_MEM_RAW:
        for (size_t i = 0; i < L; i++)
            out[i + 1] = (uint32_t)(out[i] + (uint64_t)itf_get_sv(s->raw));
        return s->raw->bad ? -1 : 0;
    case TRAZA_ITF_MEM_PERIODIC: {
        uint64_t p = itf_get_uv(hdr);
        if (hdr->bad || p == 0 || p > L)
            return -1;
        for (size_t i = 0; i < p; i++)
            out[i + 1] = (uint32_t)(out[i] + (uint64_t)itf_get_sv(s->per));
        for (size_t i = p; i < L; i++)
            out[i + 1] = (uint32_t)(out[i] + (out[i + 1 - p] - out[i - p]));
        return s->per->bad ? -1 : 0;
    }
    case TRAZA_ITF_MEM_PATTERN: {
        uint64_t k = itf_get_uv(hdr), m = itf_get_uv(hdr), p = itf_get_uv(hdr);
        if (hdr->bad || p == 0 || k > L || m > L - k || p > L - k - m)
            return -1;
        size_t i = 0;
        for (; i < k + p; i++)
            out[i + 1] = (uint32_t)(out[i] + (uint64_t)itf_get_sv(s->pat));
        for (; i < L - m; i++)
            out[i + 1] = (uint32_t)(out[i] + (out[i + 1 - p] - out[i - p]));
        for (; i < L; i++)
            out[i + 1] = (uint32_t)(out[i] + (uint64_t)itf_get_sv(s->pat));
        return s->pat->bad ? -1 : 0;
    }
    case TRAZA_ITF_MEM_DISTRIBUTION: {
        uint64_t keep = itf_get_uv(hdr);
        if (hdr->bad || keep == 0 || keep > L)
            return -1;
        /* expand the histogram then shuffle it (deterministic) */
        size_t pos = 0;
        for (uint64_t j = 0; j < keep; j++) {
            int64_t v = itf_get_sv(s->dist);
            uint64_t c = itf_get_uv(s->dist);
            if (s->dist->bad || c > L - pos)
                return -1;
            for (uint64_t q = 0; q < c; q++)
                out[1 + pos++] = (uint32_t)(uint64_t)v;
        }
        if (pos != L)
            return -1;
        uint64_t st = seed * 0x9E3779B97F4A7C15ull + 1;
        for (size_t i = L; i > 1; i--) {
            size_t j = (size_t)(xs64(&st) % i);
            uint32_t t = out[i];
            out[i] = out[1 + j];
            out[1 + j] = t;
        }
        for (size_t i = 0; i < L; i++)
            out[i + 1] = out[i] + out[i + 1];
        return 0;
    }
    default:
        return -1;
    }
}

/* ---------------- cache model ---------------- */
void itf_cache_init(itf_cache *c) { memset(c, 0, sizeof *c); }
void itf_cache_access(itf_cache *c, uint64_t addr)
{
    uint64_t line = addr >> 6;
    size_t set = (size_t)(line & 127);
    uint64_t tag = (line >> 7) + 1;
    c->accesses++;
    c->clock++;
    size_t victim = 0;
    for (size_t w = 0; w < 4; w++) {
        if (c->tag[set][w] == tag) {
            c->hits++;
            c->age[set][w] = c->clock;
            return;
        }
        if (c->age[set][w] < c->age[set][victim])
            victim = w;
    }
    c->tag[set][victim] = tag;
    c->age[set][victim] = c->clock;
}
