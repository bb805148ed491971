/* Cycle analyses on the grammar, without expanding it.
 *
 * A cycle is identified by the polynomial hash (mod 2^61-1) and the length of its
 * content. Every rule gets a summary bottom-up: whether it contains the loop header,
 * else the hash of its whole expansion; if it does, the piece before its first loop_header
 * (prefix) and the piece from its last loop_header to its end (suffix). Walking a rule's body
 * with these summaries yields the cycles whose boundaries fall at that rule's level
 * (cycles inside children are their children's own), so counting costs O(|G|). */
#include <stdlib.h>
#include <string.h>
#include "grammar/gram_internal.h"
#include "util/util.h"

#define MP ((UINT64_C(1) << 61) - 1)
#define BASE UINT64_C(0x1F3D5B79A1C3E5)

typedef struct piece {
    uint64_t h, l;
} piece;

static uint64_t mulm(uint64_t a, uint64_t b)
{
    __uint128_t p = (__uint128_t)a * b;
    uint64_t lo = (uint64_t)(p & MP), hi = (uint64_t)(p >> 61);
    uint64_t s = lo + hi;
    return s >= MP ? s - MP : s;
}

static uint64_t addm(uint64_t a, uint64_t b)
{
    uint64_t s = a + b;
    return s >= MP ? s - MP : s;
}

static uint64_t powb(uint64_t e)
{
    uint64_t r = 1, b = BASE % MP;
    while (e) {
        if (e & 1)
            r = mulm(r, b);
        b = mulm(b, b);
        e >>= 1;
    }
    return r;
}

static piece cat(piece a, piece b)
{
    piece r = {addm(mulm(a.h, powb(b.l)), b.h), a.l + b.l};
    return r;
}

static piece repp(piece x, uint64_t n)
{
    piece r = {0, 0};
    while (n) { /* r = r . x^(bits) using doubling of x */
        if (n & 1)
            r = cat(r, x);
        n >>= 1;
        if (n)
            x = cat(x, x);
    }
    return r;
}

static uint64_t term_hash(uint64_t v)
{
    return tz_hash_u64(v) % (MP - 1) + 1;
}

typedef struct cctx {
    const traza_grammar *g;
    uint64_t loop_header;
    uint8_t *has;
    piece *whole, *pre, *suf;
    uint8_t *inner;   /* the rule's subtree emits cycles */
    /* emission callback */
    int (*emit)(struct cctx *c, uint32_t r, piece p, uint64_t mult, uint64_t off, uint64_t stride);
    void *user;
} cctx;

static void sym_summary(cctx *c, const traza_gsym *s, int *has, piece *w, piece *P, piece *Q)
{
    if (s->is_rule) {
        *has = c->has[s->value];
        *w = c->whole[s->value];
        *P = c->pre[s->value];
        *Q = c->suf[s->value];
    } else if (s->value == c->loop_header) {
        *has = 1;
        P->h = P->l = 0;
        Q->h = term_hash(s->value);
        Q->l = 1;
    } else {
        *has = 0;
        w->h = term_hash(s->value);
        w->l = 1;
    }
}

/* Walks rule r's body at its own level; fills its summary when `summ`. Emits the
 * cycles bounded at this level (and, for rule 0, the first and last cycles). */
static int walk(cctx *c, uint32_t r, int summ)
{
    const traza_grammar *g = c->g;
    piece cur = {0, 0}, prefix = {0, 0};
    uint64_t curstart = 0;
    int seen = 0, emitted = 0;
    for (uint64_t k = g->off[r]; k < g->off[r + 1]; k++) {
        const traza_gsym *s = &g->syms[k];
        int has;
        piece w = {0, 0}, P = {0, 0}, Q = {0, 0};
        sym_summary(c, s, &has, &w, &P, &Q);
        uint64_t u = s->is_rule ? g->len[s->value] : 1, a = g->cum[k];
        if (!has) {
            cur = cat(cur, s->rep == 1 ? w : repp(w, s->rep));
            continue;
        }
        cur = cat(cur, P);
        if (seen) {
            if (c->emit && c->emit(c, r, cur, 1, curstart, 0) < 0)
                return -1;
            emitted = 1;
        } else {
            prefix = cur;
            if (r == 0 && cur.l && c->emit && c->emit(c, r, cur, 1, 0, 0) < 0)
                return -1;
        }
        seen = 1;
        if (s->rep > 1) {
            if (c->emit && c->emit(c, r, cat(Q, P), s->rep - 1, a + u - Q.l, u) < 0)
                return -1;
            emitted = 1;
        }
        cur = Q;
        curstart = a + (s->rep - 1) * u + u - Q.l;
    }
    if (r == 0 && cur.l && c->emit && c->emit(c, r, cur, 1, seen ? curstart : 0, 0) < 0)
        return -1;
    if (summ) {
        c->has[r] = (uint8_t)seen;
        if (seen) {
            c->pre[r] = prefix;
            c->suf[r] = cur;
        } else {
            c->whole[r] = cur;
        }
        c->inner[r] = (uint8_t)emitted;
    }
    return 0;
}

static int prepare(cctx *c, const traza_grammar *g, uint64_t loop_header, uint32_t **order, traza_err *err)
{
    memset(c, 0, sizeof *c);
    c->g = g;
    c->loop_header = loop_header;
    uint32_t n = g->nrules;
    c->has = calloc(n, 1);
    c->inner = calloc(n, 1);
    c->whole = calloc(n, sizeof *c->whole);
    c->pre = calloc(n, sizeof *c->pre);
    c->suf = calloc(n, sizeof *c->suf);
    if (!c->has || !c->inner || !c->whole || !c->pre || !c->suf)
        return traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
    if (tzg_topo(g, order, err) < 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = (*order)[i];
        walk(c, r, 1);
        /* inner: also true when a child emits */
        for (uint64_t k = g->off[r]; k < g->off[r + 1]; k++)
            if (g->syms[k].is_rule && c->inner[g->syms[k].value])
                c->inner[r] = 1;
    }
    return 0;
}

static void release(cctx *c)
{
    free(c->has), free(c->inner), free(c->whole), free(c->pre), free(c->suf);
}

/* ---- the cycle table --------------------------------------------------------------- */

typedef struct tabctx {
    tz_imap idx;
    traza_gcycle *tab;
    size_t n, cap;
    uint64_t *occ, *firstpos;
    int oom;
} tabctx;

static int64_t ckey(piece p)
{
    return (int64_t)(p.h ^ tz_hash_u64(p.l * 0x9E3779B97F4A7C15ULL + 7));
}

static int lookup(tabctx *t, piece p, int create)
{
    int64_t v;
    if (tz_imap_get(&t->idx, ckey(p), &v))
        return (int)v;
    if (!create)
        return -1;
    if (TZ_GROW(t->tab, t->cap, t->n + 1) < 0 || tz_imap_put(&t->idx, ckey(p), (int64_t)t->n) < 0) {
        t->oom = 1;
        return -1;
    }
    memset(&t->tab[t->n], 0, sizeof t->tab[t->n]);
    t->tab[t->n].hash = p.h;
    t->tab[t->n].length = p.l;
    t->tab[t->n].first = UINT64_MAX;
    return (int)t->n++;
}

static int emit_count(cctx *c, uint32_t r, piece p, uint64_t mult, uint64_t off, uint64_t stride)
{
    (void)stride;
    tabctx *t = c->user;
    int i = lookup(t, p, 1);
    if (i < 0)
        return -1;
    t->tab[i].count += t->occ[r] * mult;
    if (t->firstpos[r] + off < t->tab[i].first)
        t->tab[i].first = t->firstpos[r] + off;
    return 0;
}

static int cyc_cmp(const void *a, const void *b)
{
    const traza_gcycle *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

int traza_grammar_cycles(const traza_grammar *g, uint64_t loop_header, traza_gcycle **out, size_t *nout, traza_err *err)
{
    cctx c;
    uint32_t *order = NULL;
    tabctx t;
    memset(&t, 0, sizeof t);
    tz_imap_init(&t.idx);
    *out = NULL;
    *nout = 0;
    int rc = -1;
    if (prepare(&c, g, loop_header, &order, err) < 0)
        goto done;
    t.occ = calloc(g->nrules, sizeof *t.occ);
    t.firstpos = malloc(g->nrules * sizeof *t.firstpos);
    if (!t.occ || !t.firstpos) {
        traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < g->nrules; i++)
        t.firstpos[i] = UINT64_MAX;
    t.occ[0] = 1;
    t.firstpos[0] = 0;
    for (uint32_t i = g->nrules; i-- > 0;) { /* parents first */
        uint32_t r = order[i];
        for (uint64_t k = g->off[r]; k < g->off[r + 1]; k++) {
            const traza_gsym *s = &g->syms[k];
            if (!s->is_rule)
                continue;
            t.occ[s->value] += t.occ[r] * s->rep;
            if (t.firstpos[r] != UINT64_MAX && t.firstpos[r] + g->cum[k] < t.firstpos[s->value])
                t.firstpos[s->value] = t.firstpos[r] + g->cum[k];
        }
    }
    c.emit = emit_count;
    c.user = &t;
    for (uint32_t r = 0; r < g->nrules; r++)
        if (t.occ[r] && walk(&c, r, 0) < 0)
            break;
    if (t.oom) {
        traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
        goto done;
    }
    if (t.n)
        qsort(t.tab, t.n, sizeof *t.tab, cyc_cmp);
    *out = t.tab;
    *nout = t.n;
    t.tab = NULL;
    rc = 0;
done:
    release(&c);
    free(order);
    free(t.tab), free(t.occ), free(t.firstpos);
    tz_imap_free(&t.idx);
    return rc;
}

/* ---- positions of one cycle ------------------------------------------------------- */

typedef struct posctx {
    piece target;
    uint8_t *contains;
    uint64_t base;
    tz_buf out;
} posctx;

static int emit_pos(cctx *c, uint32_t r, piece p, uint64_t mult, uint64_t off, uint64_t stride)
{
    (void)r;
    posctx *x = c->user;
    if (p.h != x->target.h || p.l != x->target.l)
        return 0;
    for (uint64_t t = 0; t < mult; t++) {
        uint64_t v = x->base + off + t * stride;
        tz_buf_put(&x->out, &v, sizeof v);
    }
    return x->out.oom ? -1 : 0;
}

static int emit_mark(cctx *c, uint32_t r, piece p, uint64_t mult, uint64_t off, uint64_t stride)
{
    (void)mult, (void)off, (void)stride;
    posctx *x = c->user;
    if (p.h == x->target.h && p.l == x->target.l)
        x->contains[r] = 1;
    return 0;
}

static int visit_pos(cctx *c, uint32_t r, uint64_t base)
{
    posctx *x = c->user;
    const traza_grammar *g = c->g;
    /* cycles of this level and of the children come out in position order */
    x->base = base;
    size_t before = x->out.len;
    if (walk(c, r, 0) < 0)
        return -1;
    (void)before;
    for (uint64_t k = g->off[r]; k < g->off[r + 1]; k++) {
        const traza_gsym *s = &g->syms[k];
        if (!s->is_rule || !x->contains[s->value])
            continue;
        uint64_t u = g->len[s->value];
        for (uint64_t t = 0; t < s->rep; t++)
            if (visit_pos(c, (uint32_t)s->value, base + g->cum[k] + t * u) < 0)
                return -1;
    }
    return 0;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int traza_grammar_cycle_positions(const traza_grammar *g, uint64_t loop_header, uint64_t hash, uint64_t length,
                                  uint64_t **pos, size_t *n, traza_err *err)
{
    cctx c;
    uint32_t *order = NULL;
    posctx x;
    memset(&x, 0, sizeof x);
    tz_buf_init(&x.out);
    *pos = NULL;
    *n = 0;
    int rc = -1;
    if (prepare(&c, g, loop_header, &order, err) < 0)
        goto done;
    x.target.h = hash;
    x.target.l = length;
    x.contains = calloc(g->nrules, 1);
    if (!x.contains) {
        traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
        goto done;
    }
    c.user = &x;
    c.emit = emit_mark;
    for (uint32_t i = 0; i < g->nrules; i++) {
        uint32_t r = order[i];
        walk(&c, r, 0);
        for (uint64_t k = g->off[r]; k < g->off[r + 1]; k++)
            if (g->syms[k].is_rule && x.contains[g->syms[k].value])
                x.contains[r] = 1;
    }
    c.emit = emit_pos;
    if (visit_pos(&c, 0, 0) < 0 || x.out.oom) {
        traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
        goto done;
    }
    *n = x.out.len / sizeof(uint64_t);
    *pos = (uint64_t *)(void *)x.out.s;
    x.out.s = NULL;
    if (*n)
        qsort(*pos, *n, sizeof **pos, u64_cmp);
    rc = 0;
done:
    release(&c);
    free(order);
    free(x.contains);
    tz_buf_free(&x.out);
    return rc;
}

/* ---- the cycle sequence, run-length encoded --------------------------------------- */

typedef struct runctx {
    tz_imap idx;
    tz_buf out;
    uint64_t base;
} runctx;

static int emit_run(cctx *c, uint32_t r, piece p, uint64_t mult, uint64_t off, uint64_t stride)
{
    (void)r, (void)stride;
    runctx *x = c->user;
    int64_t ci;
    if (!tz_imap_get(&x->idx, ckey(p), &ci))
        ci = -1;
    traza_gcrun *last = x->out.len ? (traza_gcrun *)(void *)(x->out.s + x->out.len - sizeof *last) : NULL;
    if (last && (int64_t)last->cycle == ci) {
        last->rep += mult;
        return 0;
    }
    traza_gcrun run = {(uint32_t)ci, mult, x->base + off};
    tz_buf_put(&x->out, &run, sizeof run);
    return x->out.oom ? -1 : 0;
}

/* In-order walk: like walk(), but descends into children that emit cycles. */
static int visit_runs(cctx *c, uint32_t r, uint64_t base)
{
    runctx *x = c->user;
    const traza_grammar *g = c->g;
    piece cur = {0, 0};
    uint64_t curstart = 0;
    int seen = 0;
    for (uint64_t k = g->off[r]; k < g->off[r + 1]; k++) {
        const traza_gsym *s = &g->syms[k];
        int has;
        piece w = {0, 0}, P = {0, 0}, Q = {0, 0};
        sym_summary(c, s, &has, &w, &P, &Q);
        uint64_t u = s->is_rule ? g->len[s->value] : 1, a = g->cum[k];
        if (!has) {
            cur = cat(cur, s->rep == 1 ? w : repp(w, s->rep));
            continue;
        }
        cur = cat(cur, P);
        x->base = base;
        if (seen || (r == 0 && cur.l)) {
            if (emit_run(c, r, cur, 1, seen ? curstart : 0, 0) < 0)
                return -1;
        }
        seen = 1;
        int inner = s->is_rule && c->inner[s->value];
        if (!inner) {
            x->base = base;
            if (s->rep > 1 && emit_run(c, r, cat(Q, P), s->rep - 1, a + u - Q.l, u) < 0)
                return -1;
        } else {
            for (uint64_t t = 0; t < s->rep; t++) {
                if (t > 0) {
                    x->base = base;
                    if (emit_run(c, r, cat(Q, P), 1, a + (t - 1) * u + u - Q.l, 0) < 0)
                        return -1;
                }
                if (visit_runs(c, (uint32_t)s->value, base + a + t * u) < 0)
                    return -1;
            }
        }
        cur = Q;
        curstart = a + (s->rep - 1) * u + u - Q.l;
    }
    x->base = base;
    if (r == 0 && cur.l && emit_run(c, r, cur, 1, seen ? curstart : 0, 0) < 0)
        return -1;
    return 0;
}

int traza_grammar_cycle_runs(const traza_grammar *g, uint64_t loop_header, const traza_gcycle *tab, size_t ntab,
                             traza_gcrun **out, size_t *n, traza_err *err)
{
    cctx c;
    uint32_t *order = NULL;
    runctx x;
    memset(&x, 0, sizeof x);
    tz_imap_init(&x.idx);
    tz_buf_init(&x.out);
    *out = NULL;
    *n = 0;
    int rc = -1;
    if (prepare(&c, g, loop_header, &order, err) < 0)
        goto done;
    for (size_t i = 0; i < ntab; i++) {
        piece p = {tab[i].hash, tab[i].length};
        if (tz_imap_put(&x.idx, ckey(p), (int64_t)i) < 0) {
            traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
            goto done;
        }
    }
    c.user = &x;
    if (visit_runs(&c, 0, 0) < 0 || x.out.oom) {
        traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
        goto done;
    }
    *n = x.out.len / sizeof(traza_gcrun);
    *out = (traza_gcrun *)(void *)x.out.s;
    x.out.s = NULL;
    rc = 0;
done:
    release(&c);
    free(order);
    tz_buf_free(&x.out);
    tz_imap_free(&x.idx);
    return rc;
}

/* ---- the cycle sequence as a grammar ------------------------------------------------ */

typedef struct cgb {
    tz_imap idx;      /* cycle key -> table index */
    traza_gsym *syms; /* bodies of the rules 1.. */
    size_t nsyms, capsyms;
    uint64_t *start, *count; /* per rule 1..: its body in syms (index rule-1) */
    size_t nrules, caprules, caprules2;
    traza_gsym *tb;   /* the body being built */
    size_t ntb, captb;
    int oom, missing;
} cgb;

static void cg_add(cgb *b, uint64_t v, int is_rule, uint64_t rep)
{
    if (b->ntb) { /* runs: a^n a^m = a^(n+m) */
        traza_gsym *l = &b->tb[b->ntb - 1];
        if (l->value == v && l->is_rule == (uint32_t)is_rule) {
            l->rep += rep;
            return;
        }
    }
    if (TZ_GROW(b->tb, b->captb, b->ntb + 1) < 0) {
        b->oom = 1;
        return;
    }
    traza_gsym s = {v, rep, (uint32_t)is_rule};
    b->tb[b->ntb++] = s;
}

static void cg_cycle(cgb *b, piece p, uint64_t rep)
{
    int64_t ci;
    if (!tz_imap_get(&b->idx, ckey(p), &ci)) {
        b->missing = 1;
        return;
    }
    cg_add(b, (uint64_t)ci, 0, rep);
}

/* A new rule with body items[0..n); returns its id (0 on out of memory). */
static uint64_t cg_rule(cgb *b, const traza_gsym *items, size_t n)
{
    if (TZ_GROW(b->syms, b->capsyms, b->nsyms + n) < 0 || TZ_GROW(b->start, b->caprules, b->nrules + 1) < 0 ||
        TZ_GROW(b->count, b->caprules2, b->nrules + 1) < 0) {
        b->oom = 1;
        return 0;
    }
    memcpy(b->syms + b->nsyms, items, n * sizeof *items);
    b->start[b->nrules] = b->nsyms;
    b->count[b->nrules] = n;
    b->nsyms += n;
    return ++b->nrules; /* ids from 1; the root is 0 */
}

/* Walks rule r's body and builds its cycle string in b->tb: the complete cycles
 * between its first and last loop header (for the root: all cycles). `in` holds the
 * children's cycle-string rules (0: none). */
static void cg_body(cctx *c, cgb *b, uint32_t r, const uint64_t *in)
{
    const traza_grammar *g = c->g;
    piece cur = {0, 0};
    int seen = 0;
    b->ntb = 0;
    for (uint64_t k = g->off[r]; k < g->off[r + 1]; k++) {
        const traza_gsym *s = &g->syms[k];
        int has;
        piece w = {0, 0}, P = {0, 0}, Q = {0, 0};
        sym_summary(c, s, &has, &w, &P, &Q);
        if (!has) {
            cur = cat(cur, s->rep == 1 ? w : repp(w, s->rep));
            continue;
        }
        cur = cat(cur, P);
        if (seen || (r == 0 && cur.l))
            cg_cycle(b, cur, 1);
        seen = 1;
        uint64_t child = s->is_rule ? in[s->value] : 0;
        if (child)
            cg_add(b, child, 1, 1);
        if (s->rep > 1) {
            int64_t ci;
            if (!tz_imap_get(&b->idx, ckey(cat(Q, P)), &ci)) {
                b->missing = 1;
                return;
            }
            if (!child) {
                cg_add(b, (uint64_t)ci, 0, s->rep - 1);
            } else { /* (B X)^(rep-1): B the cycle across two copies, X the child's */
                traza_gsym pair[2] = {{(uint64_t)ci, 1, 0}, {child, 1, 1}};
                uint64_t aux = cg_rule(b, pair, 2);
                if (!aux)
                    return;
                cg_add(b, aux, 1, s->rep - 1);
            }
        }
        cur = Q;
    }
    if (r == 0 && cur.l)
        cg_cycle(b, cur, 1);
}

int traza_grammar_cycle_grammar(const traza_grammar *g, uint64_t loop_header, const traza_gcycle *tab, size_t ntab,
                                traza_grammar **out, uint64_t **wlen, traza_err *err)
{
    cctx c;
    uint32_t *order = NULL;
    uint64_t *in = NULL;
    cgb b;
    memset(&b, 0, sizeof b);
    tz_imap_init(&b.idx);
    traza_grammar *cg = NULL;
    *out = NULL;
    if (wlen)
        *wlen = NULL;
    int rc = -1;
    if (prepare(&c, g, loop_header, &order, err) < 0)
        goto done;
    for (size_t i = 0; i < ntab; i++) {
        piece p = {tab[i].hash, tab[i].length};
        if (tz_imap_put(&b.idx, ckey(p), (int64_t)i) < 0) {
            b.oom = 1;
            break;
        }
    }
    in = calloc(g->nrules, sizeof *in);
    if (!in)
        b.oom = 1;
    for (uint32_t i = 0; i < g->nrules && !b.oom && !b.missing; i++) {
        uint32_t r = order[i];
        if (r == 0 || !c.has[r])
            continue;
        cg_body(&c, &b, r, in);
        if (b.ntb == 1 && b.tb[0].is_rule && b.tb[0].rep == 1)
            in[r] = b.tb[0].value; /* a lone reference: reuse that rule */
        else if (b.ntb)
            in[r] = cg_rule(&b, b.tb, b.ntb);
    }
    if (!b.oom && !b.missing)
        cg_body(&c, &b, 0, in);
    if (b.missing) {
        traza_err_set(err, TRAZA_E_USAGE, "grammar: a cycle is missing from the cycle table");
        goto done;
    }
    cg = calloc(1, sizeof *cg);
    if (b.oom || !cg || b.nrules >= UINT32_MAX - 1)
        goto nomem;
    cg->algo = TRAZA_G_RESEQUITUR;
    cg->nrules = (uint32_t)b.nrules + 1;
    cg->off = malloc((cg->nrules + 1) * sizeof *cg->off);
    cg->syms = malloc((b.ntb + b.nsyms + 1) * sizeof *cg->syms);
    cg->is_cycle = calloc(cg->nrules, 1);
    if (!cg->off || !cg->syms || !cg->is_cycle)
        goto nomem;
    if (b.ntb)
        memcpy(cg->syms, b.tb, b.ntb * sizeof *b.tb);
    cg->off[0] = 0;
    uint64_t at = b.ntb;
    for (size_t r = 0; r < b.nrules; r++) {
        cg->off[r + 1] = at;
        memcpy(cg->syms + at, b.syms + b.start[r], b.count[r] * sizeof *b.syms);
        at += b.count[r];
    }
    cg->off[cg->nrules] = at;
    if (traza_grammar_finish(cg, err) < 0)
        goto done;
    if (wlen) { /* rules 1.. only use rules created before them; the root uses any */
        *wlen = malloc(cg->nrules * sizeof **wlen);
        if (!*wlen)
            goto nomem;
        for (uint32_t i = 1; i <= cg->nrules; i++) {
            uint32_t r = i == cg->nrules ? 0 : i;
            uint64_t acc = 0;
            for (uint64_t k = cg->off[r]; k < cg->off[r + 1]; k++) {
                const traza_gsym *s = &cg->syms[k];
                acc += s->rep * (s->is_rule ? (*wlen)[s->value] : tab[s->value].length);
            }
            (*wlen)[r] = acc;
        }
    }
    *out = cg;
    cg = NULL;
    rc = 0;
    goto done;
nomem:
    traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
done:
    traza_grammar_free(cg);
    release(&c);
    free(order);
    free(in);
    free(b.syms), free(b.start), free(b.count), free(b.tb);
    tz_imap_free(&b.idx);
    return rc;
}
