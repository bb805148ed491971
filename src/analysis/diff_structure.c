/* What changed in the structure of two runs: the cycle types of two grammars (read
 * from the grammars, never expanded) and the sequence-search patterns of two event
 * traces, each a count per side tested with the conditional binomial rate test and
 * corrected over the rows like the other rows of a diff. */
#include "traza/diff.h"
#include "traza/elf.h"
#include "traza/analysis.h"
#include "analysis/diff_span.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void traza_diff_counts_free(traza_diff_counts *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nrows; i++)
        free(c->rows[i].name);
    free(c->rows);
    memset(c, 0, sizeof *c);
}

static int check_alpha(double alpha, traza_err *err)
{
    if (!(alpha > 0 && alpha < 1))
        return traza_err_set(err, TRAZA_E_USAGE, "the significance level is %g, expected a number between 0 and 1", alpha);
    return 0;
}

/* How rows are ranked: cycles by the change of their share, patterns by p_adj. */
enum { RANK_BY_SHARE, RANK_BY_P };

static double share_change(const traza_diff_count *r)
{
    return fabs(r->share_b - r->share_a);
}

static double rate_effect(const traza_diff_count *r)
{
    if (r->share_a > 0 && r->share_b > 0)
        return fabs(log(r->share_b / r->share_a));
    return r->share_a > 0 || r->share_b > 0 ? INFINITY : 0;
}

static int cmp_double_desc(double x, double y)
{
    return x != y ? (x > y ? -1 : 1) : 0;
}

static int cmp_p(double x, double y)
{
    if (isnan(x) || isnan(y))
        return isnan(x) - isnan(y);
    return x != y ? (x < y ? -1 : 1) : 0;
}

static int cmp_by_share(const void *u, const void *v)
{
    const traza_diff_count *x = u, *y = v;
    int c = (x->verdict == TRAZA_DIFF_SAME) - (y->verdict == TRAZA_DIFF_SAME);
    if (!c && x->verdict != TRAZA_DIFF_SAME)
        c = cmp_double_desc(share_change(x), share_change(y));
    if (!c && x->verdict == TRAZA_DIFF_SAME)
        c = cmp_double_desc(x->share_a + x->share_b, y->share_a + y->share_b);
    if (!c)
        c = cmp_p(x->p_adj, y->p_adj);
    if (!c)
        c = (x->hash > y->hash) - (x->hash < y->hash);
    return c ? c : (x->length > y->length) - (x->length < y->length);
}

static int cmp_by_p(const void *u, const void *v)
{
    const traza_diff_count *x = u, *y = v;
    int c = (x->verdict == TRAZA_DIFF_SAME) - (y->verdict == TRAZA_DIFF_SAME);
    if (!c)
        c = cmp_p(x->p_adj, y->p_adj);
    if (!c)
        c = cmp_double_desc(rate_effect(x), rate_effect(y));
    return c ? c : strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/* The p values, their correction, the verdicts and the ranking of c's rows. A row on
 * one side only is a change whatever its p when presence_is_change. */
static int finish_counts(traza_diff_counts *c, traza_diff_correction corr, double alpha, int presence_is_change, int rank,
                         traza_err *err)
{
    size_t n = c->nrows;
    double *p = malloc((n ? n : 1) * sizeof *p), *adj = malloc((n ? n : 1) * sizeof *adj);
    if (!p || !adj) {
        free(p);
        free(adj);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        p[i] = c->rows[i].p = traza_rate_test(c->rows[i].count_a, c->exposure_a, c->rows[i].count_b, c->exposure_b);
    int rc = corr == TRAZA_DIFF_BH ? traza_p_bh(p, n, adj) : traza_p_holm(p, n, adj);
    c->changed = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        traza_diff_count *r = &c->rows[i];
        r->p_adj = adj[i];
        int sig = r->p_adj < alpha;
        if (r->count_a == 0 && (sig || presence_is_change))
            r->verdict = TRAZA_DIFF_NEW;
        else if (r->count_b == 0 && (sig || presence_is_change))
            r->verdict = TRAZA_DIFF_GONE;
        else if (sig)
            r->verdict = (double)r->count_b * c->exposure_a > (double)r->count_a * c->exposure_b ? TRAZA_DIFF_MORE : TRAZA_DIFF_FEWER;
        else
            r->verdict = TRAZA_DIFF_SAME;
        c->changed += r->verdict != TRAZA_DIFF_SAME;
    }
    free(p);
    free(adj);
    if (rc < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (n > 1)
        qsort(c->rows, n, sizeof *c->rows, rank == RANK_BY_SHARE ? cmp_by_share : cmp_by_p);
    return 0;
}

/* ---- cycle types ------------------------------------------------------------------ */

typedef struct cyc_ref {
    uint64_t hash, length;
    size_t index;
} cyc_ref;

static int cmp_cyc_ref(const void *u, const void *v)
{
    const cyc_ref *x = u, *y = v;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return (x->length > y->length) - (x->length < y->length);
}

static uint64_t total_cycles(const traza_gcycle *t, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += t[i].count;
    return s;
}

/* The rows of the cycle types of a (cut at lh_a) and b (at lh_b), whose terminals are
 * comparable. */
static int diff_cycles(const traza_grammar *a, uint64_t lh_a, const traza_grammar *b, uint64_t lh_b,
                       traza_diff_correction correction, double alpha, traza_diff_counts *out, traza_err *err)
{
    traza_gcycle *ta = NULL, *tb = NULL;
    size_t na = 0, nb = 0;
    if (traza_grammar_cycles(a, lh_a, &ta, &na, err) < 0)
        return -1;
    if (traza_grammar_cycles(b, lh_b, &tb, &nb, err) < 0) {
        free(ta);
        return -1;
    }
    cyc_ref *ref = malloc((nb ? nb : 1) * sizeof *ref);
    unsigned char *matched = calloc(nb ? nb : 1, 1);
    out->rows = calloc(na + nb ? na + nb : 1, sizeof *out->rows);
    int rc = -1;
    if (!ref || !matched || !out->rows) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    out->exposure_a = (double)total_cycles(ta, na);
    out->exposure_b = (double)total_cycles(tb, nb);
    double wa = a->len[0] ? (double)a->len[0] : 1, wb = b->len[0] ? (double)b->len[0] : 1;
    for (size_t j = 0; j < nb; j++)
        ref[j] = (cyc_ref){tb[j].hash, tb[j].length, j};
    qsort(ref, nb, sizeof *ref, cmp_cyc_ref);
    for (size_t i = 0; i < na; i++) {
        traza_diff_count *r = &out->rows[out->nrows++];
        r->hash = ta[i].hash;
        r->length = ta[i].length;
        r->count_a = (int64_t)ta[i].count;
        r->share_a = (double)ta[i].count * (double)ta[i].length / wa;
        r->index_a = i + 1;
        cyc_ref key = {ta[i].hash, ta[i].length, 0};
        const cyc_ref *m = nb ? bsearch(&key, ref, nb, sizeof *ref, cmp_cyc_ref) : NULL;
        if (m) {
            matched[m->index] = 1;
            r->count_b = (int64_t)tb[m->index].count;
            r->share_b = (double)tb[m->index].count * (double)tb[m->index].length / wb;
            r->index_b = m->index + 1;
        }
    }
    for (size_t j = 0; j < nb; j++)
        if (!matched[j]) {
            traza_diff_count *r = &out->rows[out->nrows++];
            r->hash = tb[j].hash;
            r->length = tb[j].length;
            r->count_b = (int64_t)tb[j].count;
            r->share_b = (double)tb[j].count * (double)tb[j].length / wb;
            r->index_b = j + 1;
        }
    rc = finish_counts(out, correction, alpha, 1, RANK_BY_SHARE, err);
done:
    free(ta);
    free(tb);
    free(ref);
    free(matched);
    if (rc < 0)
        traza_diff_counts_free(out);
    return rc;
}

int traza_diff_grammar_cycles(const traza_grammar *a, const traza_grammar *b, uint64_t loop_header,
                              traza_diff_correction correction, double alpha, traza_diff_counts *out, traza_err *err)
{
    return traza_diff_grammar_cycles_elf(a, NULL, loop_header, b, NULL, loop_header, correction, alpha, out, err);
}

/* One side's terminals renamed: a shallow copy of g (its arrays but syms are g's) whose
 * terminal values are numbers of a dictionary both sides share. */
typedef struct renamed {
    traza_grammar g;
    traza_gsym *syms;
} renamed;

/* The dictionary key of address v: "function+offset" named by elf, else "@address". */
static size_t sym_key(const traza_elf *elf, uint64_t v, char *key, size_t size)
{
    uint64_t off = 0;
    const char *fn = elf ? traza_elf_func_at(elf, v, &off) : NULL;
    int n = fn ? snprintf(key, size, "%s+%llx", fn, (unsigned long long)off) : snprintf(key, size, "@%llx", (unsigned long long)v);
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

static int dict_id(tz_map *dict, const traza_elf *elf, uint64_t v, uint64_t *id)
{
    char key[512];
    size_t n = sym_key(elf, v, key, sizeof key);
    int64_t x;
    if (!tz_map_getn(dict, key, n, &x)) {
        x = (int64_t)dict->count;
        if (tz_map_putn(dict, key, n, x) < 0)
            return -1;
    }
    *id = (uint64_t)x;
    return 0;
}

static int rename_side(const traza_grammar *g, const traza_elf *elf, tz_map *dict, uint64_t lh, renamed *r,
                       uint64_t *lh_id)
{
    r->g = *g;
    uint64_t n = g->off[g->nrules];
    r->syms = malloc((n ? n : 1) * sizeof *r->syms);
    if (!r->syms)
        return -1;
    for (uint64_t k = 0; k < n; k++) {
        r->syms[k] = g->syms[k];
        if (!g->syms[k].is_rule && dict_id(dict, elf, g->syms[k].value, &r->syms[k].value) < 0)
            return -1;
    }
    r->g.syms = r->syms;
    r->g.nnames = 0; /* the values are the dictionary's, not g's */
    return dict_id(dict, elf, lh, lh_id);
}

int traza_diff_grammar_cycles_elf(const traza_grammar *a, const traza_elf *ea, uint64_t lh_a, const traza_grammar *b,
                                  const traza_elf *eb, uint64_t lh_b, traza_diff_correction correction, double alpha,
                                  traza_diff_counts *out, traza_err *err)
{
    memset(out, 0, sizeof *out);
    if (check_alpha(alpha, err) < 0)
        return -1;
    int rc;
    if (!ea && !eb) {
        rc = diff_cycles(a, lh_a, b, lh_b, correction, alpha, out, err);
    } else {
        tz_map dict;
        tz_map_init(&dict);
        renamed ra = {0}, rb = {0};
        uint64_t ia, ib;
        if (rename_side(a, ea, &dict, lh_a, &ra, &ia) < 0 || rename_side(b, eb, &dict, lh_b, &rb, &ib) < 0)
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        else
            rc = diff_cycles(&ra.g, ia, &rb.g, ib, correction, alpha, out, err);
        free(ra.syms);
        free(rb.syms);
        tz_map_free(&dict);
    }
    if (rc == 0) {
        out->loop_header = lh_a;
        out->loop_header_b = lh_b;
    }
    return rc;
}

/* ---- sequence-search patterns ------------------------------------------------------- */

/* The event type names of both traces, numbered once: a type is the same on both
 * sides when its name is. */
typedef struct names {
    tz_map idx;
    char **name;
    size_t n, cap;
} names;

static int32_t name_index(names *N, const char *s, size_t len, int add, traza_err *err)
{
    int64_t v;
    if (tz_map_getn(&N->idx, s, len, &v))
        return (int32_t)v;
    if (!add)
        return -1;
    char *copy = malloc(len + 1);
    if (!copy || TZ_GROW(N->name, N->cap, N->n + 1) < 0 || tz_map_putn(&N->idx, s, len, (int64_t)N->n) < 0) {
        free(copy);
        return (int32_t)traza_err_set(err, TRAZA_E_NOMEM, "out of memory") - 1;
    }
    memcpy(copy, s, len);
    copy[len] = 0;
    N->name[N->n] = copy;
    return (int32_t)N->n++;
}

/* One side's events in time order, their types numbered by `names`. */
typedef struct side_events {
    int64_t *id, *ts;
    int32_t *type, *producer;
    size_t n, cap[4];
} side_events;

static void side_free(side_events *s)
{
    free(s->id);
    free(s->ts);
    free(s->type);
    free(s->producer);
}

static int read_side(traza_trace *t, names *N, side_events *s, traza_err *err)
{
    const traza_event_type *types;
    size_t nt = traza_trace_event_types(t, &types);
    int32_t *map = malloc((nt ? nt : 1) * sizeof *map);
    if (!map)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; i < nt; i++)
        if ((map[i] = name_index(N, types[i].name, strlen(types[i].name), 1, err)) < 0) {
            free(map);
            return -1;
        }
    traza_filter f;
    traza_filter_init(&f);
    traza_scan *sc = traza_scan_open(t, &f, err);
    if (!sc) {
        free(map);
        return -1;
    }
    traza_scan_batch b;
    int rc;
    while ((rc = traza_scan_next(sc, &b, err)) > 0) {
        size_t need = s->n + b.n;
        if (TZ_GROW(s->id, s->cap[0], need) < 0 || TZ_GROW(s->ts, s->cap[1], need) < 0 || TZ_GROW(s->type, s->cap[2], need) < 0 ||
            TZ_GROW(s->producer, s->cap[3], need) < 0) {
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            break;
        }
        for (size_t k = 0; k < b.n; k++) {
            if (b.type[k] < 0 || (size_t)b.type[k] >= nt) {
                rc = traza_err_set(err, TRAZA_E_INTERNAL, "%s: event %lld has type %d, not in the trace", traza_trace_info_of(t)->name,
                                   (long long)b.id[k], (int)b.type[k]);
                break;
            }
            s->id[s->n] = b.id[k];
            s->ts[s->n] = b.ts[k];
            s->type[s->n] = map[b.type[k]];
            s->producer[s->n++] = b.producer[k] < 0 ? 0 : b.producer[k];
        }
        if (rc < 0)
            break;
    }
    traza_scan_free(sc);
    free(map);
    return rc < 0 ? -1 : 0;
}

/* A pattern: type numbers. */
typedef struct pattern {
    int32_t *types;
    size_t len;
} pattern;

typedef struct pair_count {
    int64_t key, count;
} pair_count;

static int cmp_pair_count(const void *u, const void *v)
{
    const pair_count *x = u, *y = v;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return (x->key > y->key) - (x->key < y->key);
}

/* The `top` most frequent pairs of consecutive types of s (on a producer when
 * per_producer) added to `chosen` (key: the pair, value unused). */
static int top_pairs(const side_events *s, int per_producer, size_t top, tz_imap *chosen, traza_err *err)
{
    int32_t maxp = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->producer[i] > maxp)
            maxp = s->producer[i];
    size_t nlast = per_producer ? (size_t)maxp + 1 : 1;
    int32_t *last = malloc(nlast * sizeof *last);
    tz_imap counts;
    tz_imap_init(&counts);
    pair_count *pc = NULL;
    int rc = last ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < nlast; k++)
        last[k] = -1;
    for (size_t i = 0; rc == 0 && i < s->n; i++) {
        int32_t *l = &last[per_producer ? (size_t)s->producer[i] : 0];
        if (*l >= 0) {
            int64_t key = (int64_t)((uint64_t)(uint32_t)*l << 32 | (uint32_t)s->type[i]), c = 0;
            tz_imap_get(&counts, key, &c);
            rc = tz_imap_put(&counts, key, c + 1);
        }
        *l = s->type[i];
    }
    if (rc == 0 && !(pc = malloc((counts.count ? counts.count : 1) * sizeof *pc)))
        rc = -1;
    if (rc == 0) {
        size_t m = 0;
        for (size_t k = 0; k < counts.cap; k++)
            if (counts.used[k])
                pc[m++] = (pair_count){counts.keys[k], counts.vals[k]};
        qsort(pc, m, sizeof *pc, cmp_pair_count);
        for (size_t k = 0; rc == 0 && k < m && k < top; k++)
            rc = tz_imap_put(chosen, pc[k].key, 1);
    }
    free(pc);
    free(last);
    tz_imap_free(&counts);
    return rc < 0 ? traza_err_set(err, TRAZA_E_NOMEM, "out of memory") : 0;
}

/* "A,B,C" into p, its names numbered by N (a name of neither trace is an error). */
static int parse_pattern(const char *spec, names *N, pattern *p, traza_err *err)
{
    size_t len = 1;
    for (const char *c = spec; *c; c++)
        len += *c == ',';
    if (!(p->types = malloc(len * sizeof *p->types)))
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    p->len = 0;
    for (const char *s = spec;;) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        int32_t k = n ? name_index(N, s, n, 0, err) : -1;
        if (k < 0)
            return traza_err_set(err, TRAZA_E_USAGE, "pattern '%s': %s%.*s%s", spec, n ? "no event type '" : "an empty type name",
                                 (int)n, s, n ? "' in either trace" : " (expected 'A,B[,C...]')");
        p->types[p->len++] = k;
        if (!e)
            return 0;
        s = e + 1;
    }
}

/* The instances of p on side s. */
static int64_t instances(const side_events *s, const pattern *p, int per_producer, traza_err *err)
{
    traza_seq_result r;
    if (traza_seqsearch_arrays(s->id, s->ts, s->type, s->producer, s->n, p->types, p->len, per_producer, 0, &r, err) < 0)
        return -1;
    int64_t n = (int64_t)r.ninstances;
    traza_seq_result_free(&r);
    return n;
}

static char *pattern_name(const names *N, const pattern *p)
{
    tz_buf b;
    tz_buf_init(&b);
    for (size_t k = 0; k < p->len; k++)
        tz_buf_printf(&b, "%s%s", k ? " > " : "", N->name[p->types[k]]);
    char *s = tz_buf_take(&b);
    if (!s)
        tz_buf_free(&b);
    return s;
}

int traza_diff_patterns(traza_trace *a, traza_trace *b, const char *const *patterns, size_t npatterns, size_t top,
                        int per_producer, traza_diff_correction correction, double alpha, traza_diff_counts *out,
                        traza_err *err)
{
    memset(out, 0, sizeof *out);
    if (check_alpha(alpha, err) < 0)
        return -1;
    names N = {0};
    tz_map_init(&N.idx);
    side_events sa = {0}, sb = {0};
    tz_imap chosen;
    tz_imap_init(&chosen);
    pattern *pat = NULL;
    size_t npat = 0;
    int rc = -1;
    if (read_side(a, &N, &sa, err) < 0 || read_side(b, &N, &sb, err) < 0)
        goto done;
    if (npatterns) {
        if (!(pat = calloc(npatterns, sizeof *pat))) {
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto done;
        }
        for (; npat < npatterns; npat++)
            if (parse_pattern(patterns[npat], &N, &pat[npat], err) < 0) {
                npat++;
                goto done;
            }
    } else {
        if (top_pairs(&sa, per_producer, top, &chosen, err) < 0 || top_pairs(&sb, per_producer, top, &chosen, err) < 0)
            goto done;
        if (!(pat = calloc(chosen.count ? chosen.count : 1, sizeof *pat))) {
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto done;
        }
        for (size_t k = 0; k < chosen.cap; k++)
            if (chosen.used[k]) {
                pattern *p = &pat[npat++];
                if (!(p->types = malloc(2 * sizeof *p->types))) {
                    traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
                    goto done;
                }
                p->types[0] = (int32_t)((uint64_t)chosen.keys[k] >> 32);
                p->types[1] = (int32_t)(uint32_t)chosen.keys[k];
                p->len = 2;
            }
    }
    if (!(out->rows = calloc(npat ? npat : 1, sizeof *out->rows))) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    out->exposure_a = tz_diff_span_seconds(traza_trace_info_of(a));
    out->exposure_b = tz_diff_span_seconds(traza_trace_info_of(b));
    for (size_t k = 0; k < npat; k++) {
        traza_diff_count *r = &out->rows[out->nrows];
        if (!(r->name = pattern_name(&N, &pat[k]))) {
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto done;
        }
        out->nrows++;
        r->length = pat[k].len;
        if ((r->count_a = instances(&sa, &pat[k], per_producer, err)) < 0 ||
            (r->count_b = instances(&sb, &pat[k], per_producer, err)) < 0)
            goto done;
        r->share_a = (double)r->count_a / out->exposure_a;
        r->share_b = (double)r->count_b / out->exposure_b;
    }
    rc = finish_counts(out, correction, alpha, 0, RANK_BY_P, err);
done:
    for (size_t k = 0; k < npat; k++)
        free(pat[k].types);
    free(pat);
    for (size_t k = 0; k < N.n; k++)
        free(N.name[k]);
    free(N.name);
    tz_map_free(&N.idx);
    tz_imap_free(&chosen);
    side_free(&sa);
    side_free(&sb);
    if (rc < 0)
        traza_diff_counts_free(out);
    return rc;
}
