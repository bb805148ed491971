/* Temporal correlation of two series (Martin & Marangozova-Martin, RT-0450), regular
 * and irregular slicing, and the ranking of probable causes of a series. */
#include "traza/analysis.h"
#include "analysis/progress.h"
#include "tools/tool_filter.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double traza_pearson(const double *x, const double *y, size_t n)
{
    if (n < 2)
        return 0.0;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        double dx = x[i] - mx, dy = y[i] - my;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if (sxx <= 0 || syy <= 0)
        return 0.0;
    double r = sxy / sqrt(sxx * syy);
    if (r > 1) r = 1;
    if (r < -1) r = -1;
    return r;
}

void traza_corr_free(traza_corr *c)
{
    if (!c)
        return;
    free(c->from);
    free(c->to);
    free(c->a);
    free(c->b);
    free(c->near);
    memset(c, 0, sizeof *c);
}

static int corr_alloc(traza_corr *c, size_t n, traza_err *err)
{
    size_t m = n ? n : 1;
    c->from = malloc(m * sizeof *c->from);
    c->to = malloc(m * sizeof *c->to);
    c->a = calloc(m, sizeof *c->a);
    c->b = calloc(m, sizeof *c->b);
    c->near = calloc(m, 1);
    if (!c->from || !c->to || !c->a || !c->b || !c->near) {
        traza_corr_free(c);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory for %zu correlation bins", n);
    }
    c->nbins = n;
    return 0;
}

static void count_bins(const int64_t *x, size_t n, const int64_t *from, const int64_t *to, size_t nb, double *cnt)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        while (k < nb && x[i] >= to[k])
            k++;
        if (k == nb)
            break;
        if (x[i] >= from[k])
            cnt[k] += 1;
    }
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The median gap between consecutive points of a sorted array (0 with fewer than two
 * points); scratch holds n - 1 values. */
static int64_t median_gap(const int64_t *e, size_t n, int64_t *scratch)
{
    if (n < 2)
        return 0;
    for (size_t i = 1; i < n; i++)
        scratch[i - 1] = e[i] - e[i - 1];
    qsort(scratch, n - 1, sizeof *scratch, cmp_i64);
    return scratch[(n - 1) / 2];
}

static int is_constant(const double *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[0])
            return 0;
    return 1;
}

/* Equal slices of [t0, t1], the last one closed at t1. */
static void equal_slices(traza_corr *out, size_t n, int64_t t0, int64_t t1)
{
    double span = (double)t1 - (double)t0;
    for (size_t k = 0; k < n; k++) {
        out->from[k] = t0 + (int64_t)floor(span * (double)k / (double)n);
        out->to[k] = k + 1 == n ? t1 + 1 : t0 + (int64_t)floor(span * (double)(k + 1) / (double)n);
    }
}

/* Regular slicing: the bins of out, allocated. */
static int regular_bins(const int64_t *a, size_t na, const int64_t *b, size_t nb, const traza_corr_opts *o, traza_corr *out,
                        traza_err *err)
{
    int64_t t0 = out->t0, t1 = out->t1;
    size_t paper = (size_t)floor(sqrt((double)(na + nb)));
    if (paper < 1)
        paper = 1;
    if (o->slicing == TRAZA_SLICES_PAPER || o->slicing == TRAZA_SLICES_COUNT) {
        size_t n = o->slicing == TRAZA_SLICES_PAPER ? paper : o->slices;
        if (n < 1)
            return traza_err_set(err, TRAZA_E_USAGE, "regular correlation needs at least one slice");
        if (corr_alloc(out, n, err) < 0)
            return -1;
        equal_slices(out, n, t0, t1);
        return 0;
    }
    /* Automatic: slices half as wide as the larger median gap, so that each slice
     * holds at most about one event of the sparser series and its counts vary. */
    int64_t *scratch = malloc((na > nb ? na : nb) * sizeof *scratch);
    if (!scratch)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory for the gaps of %zu events", na > nb ? na : nb);
    int64_t ga = median_gap(a, na, scratch), gb = median_gap(b, nb, scratch);
    free(scratch);
    int64_t w = (ga > gb ? ga : gb) / 2;
    size_t cap = na + nb < TRAZA_CORR_MAX_SLICES ? na + nb : TRAZA_CORR_MAX_SLICES;
    if (cap < TRAZA_CORR_MIN_SLICES)
        cap = TRAZA_CORR_MIN_SLICES;
    double span = (double)t1 - (double)t0;
    double want = w > 0 ? floor(span / (double)w) + 1 : (double)paper;
    if (w <= 0 || want < TRAZA_CORR_MIN_SLICES || want > (double)cap) {
        size_t n = want < TRAZA_CORR_MIN_SLICES ? TRAZA_CORR_MIN_SLICES : want > (double)cap ? cap : (size_t)want;
        if (corr_alloc(out, n, err) < 0)
            return -1;
        equal_slices(out, n, t0, t1);
        return 0;
    }
    size_t n = (size_t)want;
    if (corr_alloc(out, n, err) < 0)
        return -1;
    for (size_t k = 0; k < n; k++) {
        out->from[k] = t0 + (int64_t)k * w;
        out->to[k] = k + 1 == n ? t1 + 1 : t0 + (int64_t)(k + 1) * w;
    }
    return 0;
}

/* r, strong, and the warnings of a constant vector. */
static void finish(traza_corr *out, const traza_corr_opts *o)
{
    size_t n = out->nbins;
    out->r = traza_pearson(out->a, out->b, n);
    out->strong = fabs(out->r) >= 0.5;
    const char *unit = out->method == TRAZA_CORR_REGULAR ? "slices" : "intervals";
    if (out->method == TRAZA_CORR_IRREGULAR && n < 3)
        traza_warnings_add(&out->warn, "irregular: the intervals within delta %lld of the points merged into %zu %s: "
                                       "r is undefined; a smaller delta separates them",
                           (long long)out->delta, n, n == 1 ? "interval" : "intervals");
    else {
        if (is_constant(out->a, n))
            traza_warnings_add(&out->warn, "%s%s is constant over the %zu %s: r is undefined (0)", o->name_a ? "series " : "",
                               o->name_a ? o->name_a : "the first series", n, unit);
        if (is_constant(out->b, n))
            traza_warnings_add(&out->warn, "%s%s is constant over the %zu %s: r is undefined (0)", o->name_b ? "series " : "",
                               o->name_b ? o->name_b : "the second series", n, unit);
    }
}

int traza_correlate(const int64_t *a, size_t na, const int64_t *b, size_t nb, traza_corr_method m, int64_t delta,
                    traza_corr *out, traza_err *err)
{
    traza_corr_opts o = {m, delta, TRAZA_SLICES_PAPER, 0, NULL, NULL, NULL};
    return traza_correlate_opts(a, na, b, nb, &o, out, err);
}

int traza_correlate_opts(const int64_t *a, size_t na, const int64_t *b, size_t nb, const traza_corr_opts *opts,
                         traza_corr *out, traza_err *err)
{
    static const traza_corr_opts defaults = {TRAZA_CORR_REGULAR, 0, TRAZA_SLICES_AUTO, 0, NULL, NULL, NULL};
    const traza_corr_opts *o = opts ? opts : &defaults;
    traza_corr_method m = o->method;
    int64_t delta = o->delta;
    memset(out, 0, sizeof *out);
    out->method = m;
    if (na == 0 || nb == 0)
        return traza_err_set(err, TRAZA_E_USAGE, "correlation needs two non-empty series (got %zu and %zu events)", na, nb);
    if (o->slicing == TRAZA_SLICES_COUNT && (o->slices < TRAZA_CORR_MIN_SLICES || o->slices > TRAZA_CORR_MAX_SLICES))
        return traza_err_set(err, TRAZA_E_USAGE, "regular correlation: %zu slices, expected %d to %d", o->slices,
                             TRAZA_CORR_MIN_SLICES, TRAZA_CORR_MAX_SLICES);
    int64_t t0 = a[0] < b[0] ? a[0] : b[0];
    int64_t t1 = a[na - 1] > b[nb - 1] ? a[na - 1] : b[nb - 1];
    out->t0 = t0;
    out->t1 = t1;
    double span = (double)t1 - (double)t0;
    if (m == TRAZA_CORR_REGULAR) {
        if (regular_bins(a, na, b, nb, o, out, err) < 0)
            return -1;
        count_bins(a, na, out->from, out->to, out->nbins, out->a);
        count_bins(b, nb, out->from, out->to, out->nbins, out->b);
        finish(out, o);
        return 0;
    }
    /* Irregular: E1 the smaller series, near intervals [p - delta, p + delta] around
     * its points (merged), the rest in between. */
    const int64_t *e1 = a, *e2 = b;
    size_t n1 = na, n2 = nb;
    if (nb < na) {
        e1 = b; e2 = a; n1 = nb; n2 = na;
        out->swapped = 1;
    }
    if (delta <= 0) {
        /* min(1% of the span, a quarter of E1's median gap), so that the near
         * intervals of a periodic E1 do not merge into one */
        delta = (int64_t)(span / 100.0);
        int64_t *scratch = malloc((n1 ? n1 : 1) * sizeof *scratch);
        if (!scratch)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory for the gaps of %zu events", n1);
        int64_t q = median_gap(e1, n1, scratch) / 4;
        free(scratch);
        if (n1 >= 2 && q < delta)
            delta = q;
        if (delta < 1)
            delta = 1;
    }
    out->delta = delta;
    size_t cap = 2 * n1 + 1;
    if (corr_alloc(out, cap, err) < 0)
        return -1;
    size_t nbins = 0;
    int64_t cur = t0; /* start of the next interval */
    size_t i = 0;
    while (i < n1) {
        int64_t lo = e1[i] - delta < t0 ? t0 : e1[i] - delta;
        int64_t hi = e1[i] > INT64_MAX - delta - 1 ? INT64_MAX : e1[i] + delta + 1; /* exclusive */
        i++;
        while (i < n1 && e1[i] - delta <= hi) {
            int64_t h2 = e1[i] > INT64_MAX - delta - 1 ? INT64_MAX : e1[i] + delta + 1;
            if (h2 > hi)
                hi = h2;
            i++;
        }
        if (hi > t1 + 1)
            hi = t1 + 1;
        if (lo > cur) {
            out->from[nbins] = cur;
            out->to[nbins] = lo;
            out->near[nbins] = 0;
            nbins++;
        }
        if (lo < cur)
            lo = cur;
        out->from[nbins] = lo;
        out->to[nbins] = hi;
        out->near[nbins] = 1;
        nbins++;
        cur = hi;
    }
    if (cur <= t1) {
        out->from[nbins] = cur;
        out->to[nbins] = t1 + 1;
        out->near[nbins] = 0;
        nbins++;
    }
    out->nbins = nbins;
    double *c1 = out->swapped ? out->b : out->a, *c2 = out->swapped ? out->a : out->b;
    count_bins(e1, n1, out->from, out->to, nbins, c1);
    count_bins(e2, n2, out->from, out->to, nbins, c2);
    /* Counts become densities (events per tick): intervals differ in length, and raw
     * counts would correlate with length alone. */
    for (size_t k = 0; k < nbins; k++) {
        double len = (double)out->to[k] - (double)out->from[k];
        out->a[k] /= len;
        out->b[k] /= len;
    }
    finish(out, o);
    return 0;
}

double traza_correlate_r(const int64_t *a, size_t na, const int64_t *b, size_t nb, traza_corr_method m, int64_t delta, traza_err *err)
{
    traza_corr c;
    if (traza_correlate(a, na, b, nb, m, delta, &c, err) < 0)
        return -2;
    double r = c.r;
    traza_corr_free(&c);
    return r;
}

static int cmp_rank(const void *x, const void *y)
{
    const traza_rank_entry *a = x, *b = y;
    if (a->r != b->r)
        return a->r < b->r ? 1 : -1;
    if (a->n != b->n)
        return a->n < b->n ? 1 : -1;
    if (a->type != b->type)
        return a->type < b->type ? -1 : 1;
    return (a->producer > b->producer) - (a->producer < b->producer);
}

static int stopped(const traza_stop *stop, int stage)
{
    return stop && stop->fn && stop->fn(stop->ctx, stage);
}

int traza_correlate_rank(traza_trace *t, const traza_series *target, const traza_corr_opts *opts,
                         const traza_stop *stop, traza_partial *pi, traza_rank_entry **out, size_t *nout,
                         traza_warnings *warn, traza_err *err)
{
    traza_corr_opts o = {TRAZA_CORR_REGULAR, 0, TRAZA_SLICES_AUTO, 0, NULL, NULL, NULL};
    if (opts)
        o = *opts;
    o.name_a = o.name_b = NULL;
    *out = NULL;
    *nout = 0;
    traza_partial pdummy;
    if (!pi)
        pi = &pdummy;
    memset(pi, 0, sizeof *pi);
    pi->covered_to = INT64_MIN;
    if (target->n == 0)
        return traza_err_set(err, TRAZA_E_USAGE, "series '%s' is empty: nothing to rank causes of", target->name);
    const traza_trace_info *info = traza_trace_info_of(t);
    size_t nev = info->events > 0 ? (size_t)info->events : 0;
    const traza_producer *prods;
    const traza_event_type *types;
    size_t np = traza_trace_producers(t, &prods), nt = traza_trace_event_types(t, &types);
    int32_t maxp = 0, maxt = 0;
    for (size_t i = 0; i < np; i++)
        if (prods[i].id > maxp) maxp = prods[i].id;
    for (size_t i = 0; i < nt; i++)
        if (types[i].id > maxt) maxt = types[i].id;
    size_t nkeys = ((size_t)maxt + 1) * ((size_t)maxp + 1);
    int64_t *ts = malloc((nev ? nev : 1) * sizeof *ts);
    int64_t *sorted = malloc((nev ? nev : 1) * sizeof *sorted);
    uint32_t *key = malloc((nev ? nev : 1) * sizeof *key);
    size_t *off = calloc(nkeys + 1, sizeof *off);
    unsigned char *excl = calloc(nkeys, 1);
    traza_rank_entry *res = NULL;
    size_t nconst = 0, tconst = 0;
    int rc = -1;
    if (!ts || !sorted || !key || !off || !excl) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory ranking over %zu events", nev);
        goto done;
    }
    traza_filter f = tz_filter_all_of(o.within);
    traza_scan *c = traza_scan_open(t, &f, err);
    if (!c)
        goto done;
    traza_scan_batch bt;
    size_t n = 0, ti = 0;
    int r;
    while ((r = traza_scan_next(c, &bt, err)) == 1 && n < nev) {
        for (size_t i = 0; i < bt.n && n < nev; i++) {
            int32_t ty = bt.type[i], pr = bt.producer[i];
            if (ty < 0 || ty > maxt || pr < 0 || pr > maxp)
                continue;
            uint32_t k = (uint32_t)((size_t)ty * ((size_t)maxp + 1) + (size_t)pr);
            int64_t id = bt.id[i];
            while (ti < target->n && target->id[ti] < id)
                ti++;
            if (ti < target->n && target->id[ti] == id)
                excl[k] = 1;
            ts[n] = bt.ts[i];
            key[n] = k;
            off[k + 1]++;
            n++;
        }
        pi->covered_to = bt.ts[bt.n - 1];
        if (tz_progress_step(t, "ranking candidates", n, 2 * (uint64_t)nev, err) < 0) {
            r = -1;
            break;
        }
        if (stopped(stop, TRAZA_STAGE_READ)) {
            pi->partial = 1;
            break;
        }
    }
    traza_scan_free(c);
    if (r < 0)
        goto done;
    if (!pi->partial)
        pi->read_all = 1;
    /* stopped while reading: the target is cut where the reading stopped */
    size_t ntarget = target->n;
    if (pi->partial) {
        while (ntarget > 0 && target->ts[ntarget - 1] > pi->covered_to)
            ntarget--;
        if (ntarget == 0) {
            traza_err_set(err, TRAZA_E_CANCELLED,
                          "stopped before any event of series '%s' was read (%zu events of the trace read)", target->name, n);
            goto done;
        }
    }
    for (size_t k = 0; k < nkeys; k++)
        off[k + 1] += off[k];
    {
        size_t *pos = malloc((nkeys ? nkeys : 1) * sizeof *pos);
        if (!pos) {
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto done;
        }
        memcpy(pos, off, nkeys * sizeof *pos);
        for (size_t i = 0; i < n; i++)
            sorted[pos[key[i]]++] = ts[i];
        free(pos);
    }
    size_t nser = 0;
    for (size_t k = 0; k < nkeys; k++)
        if (off[k + 1] > off[k] && !excl[k])
            nser++;
    res = malloc((nser ? nser : 1) * sizeof *res);
    if (!res) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    pi->total = nser;
    size_t j = 0;
    for (size_t k = 0; k < nkeys; k++) {
        if (off[k + 1] == off[k] || excl[k])
            continue;
        /* reading is the first half of the work, ranking the candidates the second */
        if (tz_progress_step(t, "ranking candidates", (uint64_t)nev + (uint64_t)nev * j / nser, 2 * (uint64_t)nev, err) < 0)
            goto done;
        if (j > 0 && stopped(stop, TRAZA_STAGE_COMPUTE)) { /* at least one is ranked */
            pi->partial = 1;
            break;
        }
        const int64_t *b = sorted + off[k];
        size_t nb = off[k + 1] - off[k];
        traza_corr cr;
        if (traza_correlate_opts(target->ts, ntarget, b, nb, &o, &cr, err) < 0)
            goto done;
        if (cr.warn.n > 0)
            nconst++;
        if (cr.nbins < 3 || is_constant(cr.a, cr.nbins))
            tconst++;
        res[j].type = (int32_t)(k / ((size_t)maxp + 1));
        res[j].producer = (int32_t)(k % ((size_t)maxp + 1));
        res[j].n = nb;
        res[j].r = cr.r;
        traza_corr_free(&cr);
        j++;
    }
    pi->done = j;
    if (tz_progress_step(t, "ranking candidates", 2 * (uint64_t)nev, 2 * (uint64_t)nev, err) < 0)
        goto done;
    if (tconst > 0)
        traza_warnings_add(warn, "series %s is constant over the %s of %zu of %zu candidates: r is undefined (0) for them",
                           target->name, o.method == TRAZA_CORR_REGULAR ? "slices" : "intervals", tconst, j);
    if (nconst > tconst)
        traza_warnings_add(warn, "%zu of %zu candidate series are constant over their %s: r is undefined (0) for them",
                           nconst - tconst, j, o.method == TRAZA_CORR_REGULAR ? "slices" : "intervals");
    qsort(res, j, sizeof *res, cmp_rank);
    *out = res;
    *nout = j;
    res = NULL;
    rc = 0;
done:
    free(res);
    free(ts);
    free(sorted);
    free(key);
    free(off);
    free(excl);
    return rc;
}
