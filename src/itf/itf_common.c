/* ITFComp shared pieces: varints, byte-key map, line parsers, address codecs and the
 * cache model (the back ends are in itf_pack.c). */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "itf/itf_internal.h"
#include "util/hex8.h"
#include "traza/grammar.h"

uint16_t itf_header_check(const uint8_t *h)
{
    uint8_t c[ITF_HEADER_SIZE];
    memcpy(c, h, sizeof c);
    c[10] = c[11] = 0;
    uint16_t v = (uint16_t)crc32(0, c, sizeof c);
    return v ? v : 0xffff;
}

/* ---------------- varints ---------------- */
size_t itf_put_uv_at(uint8_t *o, uint64_t v)
{
    size_t k = 0;
    while (v >= 0x80) {
        o[k++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    o[k++] = (uint8_t)v;
    return k;
}
void itf_put_uv(tz_buf *b, uint64_t v)
{
    uint8_t t[10];
    tz_buf_put(b, t, itf_put_uv_at(t, v));
}
void itf_put_sv(tz_buf *b, int64_t v) { itf_put_uv(b, itf_zz(v)); }
void itf_put_u32le(tz_buf *b, uint32_t v)
{
    char t[4] = {(char)v, (char)(v >> 8), (char)(v >> 16), (char)(v >> 24)};
    tz_buf_put(b, t, 4);
}
void itf_put_u64le(tz_buf *b, uint64_t v)
{
    itf_put_u32le(b, (uint32_t)v);
    itf_put_u32le(b, (uint32_t)(v >> 32));
}
uint32_t *itf_oaix_build(const void *ents, size_t n, size_t stride, int shift, size_t cap)
{
    uint32_t *x = calloc(cap, sizeof *x);
    for (size_t k = 0; x && k < n; k++) {
        uint64_t key;
        memcpy(&key, (const char *)ents + k * stride, sizeof key);
        size_t i = (size_t)(key >> shift) & (cap - 1);
        while (x[i])
            i = (i + 1) & (cap - 1);
        x[i] = (uint32_t)(k + 1);
    }
    return x;
}

uint64_t itf_get_uv(itf_rd *r)
{
    uint64_t v = 0;
    for (int s = 0; s < 64; s += 7) {
        if (r->p >= r->end) {
            r->bad = 1;
            return 0;
        }
        uint8_t c = *r->p++;
        v |= (uint64_t)(c & 0x7f) << s;
        if (!(c & 0x80))
            return v;
    }
    r->bad = 1;
    return 0;
}
uint64_t itf_zrun_reader_slow(itf_zrun_reader *r)
{
    itf_rd d = {r->p, r->end, 0};
    uint64_t v = itf_get_uv(&d);
    if (r->zrun) {
        r->zeros = itf_get_uv(&d);
        d.bad |= v == 0; /* a stored value is never 0 */
    }
    r->p = d.p;
    r->bad |= d.bad;
    return v;
}
int64_t itf_get_sv(itf_rd *r)
{
    uint64_t u = itf_get_uv(r);
    return itf_unzz(u);
}
uint32_t itf_rd_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
uint64_t itf_rd_u64le(const uint8_t *p) { return itf_rd_u32le(p) | (uint64_t)itf_rd_u32le(p + 4) << 32; }

/* ---------------- byte-key map ---------------- */
void itf_kmap_init(itf_kmap *m) { memset(m, 0, sizeof *m); }
void itf_kmap_free(itf_kmap *m)
{
    free(m->slots);
    free(m->keys);
    free(m->koff);
    free(m->khash);
    memset(m, 0, sizeof *m);
}
const uint8_t *itf_kmap_key(const itf_kmap *m, size_t id, size_t *len)
{
    *len = (size_t)(m->koff[id + 1] - m->koff[id]);
    return m->keys + m->koff[id];
}
static int kmap_rehash(itf_kmap *m, size_t ncap)
{
    uint32_t *s = calloc(ncap, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < m->count; i++) {
        size_t j = (size_t)m->khash[i] & (ncap - 1);
        while (s[j])
            j = (j + 1) & (ncap - 1);
        s[j] = (uint32_t)(i + 1);
    }
    free(m->slots);
    m->slots = s;
    m->cap = ncap;
    return 0;
}
/* Word-at-a-time hash for the maps (in memory only: ids do not depend on it). */
static inline uint64_t kmap_hash(const void *key, size_t len)
{
    const uint8_t *p = key;
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;
    while (len >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        h = (h ^ x) * 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
        p += 8;
        len -= 8;
    }
    uint64_t x = 0;
    memcpy(&x, p, len);
    h = (h ^ x) * 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 32;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 29;
    return h;
}

long itf_kmap_intern(itf_kmap *m, const void *key, size_t len, int *isnew)
{
    *isnew = 0;
    if (m->count + 1 >= UINT32_MAX)
        return -1;
    if ((m->count + 1) * 2 > m->cap && kmap_rehash(m, m->cap ? m->cap * 2 : 1024) < 0)
        return -1;
    uint64_t h = kmap_hash(key, len);
    size_t j = (size_t)h & (m->cap - 1);
    while (m->slots[j]) {
        size_t id = m->slots[j] - 1;
        if (m->khash[id] == h && m->koff[id + 1] - m->koff[id] == len &&
            itf_eq(m->keys + m->koff[id], key, len))
            return (long)id;
        j = (j + 1) & (m->cap - 1);
    }
    if (TZ_GROW(m->keys, m->kcap, m->klen + len + 1) < 0 || TZ_GROW(m->koff, m->offcap, m->count + 2) < 0 ||
        TZ_GROW(m->khash, m->hcap, m->count + 1) < 0)
        return -1;
    if (m->count == 0)
        m->koff[0] = 0;
    if (len)
        memcpy(m->keys + m->klen, key, len);
    m->klen += len;
    m->koff[m->count + 1] = m->klen;
    m->khash[m->count] = h;
    m->slots[j] = (uint32_t)(m->count + 1);
    *isnew = 1;
    return (long)m->count++;
}

/* ---------------- dialects ---------------- */
static int hex8(const char *s, uint32_t *v)
{
#ifdef TZ_HAVE_HEX8_WORD
    return tz_hex8_word(s, 0, v); /* lower case only: the text must come back as it was */
#else
    /* canonical gen lines use lower-case hex digits only; 0 marks any other byte */
    static const int8_t HEXV[256] = {
        ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
        ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16};
    uint32_t x = 0;
    int bad = 0;
    for (int i = 0; i < 8; i++) {
        int h = HEXV[(unsigned char)s[i]] - 1;
        bad |= h;
        x = x << 4 | (uint32_t)(h & 15);
    }
    if (bad < 0)
        return -1;
    *v = x;
    return 0;
#endif
}
int itf_gen_pc(const char *line, size_t len, uint32_t *pc)
{
    if (len < 10 || line[0] != '0' || line[1] != 'x' || hex8(line + 2, pc) < 0)
        return -1;
    return 0;
}
int itf_gen_parse(const char *line, size_t len, itf_genline *g, uint32_t *mems, size_t maxmem)
{
    if (len < 12 || itf_gen_pc(line, len, &g->pc) < 0 || line[10] != ' ')
        return 0;
    size_t e = len;
    g->ccfail = 0;
    if (e >= 7 && memcmp(line + e - 7, " CCFAIL", 7) == 0) {
        g->ccfail = 1;
        e -= 7;
    }
    size_t nm = 0;
    while (e >= 11 + 15 && memcmp(line + e - 15, " mem=0x", 7) == 0) {
        uint32_t a;
        if (hex8(line + e - 8, &a) < 0)
            break;
        if (nm >= maxmem)
            return 0;
        mems[nm++] = a;
        e -= 15;
    }
    if (e <= 11)
        return 0;
    for (size_t i = 0; i < nm / 2; i++) {
        uint32_t t = mems[i];
        mems[i] = mems[nm - 1 - i];
        mems[nm - 1 - i] = t;
    }
    g->nmem = nm;
    g->text = line + 11;
    g->textlen = e - 11;
    return 1;
}
static const char HEXD[] = "0123456789abcdef";
static void put_hex8(char *o, uint32_t v)
{
    for (int i = 7; i >= 0; i--) {
        o[i] = HEXD[v & 15];
        v >>= 4;
    }
}
void itf_gen_render(tz_buf *b, uint32_t pc, const char *text, size_t textlen, const uint32_t *mems,
                    size_t nmem, int ccfail)
{
    size_t need = 11 + textlen + 15 * nmem + 7 + 2;
    if (b->oom)
        return;
    if (b->len + need > b->cap && tz_grow((void **)&b->s, &b->cap, b->len + need + (b->len >> 1), 1) < 0) {
        b->oom = 1;
        return;
    }
    char *o = b->s + b->len;
    o[0] = '0';
    o[1] = 'x';
    put_hex8(o + 2, pc);
    o[10] = ' ';
    o += 11;
    memcpy(o, text, textlen);
    o += textlen;
    for (size_t i = 0; i < nmem; i++) {
        memcpy(o, " mem=0x", 7);
        put_hex8(o + 7, mems[i]);
        o += 15;
    }
    if (ccfail) {
        memcpy(o, " CCFAIL", 7);
        o += 7;
    }
    *o = 0;
    b->len = (size_t)(o - b->s);
}

static int has(const char *s, size_t n, const char *w) { return memmem(s, n, w, strlen(w)) != NULL; }
/* Second whitespace-separated token equals one of Tarmac's time units: tic, clk or
 * cyc (ticks, clock cycles) or ns, ps (a model that stamps simulated time). */
static int time_unit_line(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] == ' ')
        i++;
    size_t d = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i == d || i >= n || s[i] != ' ')
        return 0;
    while (i < n && s[i] == ' ')
        i++;
    return (n - i >= 4 && (memcmp(s + i, "tic ", 4) == 0 || memcmp(s + i, "clk ", 4) == 0 ||
                           memcmp(s + i, "cyc ", 4) == 0)) ||
           (n - i >= 3 && (memcmp(s + i, "ps ", 3) == 0 || memcmp(s + i, "ns ", 3) == 0));
}
int itf_is_record_start(int dialect, const char *s, size_t n)
{
    switch (dialect) {
    case TRAZA_ITF_TARMAC_FM:
    case TRAZA_ITF_TARMAC_GEM5:
        return time_unit_line(s, n) && (has(s, n, " IT (") || has(s, n, " IS ("));
    case TRAZA_ITF_TARMAC_ES:
        return time_unit_line(s, n);
    default:
        return 1;
    }
}

const char *traza_itf_dialect_name(traza_itf_dialect d)
{
    static const char *const names[] = {"unknown", "gen", "paper", "tarmac-fastmodel", "tarmac-es", "tarmac-gem5",
                                        "text"};
    return (unsigned)d < sizeof names / sizeof names[0] ? names[d] : "unknown";
}

traza_itf_dialect traza_itf_detect(const char *text, size_t len)
{
    int gen = 0, paper = 0, fm = 0, es = 0, gem5 = 0, other = 0;
    size_t pos = 0;
    for (int ln = 0; ln < 200 && pos < len; ln++) {
        const char *s = text + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + 1;
        if (n == 0)
            continue;
        uint32_t pc;
        if (has(s, n, "Tarmac Text Rev") || has(s, n, " tic ES ") || has(s, n, " tic IS "))
            es++;
        else if (itf_gen_pc(s, n, &pc) == 0) {
            if (has(s, n, " -res ") || has(s, n, " -par ") || has(s, n, " -target ") || has(s, n, " -noexec") ||
                has(s, n, " -cond"))
                paper++;
            else
                gen++;
        } else if (time_unit_line(s, n) && has(s, n, " cpu")) {
            gem5++;
        } else if (time_unit_line(s, n)) {
            fm++;
        } else
            other++;
    }
    if (es)
        return TRAZA_ITF_TARMAC_ES;
    if (paper)
        return TRAZA_ITF_PAPER;
    if (gem5 > fm && gem5 >= other)
        return TRAZA_ITF_TARMAC_GEM5;
    if (fm && fm >= other)
        return TRAZA_ITF_TARMAC_FM;
    if (gen && gen >= other)
        return TRAZA_ITF_GEN;
    return TRAZA_ITF_TEXT;
}

/* ---------------- address codecs ---------------- */
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

const char *traza_itf_memcodec_name(int c)
{
    static const char *const n[] = {"auto", "raw", "periodic", "pattern", "distribution", "sequitur"};
    return c >= 0 && c < TRAZA_ITF_MEM_NCODECS ? n[c] : "?";
}
/* The index component is whatever the others leave of the file: the header, the frame
 * and stream framing, the index frame and the footer. The writer can only estimate it
 * when it writes the index (the index holds its own size), so both sides set it from
 * the file's size; the sizes of a breakdown then add up to the file. */
void itf_info_index_rest(traza_itf_info *f)
{
    uint64_t s = 0;
    for (int k = 0; k < TRAZA_ITF_NCOMP; k++)
        if (k != TRAZA_ITF_C_INDEX)
            s += f->comp_bytes[k];
    f->comp_bytes[TRAZA_ITF_C_INDEX] = f->file_size > s ? f->file_size - s : 0;
}

const char *traza_itf_component_name(int c)
{
    static const char *const n[] = {"sequence",     "templates",          "flags",         "addr_raw",
                                    "addr_periodic", "addr_pattern",      "addr_distribution", "addr_sequitur",
                                    "addr_headers", "numbers",            "exceptions",    "index"};
    return c >= 0 && c < TRAZA_ITF_NCOMP ? n[c] : "?";
}
void traza_itf_opts_init(traza_itf_opts *o)
{
    memset(o, 0, sizeof *o); /* (chunk 0: the model's default, set once the dialect is known) */
    o->backend = TRAZA_ITF_AUTO;
}

int itf_text_target(const char *t, size_t n, uint64_t *v, size_t *at)
{
    size_t h = n;
    while (h > 0 && ((t[h - 1] >= '0' && t[h - 1] <= '9') || (t[h - 1] >= 'a' && t[h - 1] <= 'f')))
        h--;
    if (!(h >= 4 && n - h >= 1 && n - h <= 8 && !memcmp(t + h - 3, "#0x", 3) && (t[h] != '0' || n - h == 1) &&
          t[h - 4] == ' ' && t[0] != 's' && itf_text_is_branch(t, n)))
        return 0;
    uint64_t x = 0;
    for (size_t k = h; k < n; k++)
        x = x << 4 | (uint64_t)(t[k] <= '9' ? t[k] - '0' : t[k] - 'a' + 10);
    *v = x;
    *at = h - 2;
    return 1;
}

int itf_text_literal(const char *t, size_t n, uint64_t *v, size_t *at, size_t *end)
{
    const char *p = memchr(t, '[', n);
    if (!p || (size_t)(t + n - p) < 10 || memcmp(p, "[pc, #0x", 8) != 0)
        return 0;
    size_t h = (size_t)(p - t) + 8, k = h;
    uint64_t x = 0;
    for (; k < n && k - h < 9; k++) {
        char c = t[k];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0)
            break;
        x = x << 4 | (uint64_t)d;
    }
    if (k == h || k - h > 8 || k >= n || t[k] != ']' || (t[h] == '0' && k - h > 1))
        return 0;
    *v = x;
    *at = h - 2;
    *end = k;
    return 1;
}

size_t itf_mnemonic_len(const char *t, size_t n)
{
    size_t m = 0;
    while (m < n && t[m] != ' ' && t[m] != '.')
        m++;
    return m;
}

int itf_text_is_branch(const char *t, size_t n)
{
    size_t m = itf_mnemonic_len(t, n);
    if (m >= 1 && t[0] == 'b') {
        if ((m >= 3 && (!memcmp(t, "bic", 3) || !memcmp(t, "bfc", 3) || !memcmp(t, "bfi", 3))) ||
            (m == 4 && !memcmp(t, "bkpt", 4)))
            return 0;
        return 1;
    }
    if ((m == 3 && (!memcmp(t, "cbz", 3) || !memcmp(t, "tbb", 3) || !memcmp(t, "tbh", 3) || !memcmp(t, "svc", 3) ||
                    !memcmp(t, "swi", 3))) ||
        (m == 4 && (!memcmp(t, "cbnz", 4) || !memcmp(t, "eret", 4))))
        return 1;
    /* pc written: "pc" as a register operand not inside [..] (pc-relative loads) */
    for (size_t i = m; i + 1 < n; i++)
        if (t[i] == 'p' && t[i + 1] == 'c' && (i + 2 == n || !(t[i + 2] >= 'a' && t[i + 2] <= 'z')) &&
            (t[i - 1] == ' ' || t[i - 1] == ',' || t[i - 1] == '{'))
            return 1;
    return 0;
}

/* Literal text z in skeleton k, or -1; *slot (when not NULL): the numbers before it. */
long itf_skel_find(const uint8_t *k, size_t len, const char *z, int *slot)
{
    /* z is printable, so it matches only literal bytes: not a placeholder's 0x01, kind
     * (< 0x10) or width (< 0x20), nor an escaped 0x01 0x00. */
    size_t zn = strlen(z), a = 0;
    while (a + 1 < zn && z[a] == ' ') /* found by its first byte that is not a space */
        a++;
    if (zn > len)
        return -1;
    /* (glibc's memmem took 4 times as long on these short skeletons) */
    const uint8_t *m = NULL, *h = k + a, *last = k + len - zn;
    while ((h = memchr(h, (uint8_t)z[a], (size_t)(last + a + 1 - h))) != NULL) {
        const uint8_t *c = h - a;
        size_t i = 0;
        while (i < zn && c[i] == (uint8_t)z[i])
            i++;
        if (i == zn) {
            m = c;
            break;
        }
        h++;
    }
    if (!m)
        return -1;
    if (slot) { /* the numbers before it */
        int nslot = 0;
        for (const uint8_t *q = k; q < m && (q = memchr(q, 1, (size_t)(m - q))) != NULL;) {
            nslot += q + 2 < k + len && q[1] != 0; /* (itf_skel_isnum, itf_skel_step) */
            q += q + 1 >= k + len ? 1 : q[1] == 0 ? 2 : 3;
        }
        *slot = nslot;
    }
    return (long)(m - k);
}
