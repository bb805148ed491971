/* Anomalies of the cycle sequence, on the cycle grammar (never one step per cycle).
 *
 * Transition counts: every rule r, used occ[r] times, contributes the transitions at
 * its own level: between adjacent r-pairs (last cycle of one, first of the next) and,
 * for x^n, n-1 times (last(x), first(x)). Summed with occ, this is the digram count
 * of the whole sequence in O(|G|). The scan for rare transitions then walks the
 * grammar in order, stepping over every subtree without one in O(1) and over runs
 * by multiplication, so its cost is the grammar size plus the rare transitions seen. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "traza/grammar.h"
#include "util/util.h"

static int64_t tkey(uint64_t a, uint64_t b)
{
    return (int64_t)(a << 32 | b);
}

static int add(tz_imap *m, int64_t k, uint64_t v)
{
    int64_t old = 0;
    tz_imap_get(m, k, &old);
    return tz_imap_put(m, k, old + (int64_t)v);
}

typedef struct actx {
    const traza_grammar *cg;
    const uint64_t *wlen;
    const traza_gcycle *tab;
    uint64_t *first, *last;
    uint8_t *inner;       /* the rule's subtree holds a rare transition */
    tz_imap big, out;
    double rare;
    uint64_t limit;
    /* cursor: the last cycle passed */
    int have;
    uint64_t pc, ppos;    /* its id and position in w */
    uint64_t k;           /* index of the next cycle */
    tz_buf spans;
    traza_ganomaly cur;
    int open;
    traza_ganomaly_info *info;
    int stop;
} actx;

static double prob(const actx *a, uint64_t x, uint64_t y)
{
    int64_t c = 0, t = 0;
    tz_imap_get(&a->big, tkey(x, y), &c);
    tz_imap_get(&a->out, (int64_t)x, &t);
    return t ? (double)c / (double)t : 1;
}

static void event(actx *a, uint64_t from, uint64_t end, uint64_t from_k, uint64_t to_k, double p)
{
    double sc = -log2(p);
    a->info->scanned++;
    if (a->open && to_k <= a->cur.to_k + 2) {
        if (end > a->cur.end)
            a->cur.end = end;
        a->cur.score += sc;
        a->cur.to_k = to_k;
    } else {
        if (a->open)
            tz_buf_put(&a->spans, &a->cur, sizeof a->cur);
        a->cur.start = from;
        a->cur.end = end;
        a->cur.score = sc;
        a->cur.from_k = from_k;
        a->cur.to_k = to_k;
        a->open = 1;
    }
    if (a->info->scanned >= a->limit) {
        a->stop = 1;
        a->info->truncated = 1;
    }
}

/* Enters an r-pair x^1 at (pos, k): the transition into it, then its inside. */
static void visit(actx *a, const traza_gsym *s, uint64_t pos);

static void step_into(actx *a, uint64_t fx, uint64_t pos)
{
    if (a->have) {
        double p = prob(a, a->pc, fx);
        if (p < a->rare)
            event(a, a->ppos, pos + a->tab[fx].length, a->k - 1, a->k, p);
    }
}

static void visit_rule(actx *a, uint32_t r, uint64_t pos)
{
    const traza_grammar *cg = a->cg;
    for (uint64_t k = cg->off[r]; k < cg->off[r + 1] && !a->stop; k++) {
        visit(a, &cg->syms[k], pos);
        pos += cg->syms[k].rep * (cg->syms[k].is_rule ? a->wlen[cg->syms[k].value] : a->tab[cg->syms[k].value].length);
    }
}

static void visit(actx *a, const traza_gsym *s, uint64_t pos)
{
    const traza_grammar *cg = a->cg;
    if (!s->is_rule) {
        uint64_t c = s->value, l = a->tab[c].length;
        step_into(a, c, pos);
        if (s->rep > 1 && !a->stop) {
            double p = prob(a, c, c);
            if (p < a->rare) /* the run is one transition */
                event(a, pos, pos + s->rep * l, a->k, a->k + s->rep - 1, p);
        }
        a->have = 1;
        a->pc = c;
        a->ppos = pos + (s->rep - 1) * l;
        a->k += s->rep;
        return;
    }
    uint32_t x = (uint32_t)s->value;
    uint64_t u = a->wlen[x], n = cg->len[x];
    uint64_t lastlen = a->tab[a->last[x]].length;
    int self_rare = s->rep > 1 && prob(a, a->last[x], a->first[x]) < a->rare;
    if (!a->inner[x] && !self_rare) { /* nothing rare inside: step over all copies */
        step_into(a, a->first[x], pos);
        a->have = 1;
        a->pc = a->last[x];
        a->ppos = pos + s->rep * u - lastlen;
        a->k += s->rep * n;
        return;
    }
    for (uint64_t t = 0; t < s->rep && !a->stop; t++) {
        uint64_t at = pos + t * u;
        if (a->inner[x]) {
            visit_rule(a, x, at);
        } else {
            step_into(a, a->first[x], at);
            a->have = 1;
            a->pc = a->last[x];
            a->ppos = at + u - lastlen;
            a->k += n;
        }
    }
}

static int span_cmp(const void *x, const void *y)
{
    const traza_ganomaly *a = x, *b = y;
    if (a->score != b->score)
        return a->score < b->score ? 1 : -1;
    return a->start < b->start ? -1 : a->start > b->start;
}

int traza_grammar_anomalies(const traza_grammar *cg, const uint64_t *wlen, const traza_gcycle *tab, size_t ntab,
                            double rare, uint64_t limit, traza_ganomaly **out, size_t *nout,
                            traza_ganomaly_info *info, traza_err *err)
{
    actx a;
    memset(&a, 0, sizeof a);
    memset(info, 0, sizeof *info);
    *out = NULL;
    *nout = 0;
    a.cg = cg, a.wlen = wlen, a.tab = tab, a.rare = rare, a.limit = limit ? limit : 1, a.info = info;
    tz_imap_init(&a.big);
    tz_imap_init(&a.out);
    tz_buf_init(&a.spans);
    uint32_t n = cg->nrules;
    uint64_t *occ = calloc(n, sizeof *occ);
    a.first = calloc(n, sizeof *a.first);
    a.last = calloc(n, sizeof *a.last);
    a.inner = calloc(n, 1);
    int rc = -1, oom = !occ || !a.first || !a.last || !a.inner;
    for (uint64_t k = 0; k < cg->off[n] && !oom; k++)
        if (!cg->syms[k].is_rule && cg->syms[k].value >= ntab) {
            traza_err_set(err, TRAZA_E_USAGE, "grammar: cycle %llu is not in the cycle table",
                          (unsigned long long)cg->syms[k].value);
            goto done;
        }
    info->cycles = cg->len[0];
    /* rules 1.. use only lower-numbered rules (traza_grammar_cycle_grammar): first/last
     * bottom-up, occurrences top-down */
    for (uint32_t i = 1; i <= n && !oom; i++) {
        uint32_t r = i == n ? 0 : i;
        if (cg->off[r] == cg->off[r + 1])
            continue;
        const traza_gsym *f = &cg->syms[cg->off[r]], *l = &cg->syms[cg->off[r + 1] - 1];
        a.first[r] = f->is_rule ? a.first[f->value] : f->value;
        a.last[r] = l->is_rule ? a.last[l->value] : l->value;
    }
    if (!oom)
        occ[0] = 1;
    for (uint32_t i = 0; i < n && !oom; i++) {
        uint32_t r = i == 0 ? 0 : n - i;
        for (uint64_t k = cg->off[r]; k < cg->off[r + 1]; k++)
            if (cg->syms[k].is_rule)
                occ[cg->syms[k].value] += occ[r] * cg->syms[k].rep;
    }
    /* transition counts */
    for (uint32_t r = 0; r < n && !oom; r++) {
        int have = 0;
        uint64_t prev = 0;
        for (uint64_t k = cg->off[r]; k < cg->off[r + 1] && !oom; k++) {
            const traza_gsym *s = &cg->syms[k];
            uint64_t f = s->is_rule ? a.first[s->value] : s->value, l = s->is_rule ? a.last[s->value] : s->value;
            if (have && (add(&a.big, tkey(prev, f), occ[r]) < 0 || add(&a.out, (int64_t)prev, occ[r]) < 0))
                oom = 1;
            if (s->rep > 1 && (add(&a.big, tkey(l, f), occ[r] * (s->rep - 1)) < 0 ||
                               add(&a.out, (int64_t)l, occ[r] * (s->rep - 1)) < 0))
                oom = 1;
            have = 1;
            prev = l;
        }
    }
    /* which rules hold a rare transition at their level or below; how many in all */
    for (uint32_t i = 1; i <= n && !oom; i++) {
        uint32_t r = i == n ? 0 : i;
        int have = 0;
        uint64_t prev = 0;
        for (uint64_t k = cg->off[r]; k < cg->off[r + 1]; k++) {
            const traza_gsym *s = &cg->syms[k];
            uint64_t f = s->is_rule ? a.first[s->value] : s->value, l = s->is_rule ? a.last[s->value] : s->value;
            if (have && prob(&a, prev, f) < rare) {
                a.inner[r] = 1;
                info->rare_transitions += occ[r];
            }
            if (s->rep > 1 && prob(&a, l, f) < rare) {
                a.inner[r] = 1;
                info->rare_transitions += occ[r] * (s->is_rule ? s->rep - 1 : 1);
            }
            if (s->is_rule && a.inner[s->value])
                a.inner[r] = 1;
            have = 1;
            prev = l;
        }
    }
    if (oom)
        goto nomem;
    if (n && cg->off[1] > cg->off[0])
        visit_rule(&a, 0, 0);
    if (a.open)
        tz_buf_put(&a.spans, &a.cur, sizeof a.cur);
    if (a.spans.oom)
        goto nomem;
    *nout = a.spans.len / sizeof(traza_ganomaly);
    *out = (traza_ganomaly *)(void *)a.spans.s;
    a.spans.s = NULL;
    if (*nout)
        qsort(*out, *nout, sizeof **out, span_cmp);
    rc = 0;
    goto done;
nomem:
    traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
done:
    free(occ), free(a.first), free(a.last), free(a.inner);
    tz_imap_free(&a.big);
    tz_imap_free(&a.out);
    tz_buf_free(&a.spans);
    return rc;
}
