/* Grammars: validation, expansion lengths, metrics, property checks. */
#include "grammar/gram_internal.h"

#include <stdlib.h>
#include <string.h>
#include "util/util.h"

const char *traza_galgo_name(traza_galgo a)
{
    switch (a) {
    case TRAZA_G_SEQUITUR: return "sequitur";
    case TRAZA_G_RESEQUITUR: return "resequitur";
    case TRAZA_G_CYCLITUR: return "cyclitur";
    }
    return "?";
}

int traza_galgo_parse(const char *name)
{
    for (int a = 0; a <= TRAZA_G_CYCLITUR; a++)
        if (strcmp(name, traza_galgo_name((traza_galgo)a)) == 0)
            return a;
    return -1;
}

void traza_grammar_free(traza_grammar *g)
{
    if (!g)
        return;
    free(g->off);
    free(g->syms);
    free(g->is_cycle);
    free(g->len);
    free(g->cum);
    for (size_t k = 0; k < g->nnames; k++)
        free(g->names[k]);
    free(g->names);
    free(g->name_vals);
    free(g);
}

int tzg_topo(const traza_grammar *g, uint32_t **order_out, traza_err *err)
{
    uint32_t n = g->nrules;
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    uint8_t *state = calloc(n ? n : 1, 1);
    uint32_t *stk = malloc((n ? n : 1) * sizeof *stk);
    uint64_t *pos = malloc((n ? n : 1) * sizeof *pos);
    if (!order || !state || !stk || !pos) {
        free(order), free(state), free(stk), free(pos);
        return traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
    }
    size_t no = 0;
    for (uint32_t root = 0; root < n; root++) {
        if (state[root])
            continue;
        size_t sp = 0;
        stk[sp] = root;
        pos[sp++] = g->off[root];
        state[root] = 1;
        while (sp) {
            uint32_t r = stk[sp - 1];
            if (pos[sp - 1] < g->off[r + 1]) {
                const traza_gsym *s = &g->syms[pos[sp - 1]++];
                if (!s->is_rule)
                    continue;
                uint32_t c = (uint32_t)s->value;
                if (state[c] == 1) {
                    free(order), free(state), free(stk), free(pos);
                    return traza_err_set(err, TRAZA_E_FORMAT, "grammar: rule %u refers to itself through rule %u",
                                         c, r);
                }
                if (state[c] == 0) {
                    state[c] = 1;
                    stk[sp] = c;
                    pos[sp++] = g->off[c];
                }
            } else {
                state[r] = 2;
                order[no++] = r;
                sp--;
            }
        }
    }
    free(state), free(stk), free(pos);
    *order_out = order;
    return 0;
}

int traza_grammar_finish(traza_grammar *g, traza_err *err)
{
    if (g->nrules == 0 || !g->off || g->off[0] != 0)
        return traza_err_set(err, TRAZA_E_FORMAT, "grammar: no start rule");
    for (uint32_t r = 0; r < g->nrules; r++) {
        if (g->off[r + 1] < g->off[r])
            return traza_err_set(err, TRAZA_E_FORMAT, "grammar: rule %u has a negative body length", r);
        if (r > 0 && g->off[r + 1] == g->off[r])
            return traza_err_set(err, TRAZA_E_FORMAT, "grammar: rule %u has an empty body", r);
    }
    uint64_t total = g->off[g->nrules];
    for (uint64_t i = 0; i < total; i++) {
        if (g->syms[i].rep == 0)
            return traza_err_set(err, TRAZA_E_FORMAT, "grammar: symbol %llu has repetition count 0",
                                 (unsigned long long)i);
        if (g->syms[i].is_rule && (g->syms[i].value == 0 || g->syms[i].value >= g->nrules))
            return traza_err_set(err, TRAZA_E_FORMAT, "grammar: symbol %llu refers to rule %llu (expected 1..%u)",
                                 (unsigned long long)i, (unsigned long long)g->syms[i].value, g->nrules - 1);
    }
    uint32_t *order;
    if (tzg_topo(g, &order, err) < 0)
        return -1;
    free(g->len);
    free(g->cum);
    g->len = malloc(g->nrules * sizeof *g->len);
    g->cum = malloc((total ? total : 1) * sizeof *g->cum);
    uint32_t *dep = calloc(g->nrules, sizeof *dep);
    if (!g->len || !g->cum || !dep) {
        free(order), free(dep);
        return traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
    }
    const uint64_t lim = UINT64_C(1) << 63;
    for (uint32_t oi = 0; oi < g->nrules; oi++) {
        uint32_t r = order[oi];
        uint64_t acc = 0;
        uint32_t d = 0;
        for (uint64_t k = g->off[r]; k < g->off[r + 1]; k++) {
            const traza_gsym *s = &g->syms[k];
            uint64_t unit = s->is_rule ? g->len[s->value] : 1;
            g->cum[k] = acc;
            if (s->is_rule && dep[s->value] > d)
                d = dep[s->value];
            if (unit && s->rep > (lim - acc) / unit) {
                free(order), free(dep);
                return traza_err_set(err, TRAZA_E_FORMAT, "grammar: rule %u expands to more than 2^63 symbols", r);
            }
            acc += s->rep * unit;
        }
        g->len[r] = acc;
        dep[r] = d + 1;
    }
    g->depth = dep[0];
    free(order);
    free(dep);
    return 0;
}

int traza_grammar_stats(const traza_grammar *g, traza_gstats *st, traza_err *err)
{
    memset(st, 0, sizeof *st);
    st->rules = g->nrules;
    st->size = g->off[g->nrules] + g->nrules;
    st->length = g->len[0];
    st->comp = st->length ? (double)st->size / (double)st->length : 0.0;
    st->depth = g->depth;
    if (g->has_loop_header) {
        traza_gcycle *tab;
        size_t n;
        if (traza_grammar_cycles(g, g->loop_header, &tab, &n, err) < 0)
            return -1;
        st->distinct_cycles = n;
        for (size_t i = 0; i < n; i++)
            st->cycles += tab[i].count;
        free(tab);
    }
    return 0;
}

/* ---- property checks -------------------------------------------------------------- */

typedef struct dg {
    uint64_t h;
    uint64_t pos; /* index of the first symbol in syms */
    uint32_t rule;
} dg;

static int dg_cmp(const void *a, const void *b)
{
    const dg *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int sym_eq(const traza_gsym *a, const traza_gsym *b, int withrep)
{
    return a->is_rule == b->is_rule && a->value == b->value && (!withrep || a->rep == b->rep);
}

static uint64_t sym_hash(const traza_gsym *s, int withrep)
{
    return tz_hash_u64(s->value * 2 + s->is_rule + (withrep ? s->rep * 0x9E3779B97F4A7C15ULL : 0));
}

int traza_grammar_check(const traza_grammar *g, int rle, traza_err *err)
{
    uint64_t total = g->off[g->nrules];
    dg *d = malloc((total ? total : 1) * sizeof *d);
    uint64_t *uses = calloc(g->nrules, sizeof *uses);
    if (!d || !uses) {
        free(d), free(uses);
        return traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
    }
    size_t nd = 0;
    int rc = 0;
    for (uint32_t r = 0; r < g->nrules && !rc; r++) {
        for (uint64_t k = g->off[r]; k < g->off[r + 1]; k++) {
            const traza_gsym *s = &g->syms[k];
            if (s->is_rule)
                uses[s->value] += s->rep;
            if (k + 1 < g->off[r + 1]) {
                if (rle && sym_eq(s, s + 1, 0)) {
                    rc = traza_err_set(err, TRAZA_E_INTERNAL, "consecutive repetition in rule %u at %llu", r,
                                       (unsigned long long)(k - g->off[r]));
                    break;
                }
                d[nd].h = tz_hash_u64(sym_hash(s, rle) ^ (sym_hash(s + 1, rle) * 3));
                d[nd].pos = k;
                d[nd].rule = r;
                nd++;
            }
        }
    }
    if (!rc) {
        qsort(d, nd, sizeof *d, dg_cmp);
        for (size_t i = 0; i < nd && !rc; i++) {
            for (size_t j = i + 1; j < nd && d[j].h == d[i].h; j++) {
                const traza_gsym *a = &g->syms[d[i].pos], *b = &g->syms[d[j].pos];
                if (!sym_eq(a, b, rle) || !sym_eq(a + 1, b + 1, rle))
                    continue;
                if (d[i].rule == d[j].rule && d[j].pos == d[i].pos + 1)
                    continue; /* overlapping (aaa) */
                rc = traza_err_set(err, TRAZA_E_INTERNAL,
                                   "digram uniqueness: rule %u pos %llu and rule %u pos %llu", d[i].rule,
                                   (unsigned long long)(d[i].pos - g->off[d[i].rule]), d[j].rule,
                                   (unsigned long long)(d[j].pos - g->off[d[j].rule]));
                break;
            }
        }
    }
    for (uint32_t r = 1; r < g->nrules && !rc; r++)
        if (!g->is_cycle[r] && uses[r] < 2)
            rc = traza_err_set(err, TRAZA_E_INTERNAL, "rule utility: rule %u is used %llu time(s)", r,
                               (unsigned long long)uses[r]);
    free(d);
    free(uses);
    return rc;
}

/* ---- random access ------------------------------------------------------------------ */

static uint64_t unit_len(const traza_grammar *g, const traza_gsym *s)
{
    return s->is_rule ? g->len[s->value] : 1;
}

/* Index (in syms) of the r-pair of rule r holding offset i (i < len[r]). */
static uint64_t find_pair(const traza_grammar *g, uint32_t r, uint64_t i)
{
    uint64_t lo = g->off[r], hi = g->off[r + 1] - 1;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (g->cum[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int traza_grammar_at(const traza_grammar *g, uint64_t i, uint64_t *out, traza_err *err)
{
    if (i >= g->len[0])
        return traza_err_set(err, TRAZA_E_USAGE, "position %llu is past the end (length %llu)",
                             (unsigned long long)i, (unsigned long long)g->len[0]);
    uint32_t r = 0;
    for (;;) {
        uint64_t k = find_pair(g, r, i);
        const traza_gsym *s = &g->syms[k];
        i = (i - g->cum[k]) % unit_len(g, s);
        if (!s->is_rule) {
            *out = s->value;
            return 0;
        }
        r = (uint32_t)s->value;
    }
}

typedef struct xframe {
    uint32_t r;
    uint64_t k;    /* index into syms */
    uint64_t left; /* repetitions of syms[k] left, the current one included */
} xframe;

int traza_grammar_extract(const traza_grammar *g, uint64_t i, uint64_t j, traza_gsym_fn fn, void *user,
                          traza_err *err)
{
    if (j > g->len[0] || i > j)
        return traza_err_set(err, TRAZA_E_USAGE, "range [%llu, %llu) is outside [0, %llu)", (unsigned long long)i,
                             (unsigned long long)j, (unsigned long long)g->len[0]);
    if (i == j)
        return 0;
    xframe *st = malloc((g->depth + 1) * sizeof *st);
    if (!st)
        return traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
    uint64_t remaining = j - i;
    size_t sp = 0;
    uint32_t r = 0;
    for (;;) { /* descend to i */
        uint64_t k = find_pair(g, r, i);
        const traza_gsym *s = &g->syms[k];
        uint64_t u = unit_len(g, s), within = i - g->cum[k];
        st[sp].r = r;
        st[sp].k = k;
        st[sp++].left = s->rep - within / u;
        i = within % u;
        if (!s->is_rule)
            break;
        r = (uint32_t)s->value;
    }
    while (remaining) {
        xframe *f = &st[sp - 1];
        const traza_gsym *s = &g->syms[f->k];
        if (s->is_rule) { /* enter the child at its start */
            uint32_t c = (uint32_t)s->value;
            st[sp].r = c;
            st[sp].k = g->off[c];
            st[sp++].left = g->syms[g->off[c]].rep;
            continue;
        }
        uint64_t n = f->left < remaining ? f->left : remaining;
        for (uint64_t t = 0; t < n; t++)
            if (fn(user, s->value)) {
                free(st);
                return 0;
            }
        remaining -= n;
        f->left -= n;
        while (sp && st[sp - 1].left == 0) {
            f = &st[sp - 1];
            if (++f->k < g->off[f->r + 1]) {
                f->left = g->syms[f->k].rep;
                break;
            }
            sp--;
            if (sp && --st[sp - 1].left > 0)
                break;
        }
        if (!sp)
            break;
    }
    free(st);
    return 0;
}

typedef struct fill {
    uint64_t *v;
    size_t n, cap;
} fill;

static int fill_sym(void *user, uint64_t sym)
{
    fill *f = user;
    if (f->n == f->cap)
        return 1; /* cannot happen: the array holds the whole stretch */
    f->v[f->n++] = sym;
    return 0;
}

int tzg_expand(const traza_grammar *g, uint64_t at, uint64_t len, uint64_t **out, traza_err *err)
{
    fill f = {malloc((len ? (size_t)len : 1) * sizeof *f.v), 0, (size_t)len};
    *out = f.v;
    if (!f.v)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory for a stretch of %llu symbols", (unsigned long long)len);
    return traza_grammar_extract(g, at, at + len, fill_sym, &f, err);
}

static int cover_rec(const traza_grammar *g, uint32_t r, uint64_t i, uint64_t j, tz_buf *b)
{
    /* [i, j) relative to rule r, 0 <= i < j <= len[r] */
    for (uint64_t k = find_pair(g, r, i); k < g->off[r + 1] && g->cum[k] < j; k++) {
        const traza_gsym *s = &g->syms[k];
        uint64_t u = unit_len(g, s), a = g->cum[k];
        uint64_t t = i > a ? (i - a) / u : 0;
        uint64_t t1 = (j - a + u - 1) / u;
        if (t1 > s->rep)
            t1 = s->rep;
        while (t < t1) {
            uint64_t lo = a + t * u, hi = lo + u;
            if (lo >= i && hi <= j) {
                uint64_t tend = (j - a) / u;
                if (tend > t1)
                    tend = t1;
                traza_gsym o = *s;
                o.rep = tend - t;
                tz_buf_put(b, &o, sizeof o);
                t = tend;
            } else {
                if (cover_rec(g, (uint32_t)s->value, (i > lo ? i : lo) - lo, (j < hi ? j : hi) - lo, b) < 0)
                    return -1;
                t++;
            }
        }
    }
    return b->oom ? -1 : 0;
}

int traza_grammar_cover(const traza_grammar *g, uint64_t i, uint64_t j, traza_gsym **out, size_t *n, traza_err *err)
{
    *out = NULL;
    *n = 0;
    if (j > g->len[0] || i > j)
        return traza_err_set(err, TRAZA_E_USAGE, "range [%llu, %llu) is outside [0, %llu)", (unsigned long long)i,
                             (unsigned long long)j, (unsigned long long)g->len[0]);
    if (i == j)
        return 0;
    tz_buf b;
    tz_buf_init(&b);
    if (cover_rec(g, 0, i, j, &b) < 0) {
        tz_buf_free(&b);
        return traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
    }
    *n = b.len / sizeof(traza_gsym);
    *out = (traza_gsym *)(void *)b.s;
    return 0;
}
