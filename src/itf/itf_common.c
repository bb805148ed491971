/* ITFComp shared pieces: varints, byte-key map, line parsers and dialects, names (the
 * address codecs are in itf_addrcodec.c, the back ends in itf_pack.c). */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "itf/itf_internal.h"
#include "util/le.h"
#include "util/hex8.h"

uint16_t itf_header_check(const uint8_t *h)
{
    uint8_t c[ITF_HEADER_SIZE];
    memcpy(c, h, sizeof c);
    c[10] = c[11] = 0;
    uint16_t v = (uint16_t)crc32(0, c, sizeof c);
    return v ? v : 0xffff;
}

/* ---------------- varints ---------------- */
size_t itf_put_uv_at(uint8_t *o, uint64_t v) { return tz_put_uleb(o, v); }
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
int itf_hex8(const char *s, uint32_t *v)
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
    if (len < 10 || line[0] != '0' || line[1] != 'x' || itf_hex8(line + 2, pc) < 0)
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
        if (itf_hex8(line + e - 8, &a) < 0)
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
void itf_put_hex8(char *o, uint32_t v)
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
    itf_put_hex8(o + 2, pc);
    o[10] = ' ';
    o += 11;
    memcpy(o, text, textlen);
    o += textlen;
    for (size_t i = 0; i < nmem; i++) {
        memcpy(o, " mem=0x", 7);
        itf_put_hex8(o + 7, mems[i]);
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
