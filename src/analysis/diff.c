/* What changed between two traces: rows accumulated in one scan of each trace, then
 * per row a rank test on durations, a rate test on counts, a Hodges–Lehmann shift
 * with a bootstrap interval, and Holm / Benjamini–Hochberg over every test. */
#include "traza/diff.h"
#include "util/util.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void traza_diff_opts_init(traza_diff_opts *o)
{
    memset(o, 0, sizeof *o);
    o->by = TRAZA_DIFF_BY_TYPE;
    o->correction = TRAZA_DIFF_HOLM;
    o->alpha = 0.01;
    o->sample_cap = TRAZA_DIFF_SAMPLE_CAP;
    o->hl_cap = TRAZA_DIFF_HL_CAP;
    o->boot_cap = TRAZA_DIFF_BOOT_CAP;
    o->boot_resamples = TRAZA_DIFF_BOOT_RESAMPLES;
    o->seed = 0x7472617a61646966ull;
}

const char *traza_diff_verdict_name(traza_diff_verdict v)
{
    static const char *const names[] = {"same", "slower", "faster", "more", "fewer", "new", "gone"};
    return (unsigned)v < sizeof names / sizeof *names ? names[v] : "?";
}

/* ---- numbers ------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile of sorted v (linear between order statistics, R's type 7). */
static double quantile_sorted(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)h;
    if (lo + 1 >= n)
        return v[n - 1];
    return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

/* The k-th smallest of v[0..n-1] (0-based), reordering v (Wirth's selection, the
 * pivot the median of three). */
static double select_kth(double *v, size_t n, size_t k)
{
    ptrdiff_t l = 0, m = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (l < m) {
        double p1 = v[l], p2 = v[kk], p3 = v[m];
        double x = p1 < p2 ? (p2 < p3 ? p2 : (p1 < p3 ? p3 : p1)) : (p1 < p3 ? p1 : (p2 < p3 ? p3 : p2));
        ptrdiff_t i = l, j = m;
        do {
            while (v[i] < x)
                i++;
            while (x < v[j])
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < kk)
            l = i;
        if (kk < i)
            m = j;
    }
    return v[k];
}

/* Median of v[0..n-1] (n >= 1), reordering v. */
static double median_inplace(double *v, size_t n)
{
    size_t k = (n - 1) / 2;
    double m = select_kth(v, n, k);
    if (n % 2)
        return m;
    double next = v[k + 1];
    for (size_t i = k + 2; i < n; i++)
        if (v[i] < next)
            next = v[i];
    return (m + next) / 2;
}

/* Hodges–Lehmann on x, y using work (nx * ny doubles). */
static double hl_work(const double *x, size_t nx, const double *y, size_t ny, double *work)
{
    size_t k = 0;
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < nx; i++)
            work[k++] = y[j] - x[i];
    return median_inplace(work, k);
}

double traza_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny)
{
    if (!nx || !ny || nx > SIZE_MAX / sizeof(double) / ny)
        return NAN;
    double *w = malloc(nx * ny * sizeof *w);
    if (!w)
        return NAN;
    double r = hl_work(x, nx, y, ny, w);
    free(w);
    return r;
}

/* Mann–Whitney on sorted x and y: U of x by merging, ties given their mean rank. */
static double mw_sorted(const double *x, size_t nx, const double *y, size_t ny, double *u_out)
{
    if (u_out)
        *u_out = NAN;
    if (!nx || !ny)
        return NAN;
    double rx = 0, ties = 0, rank = 1;
    size_t i = 0, j = 0;
    while (i < nx || j < ny) {
        double v = i < nx && (j >= ny || x[i] <= y[j]) ? x[i] : y[j];
        size_t ci = 0, cj = 0;
        while (i < nx && x[i] == v)
            i++, ci++;
        while (j < ny && y[j] == v)
            j++, cj++;
        double t = (double)(ci + cj);
        rx += (double)ci * (rank + (t - 1) / 2);
        ties += t * t * t - t;
        rank += t;
    }
    double n1 = (double)nx, n2 = (double)ny, n = n1 + n2;
    double u = rx - n1 * (n1 + 1) / 2;
    if (u_out)
        *u_out = u;
    double var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)));
    if (!(var > 0))
        return 1.0; /* every value equal: nothing tells the sides apart */
    double d = fabs(u - n1 * n2 / 2) - 0.5;
    if (d < 0)
        d = 0;
    double p = erfc(d / sqrt(var) / sqrt(2.0));
    return p > 1 ? 1 : p;
}

double traza_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, double *u_out)
{
    if (u_out)
        *u_out = NAN;
    if (!nx || !ny)
        return NAN;
    double *sx = malloc(nx * sizeof *sx), *sy = malloc(ny * sizeof *sy);
    if (!sx || !sy) {
        free(sx);
        free(sy);
        return NAN;
    }
    memcpy(sx, x, nx * sizeof *sx);
    memcpy(sy, y, ny * sizeof *sy);
    qsort(sx, nx, sizeof *sx, cmp_double);
    qsort(sy, ny, sizeof *sy, cmp_double);
    double p = mw_sorted(sx, nx, sy, ny, u_out);
    free(sx);
    free(sy);
    return p;
}

double traza_rate_test(int64_t ca, double ta, int64_t cb, double tb)
{
    if (ca < 0 || cb < 0 || !(ta > 0) || !(tb > 0))
        return NAN;
    int64_t n = ca + cb;
    if (n == 0)
        return 1.0;
    double pb = tb / (ta + tb);
    double nd = (double)n;
    if (n <= 2000) {
        double lp = log(pb), lq = log1p(-pb), ln = lgamma(nd + 1);
        double obs = ln - lgamma((double)cb + 1) - lgamma((double)ca + 1) + (double)cb * lp + (double)ca * lq;
        double sum = 0;
        for (int64_t k = 0; k <= n; k++) {
            double l = ln - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) + (double)k * lp + (double)(n - k) * lq;
            if (l <= obs + 1e-7)
                sum += exp(l);
        }
        return sum > 1 ? 1 : sum;
    }
    double sd = sqrt(nd * pb * (1 - pb));
    double d = fabs((double)cb - nd * pb) - 0.5;
    if (d < 0)
        d = 0;
    double p = erfc(d / sd / sqrt(2.0));
    return p > 1 ? 1 : p;
}

typedef struct pidx {
    double p;
    size_t i;
} pidx;

static int cmp_pidx(const void *a, const void *b)
{
    const pidx *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The non-NaN p values, sorted, with their positions; their count into *m. */
static pidx *sorted_p(const double *p, size_t n, double *out, size_t *m)
{
    pidx *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return NULL;
    *m = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = NAN;
        if (!isnan(p[i]))
            s[(*m)++] = (pidx){p[i], i};
    }
    qsort(s, *m, sizeof *s, cmp_pidx);
    return s;
}

int traza_p_holm(const double *p, size_t n, double *out)
{
    size_t m;
    pidx *s = sorted_p(p, n, out, &m);
    if (!s)
        return -1;
    double run = 0;
    for (size_t k = 0; k < m; k++) {
        double a = (double)(m - k) * s[k].p;
        if (a > 1)
            a = 1;
        if (a > run)
            run = a;
        out[s[k].i] = run;
    }
    free(s);
    return 0;
}

int traza_p_bh(const double *p, size_t n, double *out)
{
    size_t m;
    pidx *s = sorted_p(p, n, out, &m);
    if (!s)
        return -1;
    double run = 1;
    for (size_t k = m; k-- > 0;) {
        double a = (double)m / (double)(k + 1) * s[k].p;
        if (a < run)
            run = a;
        out[s[k].i] = run;
    }
    free(s);
    return 0;
}

/* ---- accumulation --------------------------------------------------------------- */

typedef struct acc_side {
    int64_t count, ndur;
    double total;
    double *s; /* kept durations, seconds */
    size_t n, cap;
} acc_side;

typedef struct acc_row {
    char *name;
    acc_side side[2];
} acc_row;

typedef struct acc {
    const traza_diff_opts *o;
    acc_row *rows;
    size_t nrows, cap;
    tz_map names;
    uint64_t rng;
} acc;

static int64_t row_of(acc *A, const char *name, traza_err *err)
{
    int64_t i;
    if (tz_map_get(&A->names, name, &i))
        return i;
    if (TZ_GROW(A->rows, A->cap, A->nrows + 1) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    acc_row *r = &A->rows[A->nrows];
    memset(r, 0, sizeof *r);
    if (!(r->name = tz_strdup(name)) || tz_map_put(&A->names, name, (int64_t)A->nrows) < 0) {
        free(r->name);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    return (int64_t)A->nrows++;
}

/* One duration into a side: appended below the cap, else reservoir sampling (each
 * duration seen is kept with probability cap / ndur). */
static int add_duration(acc *A, acc_side *s, double d)
{
    s->ndur++;
    s->total += d;
    size_t cap = A->o->sample_cap;
    if (s->n < cap) {
        if (TZ_GROW(s->s, s->cap, s->n + 1) < 0)
            return -1;
        s->s[s->n++] = d;
        return 0;
    }
    uint64_t j = rng_next(&A->rng) % (uint64_t)s->ndur;
    if (j < cap)
        s->s[j] = d;
    return 0;
}

static double span_seconds(const traza_trace_info *info)
{
    int64_t span = info->max_ts > info->min_ts ? info->max_ts - info->min_ts : 1;
    return (double)span * pow(10.0, info->time_unit);
}

static int scan_trace(acc *A, traza_trace *t, int side, traza_err *err)
{
    const traza_trace_info *info = traza_trace_info_of(t);
    double unit = pow(10.0, info->time_unit);
    const traza_event_type *types;
    size_t nt = traza_trace_event_types(t, &types);
    int64_t *type_row = malloc((nt ? nt : 1) * sizeof *type_row);
    if (!type_row)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; i < nt; i++)
        type_row[i] = -1;
    tz_imap pairs;
    tz_imap_init(&pairs);
    traza_filter f;
    traza_filter_init(&f);
    if (A->o->by == TRAZA_DIFF_BY_FUNCTION)
        f.categories = 1u << TRAZA_STATE;
    traza_scan *sc = traza_scan_open(t, &f, err);
    if (!sc) {
        free(type_row);
        return -1;
    }
    traza_scan_batch b;
    int rc;
    char path[512];
    while ((rc = traza_scan_next(sc, &b, err)) > 0) {
        for (size_t k = 0; k < b.n && rc > 0; k++) {
            int32_t ty = b.type[k];
            if (ty < 0 || (size_t)ty >= nt) {
                rc = traza_err_set(err, TRAZA_E_INTERNAL, "%s: event %lld has type %d, not in the trace", info->name,
                                   (long long)b.id[k], (int)ty);
                break;
            }
            int64_t r;
            if (A->o->by == TRAZA_DIFF_BY_PRODUCER) {
                int64_t key = (int64_t)((uint64_t)(uint32_t)ty << 32 | (uint32_t)b.producer[k]);
                if (!tz_imap_get(&pairs, key, &r)) {
                    char *name = tz_asprintf("%s @ %s", types[ty].name,
                                             traza_trace_producer_path(t, b.producer[k], path, sizeof path));
                    r = name ? row_of(A, name, err) : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
                    free(name);
                    if (r < 0 || tz_imap_put(&pairs, key, r) < 0) {
                        rc = r < 0 ? -1 : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
                        break;
                    }
                }
            } else {
                if (type_row[ty] < 0 && (type_row[ty] = row_of(A, types[ty].name, err)) < 0) {
                    rc = -1;
                    break;
                }
                r = type_row[ty];
            }
            acc_side *s = &A->rows[r].side[side];
            s->count++;
            if (types[ty].category != TRAZA_PUNCTUAL) {
                int64_t d = b.end_ts[k] > b.ts[k] ? b.end_ts[k] - b.ts[k] : 0;
                if (add_duration(A, s, (double)d * unit) < 0)
                    rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            }
        }
        if (rc < 0)
            break;
    }
    traza_scan_free(sc);
    tz_imap_free(&pairs);
    free(type_row);
    return rc < 0 ? -1 : 0;
}

/* ---- per row -------------------------------------------------------------------- */

static void fill_side(traza_diff_side *o, acc_side *s, double span)
{
    o->count = s->count;
    o->rate = (double)s->count / span;
    o->ndur = s->ndur;
    o->nsamples = s->n;
    o->total = s->total;
    if (s->n)
        qsort(s->s, s->n, sizeof *s->s, cmp_double);
    o->median = quantile_sorted(s->s, s->n, 0.5);
    o->p90 = quantile_sorted(s->s, s->n, 0.9);
    o->p99 = quantile_sorted(s->s, s->n, 0.99);
}

/* m values spread over sorted v (its quantiles at (i + 0.5) / m), into out. */
static void spread(const double *v, size_t n, double *out, size_t m)
{
    for (size_t i = 0; i < m; i++)
        out[i] = v[(size_t)(((double)i + 0.5) * (double)n / (double)m)];
}

/* Shift and its 95 % interval. Above hl_cap per side the estimate is taken on hl_cap
 * quantiles of each side. Each bootstrap resample draws min(n, boot_cap) per side with
 * replacement; when that is fewer than n, the spread of the resampled shifts around the
 * estimate is scaled by sqrt((1/nx + 1/ny) / (1/mx + 1/my)), the ratio of the
 * estimator's standard errors (m-out-of-n bootstrap). */
static int shift_of(const traza_diff_opts *o, const acc_side *a, const acc_side *b, uint64_t *rng, traza_diff_row *r)
{
    size_t hx = a->n < o->hl_cap ? a->n : o->hl_cap, hy = b->n < o->hl_cap ? b->n : o->hl_cap;
    size_t bx = a->n < o->boot_cap ? a->n : o->boot_cap, by = b->n < o->boot_cap ? b->n : o->boot_cap;
    size_t nb = o->boot_resamples;
    size_t wn = hx * hy > bx * by ? hx * hy : bx * by;
    double *work = malloc(wn * sizeof *work), *sx = malloc(hx * sizeof *sx), *sy = malloc(hy * sizeof *sy);
    double *rx = malloc(bx * sizeof *rx), *ry = malloc(by * sizeof *ry), *boot = malloc((nb ? nb : 1) * sizeof *boot);
    int ok = work && sx && sy && rx && ry && boot;
    if (ok) {
        r->subsampled = hx < a->n || hy < b->n;
        spread(a->s, a->n, sx, hx);
        spread(b->s, b->n, sy, hy);
        r->shift = hl_work(sx, hx, sy, hy, work);
        for (size_t k = 0; k < nb; k++) {
            for (size_t i = 0; i < bx; i++)
                rx[i] = a->s[rng_next(rng) % a->n];
            for (size_t i = 0; i < by; i++)
                ry[i] = b->s[rng_next(rng) % b->n];
            boot[k] = hl_work(rx, bx, ry, by, work);
        }
        if (nb) {
            qsort(boot, nb, sizeof *boot, cmp_double);
            double scale = sqrt((1.0 / (double)a->n + 1.0 / (double)b->n) / (1.0 / (double)bx + 1.0 / (double)by));
            r->shift_lo = r->shift + (quantile_sorted(boot, nb, 0.025) - r->shift) * scale;
            r->shift_hi = r->shift + (quantile_sorted(boot, nb, 0.975) - r->shift) * scale;
        }
    }
    free(work);
    free(sx);
    free(sy);
    free(rx);
    free(ry);
    free(boot);
    return ok ? 0 : -1;
}

static double abs0(double v)
{
    return isnan(v) ? 0 : fabs(v);
}

static int cmp_row(const void *a, const void *b)
{
    const traza_diff_row *x = a, *y = b;
    if (x->p_adj != y->p_adj)
        return x->p_adj < y->p_adj ? -1 : 1;
    double ex = abs0(x->rel_shift), ey = abs0(y->rel_shift);
    if (ex != ey)
        return ex > ey ? -1 : 1;
    return strcmp(x->name, y->name);
}

static double min_nan(double a, double b)
{
    if (isnan(a))
        return b;
    if (isnan(b))
        return a;
    return a < b ? a : b;
}

static int finish(acc *A, traza_diff *d, traza_err *err)
{
    const traza_diff_opts *o = &d->opts;
    d->rows = calloc(A->nrows ? A->nrows : 1, sizeof *d->rows);
    double *p = malloc(2 * (A->nrows ? A->nrows : 1) * sizeof *p);
    double *holm = malloc(2 * (A->nrows ? A->nrows : 1) * sizeof *holm);
    double *bh = malloc(2 * (A->nrows ? A->nrows : 1) * sizeof *bh);
    if (!d->rows || !p || !holm || !bh) {
        free(p);
        free(holm);
        free(bh);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    d->nrows = A->nrows;
    uint64_t rng = o->seed;
    for (size_t i = 0; i < A->nrows; i++) {
        acc_row *ar = &A->rows[i];
        traza_diff_row *r = &d->rows[i];
        r->name = ar->name;
        ar->name = NULL;
        fill_side(&r->a, &ar->side[0], d->span_a);
        fill_side(&r->b, &ar->side[1], d->span_b);
        r->count_ratio = r->a.rate > 0 ? r->b.rate / r->a.rate : (r->b.rate > 0 ? INFINITY : NAN);
        r->p = mw_sorted(ar->side[0].s, ar->side[0].n, ar->side[1].s, ar->side[1].n, NULL);
        r->shift = r->shift_lo = r->shift_hi = r->rel_shift = NAN;
        if (!isnan(r->p)) {
            if (shift_of(o, &ar->side[0], &ar->side[1], &rng, r) < 0) {
                free(p);
                free(holm);
                free(bh);
                return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            }
            r->rel_shift = r->a.median > 0 ? r->shift / r->a.median : NAN;
        }
        r->rate_p = traza_rate_test(r->a.count, d->span_a, r->b.count, d->span_b);
        p[2 * i] = r->p;
        p[2 * i + 1] = r->rate_p;
        if (!isnan(r->p))
            d->ntests++;
        if (!isnan(r->rate_p))
            d->ntests++;
    }
    int rc = traza_p_holm(p, 2 * A->nrows, holm) < 0 || traza_p_bh(p, 2 * A->nrows, bh) < 0 ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < A->nrows; i++) {
        traza_diff_row *r = &d->rows[i];
        r->p_holm = holm[2 * i];
        r->q = bh[2 * i];
        r->rate_p_holm = holm[2 * i + 1];
        r->rate_q = bh[2 * i + 1];
        double dp = o->correction == TRAZA_DIFF_BH ? r->q : r->p_holm;
        double rp = o->correction == TRAZA_DIFF_BH ? r->rate_q : r->rate_p_holm;
        r->p_adj = min_nan(dp, rp);
        if (isnan(r->p_adj))
            r->p_adj = 1;
        if (r->a.count == 0 && r->b.count > 0)
            r->verdict = TRAZA_DIFF_NEW;
        else if (r->b.count == 0 && r->a.count > 0)
            r->verdict = TRAZA_DIFF_GONE;
        else if (dp < o->alpha && r->shift != 0)
            r->verdict = r->shift > 0 ? TRAZA_DIFF_SLOWER : TRAZA_DIFF_FASTER;
        else if (rp < o->alpha)
            r->verdict = r->b.rate > r->a.rate ? TRAZA_DIFF_MORE : TRAZA_DIFF_FEWER;
    }
    free(p);
    free(holm);
    free(bh);
    if (rc < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (d->nrows)
        qsort(d->rows, d->nrows, sizeof *d->rows, cmp_row);
    return 0;
}

int traza_diff_compute(traza_trace *a, traza_trace *b, const traza_diff_opts *opts, traza_diff *out, traza_err *err)
{
    memset(out, 0, sizeof *out);
    traza_diff_opts_init(&out->opts);
    if (opts)
        out->opts = *opts;
    const traza_diff_opts *o = &out->opts;
    if ((unsigned)o->by > TRAZA_DIFF_BY_FUNCTION || (unsigned)o->correction > TRAZA_DIFF_BH)
        return traza_err_set(err, TRAZA_E_USAGE, "diff: unknown row kind or correction");
    if (!(o->alpha > 0 && o->alpha < 1))
        return traza_err_set(err, TRAZA_E_USAGE, "diff: the significance level must be between 0 and 1, not %g", o->alpha);
    if (!o->sample_cap || !o->hl_cap || !o->boot_cap || o->hl_cap > 100000 || o->boot_cap > 100000)
        return traza_err_set(err, TRAZA_E_USAGE, "diff: sample caps must be at least 1 (shift caps at most 100000)");
    out->span_a = span_seconds(traza_trace_info_of(a));
    out->span_b = span_seconds(traza_trace_info_of(b));
    acc A;
    memset(&A, 0, sizeof A);
    A.o = o;
    A.rng = o->seed ^ 0x5eed;
    tz_map_init(&A.names);
    int rc = scan_trace(&A, a, 0, err);
    if (rc == 0)
        rc = scan_trace(&A, b, 1, err);
    if (rc == 0)
        rc = finish(&A, out, err);
    for (size_t i = 0; i < A.nrows; i++) {
        free(A.rows[i].name);
        free(A.rows[i].side[0].s);
        free(A.rows[i].side[1].s);
    }
    free(A.rows);
    tz_map_free(&A.names);
    if (rc < 0)
        traza_diff_free(out);
    return rc;
}

void traza_diff_free(traza_diff *d)
{
    for (size_t i = 0; d->rows && i < d->nrows; i++)
        free(d->rows[i].name);
    free(d->rows);
    memset(d, 0, sizeof *d);
}
