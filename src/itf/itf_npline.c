/* ITFComp line model, its per-line steps (the model and its state: itf_npred.c): a
 * line's skeleton predicted, then each of its numbers predicted from the candidates
 * and the candidates' costs updated, the semantic model's predictions (itf_sem.h) taken
 * in. The writer codes a line with itf_np_encode_line, the reader decodes one with
 * itf_np_decode_line; the steps are static here, inlined into those two loops. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "itf/itf_internal.h"
#include "itf/itf_sem.h"

/* ---- the semantic model's steps for a line other than a record start ---- */
/* The predictions of a line of skeleton k: their slots (mask), values in v. */
static inline __attribute__((always_inline)) uint32_t sem_line(const itf_sem *s, const itf_sem_sk *k, uint64_t *v)
{
    uint32_t m = 0;
    int sl = k->slot;
    if (sl < 0 || sl >= 32)
        return 0;
    switch (k->kind) {
    case SK_INSN: {
        const struct itf_sem_cnt *c = &s->ctab[s->cslot];
        for (int j = 0; j < 2 && j < sl; j++) {
            v[j] = s->clast[j] + (uint64_t)(c->pc == s->cpc ? c->d[j] : s->cd[j]);
            m |= 1u << j;
        }
    }
        /* fall through */
    case SK_BR:
        if (s->npc_ok)
            v[sl] = s->npc, m |= 1u << sl;
        return m;
    case SK_MEM:
        if (!s->mok)
            return 0;
        v[sl] = (s->ma + (uint64_t)((int64_t)s->mi * s->mstep)) & s->mmask;
        m = 1u << sl;
        if (k->store && s->sok && k->dslot >= 0 && k->dslot + k->dn <= 32 && s->mi < 2) {
            uint64_t d = s->sdata[s->mi];
            if (k->dn == 2)
                v[k->dslot] = d >> 32, v[k->dslot + 1] = d & 0xFFFFFFFFu, m |= 3u << k->dslot;
            else
                v[k->dslot] = d, m |= 1u << k->dslot;
        }
        return m;
    case SK_REG:
        for (int i = 0; i < s->nw; i++)
            if (s->wreg[i] == k->reg) {
                v[sl] = k->w32 ? s->wval[i] & 0xFFFFFFFFu : s->wval[i];
                return 1u << sl;
            }
        return 0;
    default:
        return 0;
    }
}

/* itf_sem_line (itf_sem.h): the predictions offered, those of a kind that missed
 * lately held back. */
static inline __attribute__((always_inline)) uint32_t sem_pred(const itf_sem *s, uint32_t id, uint64_t *v,
                                                               uint32_t *all)
{
    const itf_sem_sk *k = &s->sk[id];
    uint32_t m = k->kind ? sem_line(s, k, v) : 0;
    *all = m;
    if (!m)
        return 0;
    uint32_t held = (s->conf[k->ck[0]] < CONF_MIN ? k->cm[0] : 0) | (s->conf[k->ck[1]] < CONF_MIN ? k->cm[1] : 0);
    return m & ~held;
}

/* itf_sem_end (itf_sem.h): the hit rates, then the state moves on. */
static inline __attribute__((always_inline)) void sem_end(itf_sem *s, uint32_t id, const uint64_t *nums, size_t nn,
                                                          uint32_t all, const uint64_t *v)
{
    const itf_sem_sk *k = &s->sk[id];
    /* the kinds' hit rates, from every prediction made for this line (offered or not) */
    for (int h = 0; h < 2 && all; h++) {
        uint16_t *c = &s->conf[k->ck[h]];
        for (uint32_t m = all & k->cm[h]; m; m &= m - 1) {
            int j = __builtin_ctz(m);
            *c = (uint16_t)(*c - (*c >> 4) + ((size_t)j < nn && v[j] == nums[j] ? 16 : 0));
        }
    }
    switch (k->kind) {
    case SK_INSN:
        itf_sem_record(s, id, k, nums, nn);
        break;
    case SK_BR: /* ES: the branch's target, whatever was predicted */
        s->npc = nums[k->slot];
        s->npc_ok = 1;
        break;
    case SK_MEM:
        s->mi += s->mi < 65536; /* (a record of more lines predicts no more of them right) */
        break;
    case SK_REG:
        if (k->reg == ITF_SEM_FLAGS)
            s->cpsr = nums[k->slot];
        else
            s->r[k->reg] = k->w32 ? nums[k->slot] & 0xFFFFFFFFu : nums[k->slot];
        break;
    default:
        break;
    }
}

/* The semantic model's line steps for its tests. */
uint32_t itf_sem_line(const itf_sem *s, uint32_t id, uint64_t *v, uint32_t *all) { return sem_pred(s, id, v, all); }

void itf_sem_end(itf_sem *s, uint32_t id, const uint64_t *nums, size_t nn, uint32_t all, const uint64_t *v)
{
    sem_end(s, id, nums, nn, all, v);
}

/* ---- the line model ---- */
/* ---- version 4 context table ---- */
/* Line context keys: the pc part mixed once per record, then with the line number
 * (a plain XOR of shifted parts would make different pcs and lines collide). Never 0,
 * the empty mark. */
static inline uint64_t ctx_key_h(uint64_t pch, uint64_t line)
{
    return tz_hash_u64(pch ^ line) | 1;
}

/* The context of key, entered from context `from` (an index, or SIZE_MAX for none):
 * the one entered from there last time when it has that key (a line context is most
 * often followed by the same one: the next line of the same instruction, or the next
 * instruction's first line), else found by itf_np_ctx_find. The link is only a cache of the
 * lookup, checked by its key: a lookup probes the index and the contexts at scattered
 * places, 13 % of a Tarmac decode's own work. */
static inline itf_npl *ctx_step(itf_np *np, size_t from, uint64_t key)
{
    itf_npl *L;
    if (from == SIZE_MAX)
        return itf_np_ctx_find(np, key);
    uint32_t nx = np->tab[from].next;
    if (nx && np->tab[nx - 1].key == key)
        return &np->tab[nx - 1];
    L = itf_np_ctx_find(np, key);
    np->tab[from].next = (uint32_t)(L - np->tab) + 1;
    return L;
}



/* Gives line context L room for n slots (from reserved arena space): a new range, the
 * old entries copied, the others unseen. */
static inline void slot_grow(itf_np *np, itf_npl *L, size_t n)
{
    if (L->nslot >= n)
        return;
    itf_npx *d = np->slots + np->nslot;
    if (L->nslot)
        memcpy(d, np->slots + L->off, L->nslot * sizeof *d);
    memset(d + L->nslot, 0, (n - L->nslot) * sizeof *d);
    L->off = (uint32_t)np->nslot;
    L->nslot = (uint16_t)n;
    np->nslot += n;
}

/* ---- v4 memory map ---- */

/* The skeleton predicted for the next line (UINT32_MAX: none), its context made current;
 * -1 when out of memory. */
static inline long np_skel_predict(itf_np *np)
{
    size_t from = np->curl ? (size_t)(np->curl - np->tab) : SIZE_MAX; /* (tab may move) */
    if (itf_np_ctx_reserve(np, 2) < 0) /* this line's context and, for a record start, the next */
        return -1;
    itf_npl *L = ctx_step(np, from, ctx_key_h(np->rpch, np->rline));
    np->curl = L;
    return L->skseen ? (long)L->skel : (long)UINT32_MAX;
}

/* Line of skeleton id: the state it needs made current (after np_skel_predict in
 * version 4); -1 when out of memory. */
static inline __attribute__((always_inline)) int np_begin(itf_np *np, uint32_t id)
{
    itf_npk *K = &np->sk[id];
    if (K->gen != np->chunk) {
        K->gen = np->chunk;
        memset(np->last + K->base, 0, K->nn * sizeof *np->last);
        memset(np->cost + (size_t)K->base * ITF_NP_PRED, 0, K->nn * ITF_NP_PRED * sizeof *np->cost);
    }
    uint32_t c = K->cls;
    if (np->cls_gen[c] != np->chunk) {
        np->cls_gen[c] = np->chunk;
        memset(np->cls_last + (size_t)c * ITF_NP_COLS, 0, ITF_NP_COLS * sizeof *np->cls_last);
    }
    if (!np->v4)
        return 0;
    itf_npl *L = np->curl; /* the skeleton context asked for by np_skel_predict */
    if (!L)
        return -1;
    L->skel = id;
    L->skseen = 1;
    size_t nn = K->nn;
    if (K->memslot >= 0 && (np->mcount + nn) * 2 > np->mcap && itf_np_mem_grow(np, nn) < 0)
        return -1;
    if (itf_np_slot_reserve(np, 2 * nn) < 0) /* this line's slots and, for a record start, the next context's */
        return -1;
    if (K->rs && K->pcslot < 0) { /* a record without a pc: same pc, line 0 */
        np->rline = 0;
        L = np->curl = ctx_step(np, (size_t)(L - np->tab), ctx_key_h(np->rpch, 0));
    }
    /* A record-start line leaves this context at its pc slot (pc_known): the slots
     * after it would never be read here. Left out, they are still unseen should a
     * longer line come here later (slot_grow zeroes what it adds): ES decompression
     * fills 20 % fewer slot entries. */
    slot_grow(np, L, K->rs && K->pcslot >= 0 && (size_t)K->pcslot < nn ? (size_t)K->pcslot + 1 : nn);
    return 0;
}

/* The two hot steps of every number, on the 8 candidates at once:
 *   argmin: the index of the smallest of 8 costs, the first one on ties;
 *   charges: 16 * bits(zig-zag(v - p[i])), the cost of each candidate's residual.
 * A charge is at most 16 * 64, so the costs stay below the fixed points of their decay:
 * 8200 for c - c/8 + 1024, 4100 for the skeleton slot's c - c/4 + 1024 of version 7.
 * They fit 16-bit lanes and their sums signed ones. SSE2 is part of x86-64; elsewhere, or built with
 * -DITF_NP_SCALAR (the test that compares both does), plain C computes the same. */
#if defined(__SSE2__) && !defined(ITF_NP_SCALAR)
#define ITF_NP_SSE2 1
#endif
#ifdef ITF_NP_SSE2
#include <emmintrin.h>
static inline __attribute__((always_inline)) int argmin8(__m128i s)
{
    __m128i m = _mm_min_epi16(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
    m = _mm_min_epi16(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
    m = _mm_min_epi16(m, _mm_shufflelo_epi16(m, _MM_SHUFFLE(2, 3, 0, 1)));
    m = _mm_shuffle_epi32(_mm_shufflelo_epi16(m, 0), 0);
    return __builtin_ctz((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi16(s, m))) >> 1;
}

/* The residuals' bit counts come from the exponent of the residual as a double:
 * OR-ing z into the bits of 2^52 and subtracting 2^52 gives z exactly for z < 2^52.
 * 0 for a larger z in some lane (the caller then counts them one by one). The
 * candidates are read lane by lane: np_predict has just stored them one by one, and a
 * 16-byte load over two 8-byte stores waits for both to retire instead of being
 * forwarded (8 % of a Tarmac decode). */
static inline __attribute__((always_inline)) int charges8(const uint64_t *p, uint64_t v, __m128i *out)
{
    const __m128i two52 = _mm_set1_epi64x(0x4330000000000000ll), vv = _mm_set1_epi64x((long long)v);
    __m128d f[4];
    __m128i big = _mm_setzero_si128();
    for (int j = 0; j < 4; j++) {
        __m128i d = _mm_sub_epi64(vv, _mm_set_epi64x((long long)p[2 * j + 1], (long long)p[2 * j]));
        __m128i sign = _mm_shuffle_epi32(_mm_srai_epi32(d, 31), _MM_SHUFFLE(3, 3, 1, 1));
        __m128i z = _mm_xor_si128(_mm_slli_epi64(d, 1), sign);
        big = _mm_or_si128(big, z);
        f[j] = _mm_sub_pd(_mm_castsi128_pd(_mm_or_si128(z, two52)), _mm_castsi128_pd(two52));
    }
    if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_srli_epi64(big, 52), _mm_setzero_si128())) != 0xFFFF)
        return 0;
    /* the high halves of the doubles, 1023 + floor(log2 z) above 20 mantissa bits (0
     * for z = 0), four to a register, then eight 16-bit lanes */
    __m128i lo = _mm_srli_epi32(_mm_castps_si128(_mm_shuffle_ps(_mm_castpd_ps(f[0]), _mm_castpd_ps(f[1]), _MM_SHUFFLE(3, 1, 3, 1))), 20);
    __m128i hi = _mm_srli_epi32(_mm_castps_si128(_mm_shuffle_ps(_mm_castpd_ps(f[2]), _mm_castpd_ps(f[3]), _MM_SHUFFLE(3, 1, 3, 1))), 20);
    __m128i b = _mm_max_epi16(_mm_sub_epi16(_mm_packs_epi32(lo, hi), _mm_set1_epi16(1022)), _mm_setzero_si128());
    *out = _mm_slli_epi16(b, 4);
    return 1;
}
#endif

#ifdef ITF_NP_SSE2
/* A hit's charges: 0 for the candidates equal to v, k for the others. */
static inline __attribute__((always_inline)) __m128i hit_charges8(const uint64_t *p, uint64_t v, uint16_t k)
{
    const __m128i vv = _mm_set1_epi64x((long long)v);
    __m128i m[4];
    for (int j = 0; j < 4; j++) { /* 64-bit equality from two 32-bit ones */
        __m128i d = _mm_cmpeq_epi32(_mm_set_epi64x((long long)p[2 * j + 1], (long long)p[2 * j]), vv);
        m[j] = _mm_and_si128(d, _mm_shuffle_epi32(d, _MM_SHUFFLE(2, 3, 0, 1)));
    }
    /* all-ones or zero lanes, narrowed to eight 16-bit ones in candidate order */
    __m128i eq = _mm_packs_epi16(_mm_packs_epi32(m[0], m[1]), _mm_packs_epi32(m[2], m[3]));
    return _mm_andnot_si128(eq, _mm_set1_epi16((short)k));
}
#endif

/* Bits of the zig-zag form of a residual (0 for 0), without a branch. */
static inline uint32_t bits(uint64_t d)
{
    uint64_t z = (d << 1) ^ (uint64_t)((int64_t)d >> 63);
    return 64u - (uint32_t)__builtin_clzll(z | 1) - (z == 0);
}

/* One line's places in the model, taken once per line: in the loop over its numbers
 * they stay in registers (the values stored there could otherwise alias np's size_t
 * fields and force reloads). */
typedef struct np_ln {
    uint64_t *last;          /* the skeleton's slots: last values */
    uint16_t *cost;          /* and running costs */
    uint64_t *cls;           /* its class's last line */
    itf_npx *e;              /* the line context's slot entries (v4) */
    const uint64_t *prev;    /* the previous line */
    size_t prevn, nn;
    int ms, pcs;             /* v4: address slot, pc slot, or -1 */
    uint64_t mcls;           /* v4: access class << 20 */
    uint32_t id;
    uint32_t semm, semall;   /* v9: the slots the semantic model offers, and predicts; values in semv */
    uint64_t semv[32];
} np_ln;

static inline __attribute__((always_inline)) void ln_init(const itf_np *np, uint32_t id, np_ln *L)
{
    const itf_npk *K = &np->sk[id];
    L->last = np->last + K->base;
    L->cost = np->cost + (size_t)K->base * ITF_NP_PRED;
    L->cls = np->cls_last + (size_t)K->cls * ITF_NP_COLS;
    L->nn = K->nn;
    /* (a line without numbers may come before any slot: no arena yet) */
    L->e = np->v4 && L->nn ? np->slots + np->curl->off : NULL;
    L->prev = np->prev;
    L->prevn = np->prevn;
    L->ms = K->memslot; /* (-1 and 0 before version 4) */
    L->pcs = np->v4 ? K->pcslot : -1;
    L->mcls = (uint64_t)K->memcls << 20;
    L->id = id;
    L->semm = L->semall = 0;
    if (np->sem.isa)
        L->semm = sem_pred(&np->sem, id, L->semv, &L->semall);
}

/* Number k's key in the memory map, or 0 when it is not a number after the address
 * of a memory access line: (access class, slot, address), the address mixed once per
 * line, at its first number, into st->mhash. */
static inline uint64_t mem_key(const np_ln *L, size_t k, const uint64_t *cur, struct itf_npst *st)
{
    if (L->ms < 0 || k <= (size_t)L->ms)
        return 0;
    if (k == (size_t)L->ms + 1)
        st->mhash = tz_hash_u64(cur[L->ms] ^ 0x2545F4914F6CDD1Dull);
    return ctx_key_h(st->mhash, L->mcls | k);
}

/* Entry i of the memory map, found for key, now holds v (np_begin reserved its room). */
static inline void mem_store(itf_np *np, size_t i, uint64_t key, uint64_t v)
{
    struct itf_npm *m = &np->mtab[i];
    if (!m->key)
        m->key = key, np->mcount++;
    m->val = v;
}

/* Number k's prediction; its candidates and memory map entry left in st for np_update,
 * which follows at once. Inlined into the line loops with np_update: they are most of
 * a Tarmac decode. */
static inline __attribute__((always_inline)) uint64_t np_predict(const itf_np *np, const np_ln *L, size_t k,
                                                                 const uint64_t *cur, struct itf_npst *st)
{
    uint64_t *p = st->p;
    const uint16_t *c = L->cost + k * ITF_NP_PRED;
    size_t prevn = L->prevn;
    p[0] = L->last[k];
    p[1] = k < ITF_NP_COLS && k < prevn ? L->prev[k] : p[0];
    p[2] = k < ITF_NP_COLS ? L->cls[k] : p[0];
    p[3] = k ? cur[k - 1] : p[0];
    if (!np->v4) {
        int best = 0;
        for (int i = 1; i < 4; i++)
            if (c[i] < c[best])
                best = i;
        return p[best];
    }
    const itf_npx *e = L->e + k;
    p[4] = e->seen ? e->last : p[0];
    p[5] = k + 1 < prevn ? L->prev[k + 1] : p[0];
    p[6] = prevn ? L->prev[prevn - 1] : p[0];
    uint32_t sem = k < 32 ? L->semm >> k & 1 : 0;
    p[7] = sem ? L->semv[k] : p[0];
    st->sem = (int)sem;
    if ((st->mkey = mem_key(L, k, cur, st)) != 0) {
        const struct itf_npm *m = &np->mtab[st->mslot = itf_np_mem_find(np, st->mkey)];
        if (m->key && !sem) /* a store's data: the semantic model knows it */
            p[7] = m->val;
    }
    /* the sum of the context's and the skeleton slot's costs once the context has a
     * value, the skeleton slot's alone before */
#ifdef ITF_NP_SSE2
    __m128i w = _mm_set1_epi16(e->seen ? -1 : 0);
    if (sem) /* the context's lane 7 is the memory map's (another line's slot k may share the context) */
        w = _mm_srli_si128(_mm_slli_si128(w, 2), 2);
    __m128i sum = _mm_add_epi16(_mm_loadu_si128((const __m128i *)c),
                                _mm_and_si128(_mm_loadu_si128((const __m128i *)e->cost), w));
    if (sem) /* the semantic prediction first, unless it missed lately */
        sum = _mm_add_epi16(sum, _mm_set_epi16(0, ITF_NP_SEMB, ITF_NP_SEMB, ITF_NP_SEMB, ITF_NP_SEMB,
                                               ITF_NP_SEMB, ITF_NP_SEMB, ITF_NP_SEMB));
    return st->pred = p[argmin8(sum)];
#else
    uint32_t key[ITF_NP_PRED], w = e->seen ? 0xFFFFu : 0;
    for (int i = 0; i < ITF_NP_PRED; i++) /* cost, then index: the first on ties */
        key[i] = (uint32_t)(c[i] + (sem && i == 7 ? 0 : e->cost[i] & w) + (sem && i < 7 ? ITF_NP_SEMB : 0)) << 3 |
                 (uint32_t)i;
    uint32_t a = key[1] < key[0] ? key[1] : key[0], b = key[3] < key[2] ? key[3] : key[2];
    uint32_t x = key[5] < key[4] ? key[5] : key[4], y = key[7] < key[6] ? key[7] : key[6];
    a = b < a ? b : a;
    x = y < x ? y : x;
    return st->pred = p[(x < a ? x : a) & 7];
#endif
}

/* The record's pc, v, is known: its context from here on (room reserved by
 * np_skel_predict and np_begin). */
static inline __attribute__((always_inline)) void pc_known(itf_np *np, np_ln *L, uint64_t v)
{
    itf_np_set_rpc(np, v);
    np->rline = 0;
    np->curl = ctx_step(np, (size_t)(np->curl - np->tab), ctx_key_h(np->rpch, 0));
    slot_grow(np, np->curl, L->nn);
    L->e = np->slots + np->curl->off;
}

static inline __attribute__((always_inline)) void np_update(itf_np *np, np_ln *L, size_t k, const uint64_t *cur,
                                                            const struct itf_npst *st)
{
    const uint64_t *p = st->p, v = cur[k];
    uint16_t *c = L->cost + k * ITF_NP_PRED;
    L->last[k] = v;
    if (!np->v4) {
        for (int i = 0; i < 4; i++)
            c[i] = (uint16_t)(c[i] - (c[i] >> 3) + 16 * bits(v - p[i]));
        return;
    }
    itf_npx *e = L->e + k;
    /* version 7: a hit (the prediction right, in a context seen before) charges every
     * candidate that missed np->hitk, whatever its residual: cheaper than the exact
     * counts, and it ranks the candidates better (doc/formats/tzi.md, version 7) */
    int hit = np->hitk && e->seen && v == st->pred;
#ifdef ITF_NP_SSE2
    __m128i b;
    if (hit)
        b = hit_charges8(p, v, np->hitk);
    else if (!charges8(p, v, &b)) {
        uint16_t bb[ITF_NP_PRED];
        for (int i = 0; i < ITF_NP_PRED; i++)
            bb[i] = (uint16_t)(16 * bits(v - p[i]));
        b = _mm_loadu_si128((const __m128i *)bb);
    }
    if (st->sem && p[7] != v) /* a semantic prediction is right or meaningless: a miss costs a full miss */
        b = _mm_max_epi16(b, _mm_set_epi16(ITF_NP_HITK, 0, 0, 0, 0, 0, 0, 0));
    __m128i cv = _mm_loadu_si128((const __m128i *)c), ev = _mm_loadu_si128((const __m128i *)e->cost);
    __m128i cn = _mm_add_epi16(_mm_sub_epi16(cv, _mm_srl_epi16(cv, _mm_cvtsi32_si128(np->dc))), b);
    /* a semantic prediction leaves the context's lane 7 (the memory map's) as it was */
    const __m128i m7 = st->sem ? _mm_set_epi16(-1, 0, 0, 0, 0, 0, 0, 0) : _mm_setzero_si128();
    if (e->seen) {
        _mm_storeu_si128((__m128i *)c, cn);
        __m128i en = _mm_add_epi16(_mm_sub_epi16(ev, _mm_srli_epi16(ev, 3)), b);
        _mm_storeu_si128((__m128i *)e->cost, _mm_or_si128(_mm_and_si128(m7, ev), _mm_andnot_si128(m7, en)));
    } else { /* P4 knew nothing yet: it is not charged for this value */
        const __m128i m4 = _mm_set_epi16(0, 0, 0, -1, 0, 0, 0, 0);
        _mm_storeu_si128((__m128i *)c, _mm_or_si128(_mm_and_si128(m4, cv), _mm_andnot_si128(m4, cn)));
        _mm_storeu_si128((__m128i *)e->cost, _mm_andnot_si128(_mm_or_si128(m4, m7), b));
    }
#else
    uint16_t b[ITF_NP_PRED];
    for (int i = 0; i < ITF_NP_PRED; i++)
        b[i] = hit ? (p[i] == v ? 0 : np->hitk) : (uint16_t)(16 * bits(v - p[i]));
    if (st->sem && p[7] != v && b[7] < ITF_NP_HITK)
        b[7] = ITF_NP_HITK;
    uint16_t e7 = e->cost[7];
    if (e->seen) {
        for (int i = 0; i < ITF_NP_PRED; i++)
            c[i] = (uint16_t)(c[i] - (c[i] >> np->dc) + b[i]);
        for (int i = 0; i < ITF_NP_PRED; i++)
            e->cost[i] = (uint16_t)(e->cost[i] - (e->cost[i] >> 3) + b[i]);
    } else { /* P4 knew nothing yet: it is not charged for this value */
        uint16_t c4 = c[4];
        for (int i = 0; i < ITF_NP_PRED; i++)
            c[i] = (uint16_t)(c[i] - (c[i] >> np->dc) + b[i]);
        c[4] = c4;
        b[4] = 0;
        for (int i = 0; i < ITF_NP_PRED; i++)
            e->cost[i] = b[i];
        e7 = 0;
    }
    if (st->sem) /* a semantic prediction leaves the context's lane 7 (the memory map's) as it was */
        e->cost[7] = e7;
#endif
    e->last = v;
    e->seen = 1;
    if (st->mkey) /* the entry np_predict found */
        mem_store(np, st->mslot, st->mkey, v);
    if ((int)k == L->pcs)
        pc_known(np, L, v);
}

/* Version 10: an offered number whose semantic value s was wrong is coded from the
 * usual prediction p: the zig-zag residual zr of v - p, which is not zs (that of s - p,
 * as v != s), mapped to 1 .. 2^64-1 around it, 0 being the hit. */
static inline uint64_t sem_miss_code(uint64_t zr, uint64_t zs) { return zr < zs ? zr + 1 : zr; }
static inline uint64_t sem_miss_uncode(uint64_t c, uint64_t zs) { return c <= zs ? c - 1 : c; }

/* Version 10: number k was offered by the semantic model (bit k of L->semm), and its
 * value was right (99.5 % of the offered numbers of the Tarmac samples). It is coded
 * as 0, and only what later numbers read is updated: the slot's and the context's last
 * value, the memory map and the record's pc. The candidates' costs are left as they
 * were, so that they rank the candidates for the numbers the semantic model does not
 * know: the files are 0.7-4.4 % smaller than when a hit charged them as in version 9,
 * and the reader skips the 8 candidates' prediction and charges for 46 % of the
 * numbers of an ES trace (doc/formats/tzi.md, changes from version 9). */
static inline __attribute__((always_inline)) void np_semhit(itf_np *np, np_ln *L, size_t k, const uint64_t *cur,
                                                            struct itf_npst *st)
{
    uint64_t v = cur[k];
    L->last[k] = v;
    itf_npx *e = L->e + k;
    e->last = v;
    e->seen = 1;
    uint64_t key = mem_key(L, k, cur, st);
    if (key)
        mem_store(np, itf_np_mem_find(np, key), key, v);
    if ((int)k == L->pcs)
        pc_known(np, L, v);
}

/* Copies n values: a jump into straight stores for the few numbers of a Tarmac line,
 * instead of a memcpy call whose start-up (rep movsq) cost more than the copy (8 % of a
 * Tarmac decode) or a loop whose bounds checks cost about as much. */
static inline void copy_nums(uint64_t *d, const uint64_t *s, size_t n)
{
    switch (n) {
    case 4: d[3] = s[3]; /* fall through */
    case 3: d[2] = s[2]; /* fall through */
    case 2: d[1] = s[1]; /* fall through */
    case 1: d[0] = s[0]; /* fall through */
    case 0: break;
    default:
        for (size_t k = 0; k < n; k++)
            d[k] = s[k];
    }
}

static inline __attribute__((always_inline)) void np_end(itf_np *np, const np_ln *L, const uint64_t *cur)
{
    size_t m = L->nn < ITF_NP_COLS ? L->nn : ITF_NP_COLS;
    copy_nums(np->prev, cur, m);
    np->prevn = m;
    copy_nums(L->cls, cur, m);
    if (np->v4)
        np->rline++;
    if (np->sem.isa)
        sem_end(&np->sem, L->id, cur, L->nn, L->semall, L->semv);
}

/* One line's numbers decoded from nu[0..3] (number k from nu[min(k, 3)]); -1 when a
 * stream is corrupt. */
static inline __attribute__((always_inline)) int np_decode_line(itf_np *np, uint32_t id, uint64_t *nums, itf_zrun_reader *nu)
{
    np_ln L;
    struct itf_npst st;
    ln_init(np, id, &L);
    /* (in locals: stores through the model's uint64_t pointers may alias L's fields) */
    const size_t nn = L.nn;
    const uint32_t semm = np->v10 ? L.semm : 0;
    for (size_t k = 0; k < nn; k++) {
        uint64_t z = itf_zrun_reader_get(&nu[k < 3 ? k : 3]);
        int sem = k < 32 && (semm >> k & 1);
        if (sem && z == 0) {
            nums[k] = L.semv[k];
            np_semhit(np, &L, k, nums, &st);
            continue;
        }
        uint64_t p = np_predict(np, &L, k, nums, &st);
        if (sem)
            z = sem_miss_uncode(z, itf_zz((int64_t)(L.semv[k] - p)));
        nums[k] = p + ((z >> 1) ^ (0 - (z & 1)));
        np_update(np, &L, k, nums, &st);
    }
    np_end(np, &L, nums);
    return nu[0].bad | nu[1].bad | nu[2].bad | nu[3].bad ? -1 : 0;
}

/* One number at a time (tests): the line's places taken again for each. */
uint64_t itf_np_predict(itf_np *np, uint32_t id, size_t k, const uint64_t *cur)
{
    np_ln L;
    ln_init(np, id, &L);
    return np_predict(np, &L, k, cur, &np->st);
}
void itf_np_update(itf_np *np, uint32_t id, size_t k, const uint64_t *cur)
{
    np_ln L;
    ln_init(np, id, &L);
    np_update(np, &L, k, cur, &np->st);
}

void itf_np_end(itf_np *np, uint32_t id, const uint64_t *cur)
{
    np_ln L;
    ln_init(np, id, &L);
    np_end(np, &L, cur);
}

/* One line's numbers at a time, so that prediction and update are inlined into the
 * loop (they are most of the line model's time): number k goes to stream
 * out[min(k, 3)] as the zig-zag residual from its prediction. */
void itf_np_encode_line(itf_np *np, uint32_t id, const uint64_t *nums, tz_buf *const out[4])
{
    np_ln L;
    struct itf_npst st;
    ln_init(np, id, &L);
    for (size_t k = 0; k < L.nn; k++) {
        tz_buf *o = out[k < 3 ? k : 3];
        int sem = np->v10 && k < 32 && (L.semm >> k & 1);
        if (sem && nums[k] == L.semv[k]) {
            itf_put_uv(o, 0);
            np_semhit(np, &L, k, nums, &st);
            continue;
        }
        uint64_t p = np_predict(np, &L, k, nums, &st), z = itf_zz((int64_t)(nums[k] - p));
        itf_put_uv(o, sem ? sem_miss_code(z, itf_zz((int64_t)(L.semv[k] - p))) : z);
        np_update(np, &L, k, nums, &st);
    }
    np_end(np, &L, nums);
}

/* The per-line steps, for the writer (itf_write.c) and the reader (itf_read_line.c). */
long itf_np_skel_predict(itf_np *np) { return np_skel_predict(np); }
int itf_np_begin(itf_np *np, uint32_t id) { return np_begin(np, id); }
int itf_np_decode_line(itf_np *np, uint32_t id, uint64_t *nums, itf_zrun_reader *nu)
{
    if (np_begin(np, id) < 0)
        return -1;
    return np_decode_line(np, id, nums, nu) < 0 ? -2 : 0;
}
