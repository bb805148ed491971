/* Time-slice aggregation by best cut partition (FrameSoC, Pagano et al., RR-8304
 * §5; Ocelotl): microscopic description, interval qualities, optimal partition by
 * dynamic programming, and the list of meaningful p values by bisection. */
#include "analysis/aggregate_quality.h"
#include "traza/analysis.h"
#include "tools/tool_filter.h"
#include "analysis/progress.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

int traza_agg_model_parse(const char *s)
{
    if (!s) return -1;
    if (!strcmp(s, "occurrences") || !strcmp(s, "count")) return TRAZA_AGG_OCCURRENCES;
    if (!strcmp(s, "duration") || !strcmp(s, "state-duration")) return TRAZA_AGG_STATE_DURATION;
    if (!strcmp(s, "avg-duration") || !strcmp(s, "state-avg")) return TRAZA_AGG_STATE_AVG;
    if (!strcmp(s, "avg-value") || !strcmp(s, "variable-avg")) return TRAZA_AGG_VARIABLE_AVG;
    return -1;
}

const char *traza_agg_model_name(traza_agg_model m)
{
    switch (m) {
    case TRAZA_AGG_OCCURRENCES: return "occurrences";
    case TRAZA_AGG_STATE_DURATION: return "duration";
    case TRAZA_AGG_STATE_AVG: return "avg-duration";
    case TRAZA_AGG_VARIABLE_AVG: return "avg-value";
    }
    return "?";
}

void traza_agg_micro_free(traza_agg_micro *m)
{
    if (!m)
        return;
    free(m->v);
    free(m->type);
    free(m->producer);
    memset(m, 0, sizeof *m);
}

int traza_agg_micro_from(traza_agg_micro *m, const double *values, size_t nslices, size_t nseries, traza_err *err)
{
    memset(m, 0, sizeof *m);
    if (nslices == 0 || nseries == 0)
        return traza_err_set(err, TRAZA_E_USAGE, "aggregation needs at least one slice and one series");
    m->v = malloc(nslices * nseries * sizeof *m->v);
    m->type = calloc(nseries, sizeof *m->type);
    m->producer = calloc(nseries, sizeof *m->producer);
    if (!m->v || !m->type || !m->producer) {
        traza_agg_micro_free(m);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    m->nslices = nslices;
    m->nseries = nseries;
    for (size_t k = 0; k < nslices; k++)
        for (size_t s = 0; s < nseries; s++)
            m->v[s * nslices + k] = values[k * nseries + s];
    m->t0 = 0;
    m->t1 = (int64_t)nslices;
    for (size_t s = 0; s < nseries; s++)
        m->type[s] = (int32_t)s;
    return 0;
}

void traza_agg_micro_normalize(traza_agg_micro *m)
{
    for (size_t s = 0; s < m->nseries; s++) {
        double *v = m->v + s * m->nslices, mx = 0;
        for (size_t k = 0; k < m->nslices; k++)
            if (v[k] > mx)
                mx = v[k];
        if (mx > 0)
            for (size_t k = 0; k < m->nslices; k++)
                v[k] /= mx;
    }
}

/* Slice start k of the window, exact: t0 + floor((t1 - t0) * k / n). The one
 * formula of the slices' bounds; the server's sampler asks for them
 * (traza_agg_acc_slice_start) rather than computing its own. */
static int64_t slice_at(int64_t t0, int64_t t1, size_t n, size_t k)
{
    if (k >= n)
        return t1;
    return t0 + (int64_t)((unsigned __int128)((uint64_t)t1 - (uint64_t)t0) * k / n);
}

/* Accumulation state of a micro model (traza_agg_acc_*). */
struct traza_agg_acc {
    traza_agg_model model;
    int64_t t0, t1;
    size_t nslices;
    double span, fn;
    int32_t maxt, maxp;
    int32_t *sidx;         /* (type, producer) -> series, -1 */
    unsigned char *cat;    /* of each type */
    double *v, *w;         /* values, weights (the average models) */
    size_t cap, ns;
    int32_t *stype, *sprod;
    size_t capt;
    int avg;
    int64_t *bound;        /* nslices + 1 slice starts (slice_at) */
};

void traza_agg_acc_free(traza_agg_acc *A)
{
    if (!A)
        return;
    free(A->sidx);
    free(A->cat);
    free(A->v);
    free(A->w);
    free(A->stype);
    free(A->sprod);
    free(A->bound);
    free(A);
}

traza_agg_acc *traza_agg_acc_open(traza_trace *t, int64_t t0, int64_t t1, size_t nslices, traza_agg_model model,
                                  traza_err *err)
{
    if (nslices == 0 || nslices > 100000) {
        traza_err_set(err, TRAZA_E_USAGE, "the slice count must be between 1 and 100000 (got %zu)", nslices);
        return NULL;
    }
    if (t1 <= t0)
        t1 = t0 + 1;
    traza_agg_acc *A = calloc(1, sizeof *A);
    if (!A)
        goto nomem;
    const traza_producer *prods;
    const traza_event_type *types;
    size_t np = traza_trace_producers(t, &prods), nt = traza_trace_event_types(t, &types);
    for (size_t i = 0; i < np; i++)
        if (prods[i].id > A->maxp) A->maxp = prods[i].id;
    for (size_t i = 0; i < nt; i++)
        if (types[i].id > A->maxt) A->maxt = types[i].id;
    size_t nkeys = ((size_t)A->maxt + 1) * ((size_t)A->maxp + 1);
    A->sidx = malloc(nkeys * sizeof *A->sidx);
    A->cat = calloc((size_t)A->maxt + 1, 1);
    A->bound = malloc((nslices + 1) * sizeof *A->bound);
    if (!A->sidx || !A->cat || !A->bound)
        goto nomem;
    for (size_t i = 0; i < nkeys; i++)
        A->sidx[i] = -1;
    for (size_t i = 0; i < nt; i++)
        if (types[i].id >= 0)
            A->cat[types[i].id] = (unsigned char)types[i].category;
    for (size_t k = 0; k <= nslices; k++)
        A->bound[k] = slice_at(t0, t1, nslices, k);
    A->model = model;
    A->t0 = t0;
    A->t1 = t1;
    A->nslices = nslices;
    A->span = (double)t1 - (double)t0;
    A->fn = (double)nslices;
    A->avg = model == TRAZA_AGG_STATE_AVG || model == TRAZA_AGG_VARIABLE_AVG;
    return A;
nomem:
    traza_agg_acc_free(A);
    traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    return NULL;
}

/* The series of (type, producer), added if new: its index, or -1 out of memory. */
static int32_t series_of(traza_agg_acc *A, int32_t type, int32_t producer)
{
    size_t key = (size_t)type * ((size_t)A->maxp + 1) + (size_t)producer;
    if (A->sidx[key] >= 0)
        return A->sidx[key];
    size_t ns = A->ns, n = A->nslices;
    if (ns + 1 > A->cap) {
        size_t nc = A->cap ? A->cap * 2 : 64;
        if (nc > SIZE_MAX / sizeof(double) / n)
            return -1;
        double *nv = realloc(A->v, nc * n * sizeof *nv);
        if (!nv)
            return -1;
        A->v = nv;
        if (A->avg) {
            double *nw = realloc(A->w, nc * n * sizeof *nw);
            if (!nw)
                return -1;
            A->w = nw;
        }
        A->cap = nc;
    }
    size_t c2 = A->capt;
    if (TZ_GROW(A->stype, c2, ns + 1) < 0 || TZ_GROW(A->sprod, A->capt, ns + 1) < 0)
        return -1;
    memset(A->v + ns * n, 0, n * sizeof *A->v);
    if (A->avg)
        memset(A->w + ns * n, 0, n * sizeof *A->w);
    A->stype[ns] = type;
    A->sprod[ns] = producer;
    A->sidx[key] = (int32_t)ns;
    A->ns = ns + 1;
    return (int32_t)ns;
}

/* The slice holding tick x of [t0, t1]: the last k with bound[k] <= x (t1 is in the
 * last slice). Estimated in doubles, then settled against the exact bounds so that
 * an event on a boundary tick is counted where the bounds put it. */
static size_t slice_of(const traza_agg_acc *A, int64_t x)
{
    size_t n = A->nslices;
    double e = ((double)x - (double)A->t0) * A->fn / A->span;
    size_t k = e <= 0 ? 0 : e >= (double)n ? n - 1 : (size_t)e;
    while (k + 1 < n && A->bound[k + 1] <= x)
        k++;
    while (k > 0 && A->bound[k] > x)
        k--;
    return k;
}

int64_t traza_agg_acc_slice_start(const traza_agg_acc *A, size_t k)
{
    return A->bound[k < A->nslices ? k : A->nslices];
}

int traza_agg_acc_add(traza_agg_acc *A, int64_t a, int64_t b, int32_t type, int32_t producer, double val, double weight,
                      traza_err *err)
{
    if (type < 0 || type > A->maxt || producer < 0 || producer > A->maxp)
        return 0;
    traza_agg_model model = A->model;
    int cat = A->cat[type];
    if (model == TRAZA_AGG_VARIABLE_AVG ? cat != TRAZA_VARIABLE : model != TRAZA_AGG_OCCURRENCES && cat != TRAZA_STATE)
        return 0;
    size_t nslices = A->nslices;
    int64_t t0 = A->t0, t1 = A->t1;
    if (model == TRAZA_AGG_OCCURRENCES ? a < t0 || a > t1 : b < t0 || a > t1)
        return 0;
    int32_t s = series_of(A, type, producer);
    if (s < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory for %zu series", A->ns + 1);
    double *row = A->v + (size_t)s * nslices;
    double *wrow = A->avg ? A->w + (size_t)s * nslices : NULL;
    if (model == TRAZA_AGG_OCCURRENCES) {
        row[slice_of(A, a)] += weight;
        return 0;
    }
    if (model != TRAZA_AGG_VARIABLE_AVG)
        val = 0;
    int64_t ca = a < t0 ? t0 : a, cb = b > t1 ? t1 : b;
    size_t k = slice_of(A, ca);
    if (cb == ca) { /* instant: counts with weight 1 */
        if (model == TRAZA_AGG_VARIABLE_AVG) {
            row[k] += val * weight;
            wrow[k] += weight;
        } else if (model == TRAZA_AGG_STATE_AVG) {
            wrow[k] += weight;
        }
        return 0;
    }
    for (; k < nslices; k++) {
        int64_t sa = A->bound[k], sb = A->bound[k + 1];
        if (sa >= cb)
            break;
        int64_t oa = ca > sa ? ca : sa, ob = cb < sb ? cb : sb;
        if (ob <= oa)
            continue;
        double ov = (double)(ob - oa) * weight;
        if (model == TRAZA_AGG_STATE_DURATION) {
            row[k] += ov;
        } else if (model == TRAZA_AGG_STATE_AVG) {
            row[k] += ov;
            wrow[k] += weight;
        } else {
            row[k] += val * ov;
            wrow[k] += ov;
        }
    }
    return 0;
}

int traza_agg_acc_finish(traza_agg_acc *A, traza_agg_micro *m, traza_err *err)
{
    memset(m, 0, sizeof *m);
    size_t ns = A->ns, nslices = A->nslices;
    if (ns == 0) {
        traza_err_set(err, TRAZA_E_USAGE, "no events to aggregate with the %s model in the window", traza_agg_model_name(A->model));
        traza_agg_acc_free(A);
        return -1;
    }
    double *v = A->v, *w = A->w;
    if (A->avg)
        for (size_t i = 0; i < ns * nslices; i++)
            v[i] = w[i] > 0 ? v[i] / w[i] : 0;
    if (A->model == TRAZA_AGG_VARIABLE_AVG)
        for (size_t s = 0; s < ns; s++) {
            /* gain and loss are entropies of non-negative quantities: a variable with
             * negative values is measured from its minimum */
            double mn = 0;
            for (size_t k = 0; k < nslices; k++)
                if (w[s * nslices + k] > 0 && v[s * nslices + k] < mn)
                    mn = v[s * nslices + k];
            if (mn < 0)
                for (size_t k = 0; k < nslices; k++)
                    if (w[s * nslices + k] > 0)
                        v[s * nslices + k] -= mn;
        }
    m->v = v;
    m->type = A->stype;
    m->producer = A->sprod;
    m->nseries = ns;
    m->nslices = nslices;
    m->t0 = A->t0;
    m->t1 = A->t1;
    A->v = NULL;
    A->stype = A->sprod = NULL;
    traza_agg_acc_free(A);
    return 0;
}

int traza_agg_micro_build(traza_trace *t, const traza_filter *sel, size_t nslices, traza_agg_model model, traza_agg_micro *m,
                          traza_err *err)
{
    memset(m, 0, sizeof *m);
    const traza_trace_info *info = traza_trace_info_of(t);
    traza_filter f = tz_filter_all_of(sel);
    if ((model == TRAZA_AGG_STATE_DURATION || model == TRAZA_AGG_STATE_AVG) &&
        tz_filter_only_category(&f, TRAZA_STATE, "the duration models", err) < 0)
        return -1;
    if (model == TRAZA_AGG_VARIABLE_AVG && tz_filter_only_category(&f, TRAZA_VARIABLE, "the avg-value model", err) < 0)
        return -1;
    int64_t t0 = f.has_from ? f.from : info->min_ts, t1 = f.has_to ? f.to : info->max_ts;
    traza_agg_acc *A = traza_agg_acc_open(t, t0, t1, nslices, model, err);
    if (!A)
        return -1;
    f.has_from = f.has_to = 1;
    f.from = A->t0;
    f.to = A->t1;
    f.overlap = model != TRAZA_AGG_OCCURRENCES;
    int rc;
    size_t nread = 0;
    if (model == TRAZA_AGG_VARIABLE_AVG) {
        /* Only this model needs the value column: the full cursor. */
        traza_cursor *c = traza_query(t, &f, err);
        if (!c) {
            traza_agg_acc_free(A);
            return -1;
        }
        const traza_event *ev;
        while ((rc = traza_cursor_next(c, &ev, err)) == 1) {
            int64_t b = (ev->has & TRAZA_HAS_END) ? ev->end_ts : ev->ts;
            if (traza_agg_acc_add(A, ev->ts, b, ev->type, ev->producer, ev->value, 1, err) < 0 ||
                ((++nread & 0xfff) == 0 && tz_progress_step(t, "aggregating", tz_progress_time(A->t0, A->t1, ev->ts), 10000, err) < 0)) {
                rc = -1;
                break;
            }
        }
        traza_cursor_free(c);
    } else {
        traza_scan *sc = traza_scan_open(t, &f, err);
        if (!sc) {
            traza_agg_acc_free(A);
            return -1;
        }
        traza_scan_batch bt;
        while ((rc = traza_scan_next(sc, &bt, err)) == 1) {
            for (size_t i = 0; i < bt.n && rc == 1; i++)
                if (traza_agg_acc_add(A, bt.ts[i], bt.end_ts[i], bt.type[i], bt.producer[i], 0, 1, err) < 0)
                    rc = -1;
            if (rc == 1 && bt.n && tz_progress_step(t, "aggregating", tz_progress_time(A->t0, A->t1, bt.ts[bt.n - 1]), 10000, err) < 0)
                rc = -1;
            if (rc < 0)
                break;
        }
        traza_scan_free(sc);
    }
    if (rc == 0 && tz_progress_step(t, "aggregating", 10000, 10000, err) < 0)
        rc = -1;
    if (rc < 0) {
        traza_agg_acc_free(A);
        return -1;
    }
    return traza_agg_acc_finish(A, m, err);
}

void traza_agg_quality_free(traza_agg_quality *q)
{
    if (!q)
        return;
    free(q->gain);
    free(q->loss);
    free(q->unit);
    memset(q, 0, sizeof *q);
}

static double xlog2(double x) { return x > 0 ? x * log2(x) : 0.0; }

/* Qualities over n units of the values m->v (m->nseries x n). cxl[k] (NULL: from the
 * values) = sum over the series and the fine slices of unit k of x log2 x; unit (NULL:
 * one slice each) = the n + 1 fine slice starts, whose differences count the cells. */
static int qualities_core(const traza_agg_micro *m, const double *cxl, const size_t *unit, traza_agg_quality *q, traza_err *err)
{
    size_t n = m->nslices;
    q->n = n;
    q->gain = calloc(n * n, sizeof *q->gain);
    q->loss = calloc(n * n, sizeof *q->loss);
    double *cpre = calloc(n + 1, sizeof *cpre), *spre = calloc(n + 1, sizeof *spre);
    if (!q->gain || !q->loss || !cpre || !spre) {
        free(cpre);
        free(spre);
        traza_agg_quality_free(q);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory for %zu x %zu qualities", n, n);
    }
    /* Integer values with modest totals: x log2 x from a table. */
    int integral = 1;
    double maxtot = 0;
    for (size_t s = 0; s < m->nseries && integral; s++) {
        double tot = 0;
        for (size_t k = 0; k < n; k++) {
            double x = m->v[s * n + k];
            if (x < 0 || x != floor(x))
                integral = 0;
            tot += x;
        }
        if (tot > maxtot)
            maxtot = tot;
    }
    double *tab = NULL;
    if (integral && maxtot < 16e6) {
        /* No table when it cannot be allocated: the generic loop below still works. */
        tab = malloc(((size_t)maxtot + 1) * sizeof *tab);
        if (tab) {
            for (size_t x = 0; x <= (size_t)maxtot; x++)
                tab[x] = xlog2((double)x);
        }
    }
    double *G = q->gain;
    for (size_t s = 0; s < m->nseries; s++) {
        const double *v = m->v + s * n;
        for (size_t k = 0; k < n; k++) {
            if (!cxl)
                cpre[k + 1] += xlog2(v[k]);
            spre[k + 1] += v[k];
        }
    }
    if (tab) {
        /* Integral values: per series the prefix sums P, then
         * G[i][j] += tab[P[j+1] - P[i]] (no loop-carried dependency). Series go in
         * blocks so that one row of G stays in L1 across the block; for a given
         * (i, j) the series are still added in increasing order, so the sums are
         * bit-identical to the plain loop. */
        enum { BLK = 32 };
        size_t ns = m->nseries;
        int64_t *P = malloc((size_t)BLK * (n + 1) * sizeof *P);
        if (!P) {
            free(tab);
            free(cpre);
            free(spre);
            traza_agg_quality_free(q);
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory for qualities");
        }
        for (size_t s0 = 0; s0 < ns; s0 += BLK) {
            size_t nb = ns - s0 < BLK ? ns - s0 : BLK;
            for (size_t b = 0; b < nb; b++) {
                const double *v = m->v + (s0 + b) * n;
                int64_t *pb = P + b * (n + 1);
                pb[0] = 0;
                for (size_t k = 0; k < n; k++)
                    pb[k + 1] = pb[k] + (int64_t)v[k];
            }
            for (size_t i = 0; i < n; i++) {
                double *row = G + i * n;
                for (size_t b = 0; b < nb; b++) {
                    const int64_t *pb = P + b * (n + 1);
                    int64_t pi = pb[i];
                    if (pb[n] == pi) /* nothing from slice i on */
                        continue;
                    for (size_t j = i; j < n; j++)
                        row[j] += tab[pb[j + 1] - pi];
                }
            }
        }
        free(P);
    } else {
        for (size_t s = 0; s < m->nseries; s++) {
            const double *v = m->v + s * n;
            for (size_t i = 0; i < n; i++) {
                double S = 0;
                double *row = G + i * n;
                for (size_t j = i; j < n; j++) {
                    S += v[j];
                    row[j] += xlog2(S);
                }
            }
        }
    }
    for (size_t k = 0; cxl && k < n; k++)
        cpre[k + 1] = cxl[k];
    for (size_t k = 0; k < n; k++) {
        cpre[k + 1] += cpre[k];
        spre[k + 1] += spre[k];
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++) {
            tz_agg_quality(G[i * n + j], cpre[j + 1] - cpre[i], fabs(cpre[j + 1]) + fabs(cpre[i]), spre[j + 1] - spre[i],
                           unit ? (double)(unit[j + 1] - unit[i]) : (double)(j - i + 1), &G[i * n + j], &q->loss[i * n + j]);
        }
    free(tab);
    free(cpre);
    free(spre);
    return 0;
}


int traza_agg_qualities(const traza_agg_micro *m, traza_agg_quality *q, traza_err *err)
{
    memset(q, 0, sizeof *q);
    return qualities_core(m, NULL, NULL, q, err);
}

int traza_agg_qualities_bounded(const traza_agg_micro *m, size_t max_units, traza_agg_quality *q, traza_err *err)
{
    memset(q, 0, sizeof *q);
    size_t n = m->nslices, K = max_units;
    if (K == 0 || n <= K)
        return qualities_core(m, NULL, NULL, q, err);
    /* units of consecutive slices: unit k = slices [k n / K, (k + 1) n / K) */
    traza_agg_micro c = *m;
    c.nslices = K;
    c.v = calloc(m->nseries * K, sizeof *c.v);
    double *cxl = calloc(K, sizeof *cxl);
    size_t *unit = malloc((K + 1) * sizeof *unit);
    if (!c.v || !cxl || !unit) {
        free(c.v);
        free(cxl);
        free(unit);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory for %zu slice units", K);
    }
    for (size_t k = 0; k <= K; k++)
        unit[k] = (size_t)((unsigned long long)k * n / K);
    for (size_t s = 0; s < m->nseries; s++)
        for (size_t k = 0; k < K; k++)
            for (size_t f = unit[k]; f < unit[k + 1]; f++) {
                double x = m->v[s * n + f];
                c.v[s * K + k] += x;
                cxl[k] += xlog2(x);
            }
    int rc = qualities_core(&c, cxl, unit, q, err);
    free(c.v);
    free(cxl);
    if (rc < 0) {
        free(unit);
        return rc;
    }
    q->unit = unit;
    return 0;
}

size_t traza_agg_best(const traza_agg_quality *q, double p, int *parts, double *gain, double *loss)
{
    size_t n = q->n;
    if (n == 0)
        return 0;
    /* best[j]: best value over slices 0..j-1; cut[j]: start of its last part. */
    double *best = malloc((n + 1) * 3 * sizeof *best);
    size_t *cut = malloc((n + 1) * sizeof *cut);
    if (!best || !cut) { /* degrade: one part */
        free(best);
        free(cut);
        for (size_t k = 0; k < n; k++)
            parts[k] = 0;
        *gain = q->gain[n - 1];
        *loss = q->loss[n - 1];
        return 1;
    }
    double *G = best + n + 1, *L = G + n + 1;
    best[0] = G[0] = L[0] = 0;
    for (size_t j = 1; j <= n; j++) {
        double bv = 0;
        size_t bi = 0;
        for (size_t i = 0; i < j; i++) {
            size_t ix = i * n + (j - 1);
            double val = best[i] + p * q->gain[ix] - (1 - p) * q->loss[ix];
            if (i == 0 || val > bv + 1e-9 * (fabs(bv) + 1)) {
                bv = val;
                bi = i;
            }
        }
        best[j] = bv;
        cut[j] = bi;
        G[j] = G[bi] + q->gain[bi * n + j - 1];
        L[j] = L[bi] + q->loss[bi * n + j - 1];
    }
    /* Walk back, then number the parts from the left. */
    size_t np = 0;
    for (size_t j = n; j > 0; j = cut[j]) {
        for (size_t k = cut[j]; k < j; k++)
            parts[k] = (int)np;
        np++;
    }
    for (size_t k = 0; k < n; k++)
        parts[k] = (int)(np - 1) - parts[k];
    *gain = G[n];
    *loss = L[n];
    free(best);
    free(cut);
    return np;
}

size_t tz_agg_propose(const double *gain, const double *loss, size_t stride, size_t n)
{
    /* the largest gap between normalised gain and normalised loss */
#define AT(a, i) (*(const double *)((const char *)(a) + (i) * stride))
    double gmax = 0, lmax = 0;
    for (size_t i = 0; i < n; i++) {
        if (AT(gain, i) > gmax) gmax = AT(gain, i);
        if (AT(loss, i) > lmax) lmax = AT(loss, i);
    }
    size_t bi = 0;
    double bv = -1e300;
    for (size_t i = 0; i < n; i++) {
        double d = (gmax > 0 ? AT(gain, i) / gmax : 0) - (lmax > 0 ? AT(loss, i) / lmax : 0);
        if (d > bv + 1e-12) {
            bv = d;
            bi = i;
        }
    }
#undef AT
    return bi;
}

void traza_agg_plist_free(traza_agg_pentry *l, size_t n)
{
    if (!l)
        return;
    for (size_t i = 0; i < n; i++)
        free(l[i].parts);
    free(l);
}

typedef struct plist {
    const traza_agg_quality *q;
    double thr;
    traza_agg_pentry *e;
    size_t n, cap;
    int oom;
    int depth_guard;
} plist;

static int same_parts(const int *a, const int *b, size_t n) { return memcmp(a, b, n * sizeof *a) == 0; }

static int eval_p(plist *pl, double p, traza_agg_pentry *out)
{
    out->p = p;
    out->parts = malloc(pl->q->n * sizeof *out->parts);
    if (!out->parts)
        return -1;
    out->nparts = traza_agg_best(pl->q, p, out->parts, &out->gain, &out->loss);
    return 0;
}

static void add_entry(plist *pl, const traza_agg_pentry *e)
{
    for (size_t i = 0; i < pl->n; i++)
        if (same_parts(pl->e[i].parts, e->parts, pl->q->n))
            return;
    if (TZ_GROW(pl->e, pl->cap, pl->n + 1) < 0) {
        pl->oom = 1;
        return;
    }
    traza_agg_pentry *d = &pl->e[pl->n++];
    *d = *e;
    d->parts = malloc(pl->q->n * sizeof *d->parts);
    if (!d->parts) {
        pl->n--;
        pl->oom = 1;
        return;
    }
    memcpy(d->parts, e->parts, pl->q->n * sizeof *d->parts);
}

static void bisect(plist *pl, const traza_agg_pentry *lo, const traza_agg_pentry *hi, int depth)
{
    if (pl->oom)
        return;
    double tol = 1e-9 * (fabs(lo->gain) + fabs(lo->loss) + 1);
    if ((fabs(lo->gain - hi->gain) <= tol && fabs(lo->loss - hi->loss) <= tol) || same_parts(lo->parts, hi->parts, pl->q->n))
        return;
    if (hi->p - lo->p <= pl->thr || depth > 60) {
        add_entry(pl, hi);
        return;
    }
    traza_agg_pentry mid;
    if (eval_p(pl, (lo->p + hi->p) / 2, &mid) < 0) {
        pl->oom = 1;
        return;
    }
    bisect(pl, lo, &mid, depth + 1);
    bisect(pl, &mid, hi, depth + 1);
    free(mid.parts);
}

int traza_agg_plist(const traza_agg_quality *q, double threshold, traza_agg_pentry **out, size_t *n, size_t *proposed, traza_err *err)
{
    plist pl;
    memset(&pl, 0, sizeof pl);
    pl.q = q;
    pl.thr = threshold > 0 ? threshold : 0.001;
    traza_agg_pentry a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    if (eval_p(&pl, 0.0, &a) < 0 || eval_p(&pl, 1.0, &b) < 0) {
        free(a.parts);
        free(b.parts);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    add_entry(&pl, &a);
    bisect(&pl, &a, &b, 0);
    free(a.parts);
    free(b.parts);
    if (pl.oom) {
        traza_agg_plist_free(pl.e, pl.n);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory listing p values");
    }
    size_t bi = tz_agg_propose(&pl.e[0].gain, &pl.e[0].loss, sizeof *pl.e, pl.n);
    *out = pl.e;
    *n = pl.n;
    if (proposed)
        *proposed = bi;
    return 0;
}
