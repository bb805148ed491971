/* What changed between two traces: rows accumulated in one scan of each trace, then
 * per row a rank test on durations, a rate test on counts, a Hodges–Lehmann shift
 * with a bootstrap interval, and Holm / Benjamini–Hochberg over every test. */
#include "traza/diff.h"
#include "analysis/diff_span.h"
#include "tools/callwalk.h"
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
    static const char *const names[] = {"same", "slower", "faster", "more", "fewer", "new", "gone", "new path", "gone path"};
    return (unsigned)v < sizeof names / sizeof *names ? names[v] : "?";
}

const char *traza_diff_kind_name(traza_diff_kind k)
{
    static const char *const names[] = {"events", "calls", "self", "path"};
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

const char *traza_diff_test_name(traza_diff_test t)
{
    static const char *const names[] = {"none", "mann-whitney", "binomial", "welch-run-medians", "welch-run-rates"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "?";
}

/* ---- numbers ------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Sorts v ascending (no NaN) in place: quicksort (median of three, the smaller part
 * first) down to runs of 16, finished by insertion; the bootstrap's short samples. */
static void sort_small(double *v, size_t n)
{
    while (n > 16) {
        double a = v[0], b = v[n / 2], c = v[n - 1];
        double p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = 0, j = n - 1;
        for (;;) {
            while (v[i] < p)
                i++;
            while (p < v[j])
                j--;
            if (i >= j)
                break;
            double t = v[i];
            v[i++] = v[j];
            v[j--] = t;
        }
        size_t left = j + 1; /* v[0..j] <= p <= v[j+1..n-1] */
        if (left < n - left) {
            sort_small(v, left);
            v += left;
            n -= left;
        } else {
            sort_small(v + left, n - left);
            n = left;
        }
    }
    for (size_t i = 1; i < n; i++) {
        double x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* Sorts v ascending (no NaN): an LSD radix sort on the doubles' bits, made monotonic
 * (the sign bit set on positives, every bit flipped on negatives), one pass per byte
 * that varies; qsort for short arrays or when there is no memory for the copy. */
static void sort_doubles(double *v, size_t n)
{
    uint64_t *a = n >= 512 ? malloc(2 * n * sizeof *a) : NULL;
    if (!a) {
        sort_small(v, n);
        return;
    }
    uint64_t *b = a + n, diff = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t u;
        memcpy(&u, &v[i], sizeof u);
        a[i] = u >> 63 ? ~u : u | 1ull << 63;
        diff |= a[i] ^ a[0];
    }
    for (unsigned sh = 0; sh < 64; sh += 8) {
        if (!((diff >> sh) & 0xff))
            continue;
        size_t cnt[257] = {0};
        for (size_t i = 0; i < n; i++)
            cnt[((a[i] >> sh) & 0xff) + 1]++;
        for (size_t k = 1; k < 257; k++)
            cnt[k] += cnt[k - 1];
        for (size_t i = 0; i < n; i++)
            b[cnt[(a[i] >> sh) & 0xff]++] = a[i];
        uint64_t *t = a;
        a = b;
        b = t;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t u = a[i] >> 63 ? a[i] & ~(1ull << 63) : ~a[i];
        memcpy(&v[i], &u, sizeof u);
    }
    free(a < b ? a : b);
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

/* Scratch space of the Hodges–Lehmann selection, for samples of up to nx x ny. */
typedef struct hl_scratch {
    size_t *lo, *hi; /* each row's remaining candidates [lo, hi) */
    size_t *lt, *le; /* per row, where the candidates below / up to the pivot end */
    double *buf;     /* the last candidates, selected directly */
    size_t cap;      /* of buf */
} hl_scratch;

static int hl_scratch_init(hl_scratch *h, size_t nx, size_t ny)
{
    h->cap = nx + ny + 64;
    h->lo = malloc((nx ? nx : 1) * sizeof *h->lo);
    h->hi = malloc((nx ? nx : 1) * sizeof *h->hi);
    h->lt = malloc((nx ? nx : 1) * sizeof *h->lt);
    h->le = malloc((nx ? nx : 1) * sizeof *h->le);
    h->buf = malloc(h->cap * sizeof *h->buf);
    return h->lo && h->hi && h->lt && h->le && h->buf ? 0 : -1;
}

static void hl_scratch_free(hl_scratch *h)
{
    free(h->lo);
    free(h->hi);
    free(h->lt);
    free(h->le);
    free(h->buf);
}

/* The k-th smallest (0-based) of the nx * ny differences y[j] - x[i], x and y sorted.
 * Row i's differences grow with j, and (rounding being monotone) the number below any
 * value grows with i, so one pass of two pointers counts the differences below a
 * pivot. Each round takes a random remaining difference as the pivot and keeps the
 * side holding the k-th, until few enough remain to select among directly: exact, in
 * O((nx + ny) log(nx ny)) expected time instead of O(nx ny). */
static double kth_diff(const double *x, size_t nx, const double *y, size_t ny, size_t k, hl_scratch *h)
{
    uint64_t rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)nx << 32) ^ ny;
    for (size_t i = 0; i < nx; i++) {
        h->lo[i] = 0;
        h->hi[i] = ny;
    }
    for (;;) {
        size_t total = 0;
        for (size_t i = 0; i < nx; i++)
            total += h->hi[i] - h->lo[i];
        if (total <= h->cap) {
            size_t n = 0;
            for (size_t i = 0; i < nx; i++)
                for (size_t j = h->lo[i]; j < h->hi[i]; j++)
                    h->buf[n++] = y[j] - x[i];
            return select_kth(h->buf, n, k);
        }
        size_t r = (size_t)(rng_next(&rng) % total), pi = 0;
        while (r >= h->hi[pi] - h->lo[pi]) {
            r -= h->hi[pi] - h->lo[pi];
            pi++;
        }
        double pivot = y[h->lo[pi] + r] - x[pi];
        size_t below = 0, upto = 0, lt = 0, le = 0;
        for (size_t i = 0; i < nx; i++) { /* candidates of row i below / up to the pivot */
            while (lt < ny && y[lt] - x[i] < pivot)
                lt++;
            while (le < ny && y[le] - x[i] <= pivot)
                le++;
            h->lt[i] = lt < h->lo[i] ? h->lo[i] : lt > h->hi[i] ? h->hi[i] : lt;
            h->le[i] = le < h->lo[i] ? h->lo[i] : le > h->hi[i] ? h->hi[i] : le;
            below += h->lt[i] - h->lo[i];
            upto += h->le[i] - h->lo[i];
        }
        if (k >= below && k < upto)
            return pivot;
        for (size_t i = 0; i < nx; i++) {
            if (k < below)
                h->hi[i] = h->lt[i];
            else
                h->lo[i] = h->le[i];
        }
        if (k >= below)
            k -= upto;
    }
}

/* Hodges–Lehmann on sorted x, y: the median of the differences y[j] - x[i]. */
static double hl_sorted(const double *x, size_t nx, const double *y, size_t ny, hl_scratch *h)
{
    size_t n = nx * ny, k = (n - 1) / 2;
    double m = kth_diff(x, nx, y, ny, k, h);
    return n % 2 ? m : (m + kth_diff(x, nx, y, ny, k + 1, h)) / 2;
}

double traza_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny)
{
    if (!nx || !ny || nx > SIZE_MAX / ny)
        return NAN;
    double *sx = malloc(nx * sizeof *sx), *sy = malloc(ny * sizeof *sy);
    hl_scratch h;
    memset(&h, 0, sizeof h);
    int ok = sx && sy && hl_scratch_init(&h, nx, ny) == 0;
    double r = NAN;
    if (ok) {
        memcpy(sx, x, nx * sizeof *sx);
        memcpy(sy, y, ny * sizeof *sy);
        sort_doubles(sx, nx);
        sort_doubles(sy, ny);
        r = hl_sorted(sx, nx, sy, ny, &h);
    }
    hl_scratch_free(&h);
    free(sx);
    free(sy);
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
    sort_doubles(sx, nx);
    sort_doubles(sy, ny);
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

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;
    if (fabs(d) < tiny)
        d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 500; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d;
        c = 1 + aa / c;
        d = 1 / (fabs(d) < tiny ? tiny : d);
        h *= d * (fabs(c) < tiny ? tiny : c);
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d;
        c = 1 + aa / c;
        d = 1 / (fabs(d) < tiny ? tiny : d);
        double del = d * (fabs(c) < tiny ? tiny : c);
        h *= del;
        if (fabs(del - 1) < 1e-15)
            break;
    }
    return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double beta_inc(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2))
        return front * beta_cf(a, b, x) / a;
    return 1 - front * beta_cf(b, a, 1 - x) / b;
}

static void mean_var(const double *v, size_t n, double *mean, double *var)
{
    double m = 0, s = 0;
    for (size_t i = 0; i < n; i++)
        m += v[i];
    m /= (double)n;
    for (size_t i = 0; i < n; i++)
        s += (v[i] - m) * (v[i] - m);
    *mean = m;
    *var = s / (double)(n - 1);
}

double traza_welch(const double *x, size_t nx, const double *y, size_t ny, double *t_out, double *df_out)
{
    double t = NAN, df = NAN, p = NAN;
    if (nx >= 2 && ny >= 2) {
        double mx, vx, my, vy;
        mean_var(x, nx, &mx, &vx);
        mean_var(y, ny, &my, &vy);
        double ex = vx / (double)nx, ey = vy / (double)ny, se2 = ex + ey;
        if (!(se2 > 0)) {
            t = my == mx ? 0 : copysign(INFINITY, my - mx);
            df = INFINITY;
            p = my == mx ? 1 : 0;
        } else {
            t = (my - mx) / sqrt(se2);
            df = se2 * se2 / (ex * ex / (double)(nx - 1) + ey * ey / (double)(ny - 1));
            p = beta_inc(df / 2, 0.5, df / (df + t * t));
        }
    }
    if (t_out)
        *t_out = t;
    if (df_out)
        *df_out = df;
    return p;
}

/* ---- accumulation --------------------------------------------------------------- */

typedef struct acc_run {
    int64_t count, ndur;
    double total;
    double *s; /* kept durations, seconds */
    size_t n, cap;
    int64_t next; /* the reservoir: the number of the next duration kept, */
    double w;     /* and Algorithm L's weight */
} acc_run;

typedef struct acc_row {
    char *name;
    traza_diff_kind kind;
    acc_run *run[2]; /* per side, one per trace */
} acc_row;

typedef struct acc {
    const traza_diff_opts *o;
    acc_row *rows;
    size_t nrows, cap;
    size_t nruns[2];
    double *span[2]; /* seconds, per run */
    tz_map names;    /* the kind's letter and the name -> row */
    uint64_t rng;
} acc;

static int64_t row_of(acc *A, traza_diff_kind kind, const char *name, traza_err *err)
{
    int64_t i;
    char *key = tz_asprintf("%c%s", 'a' + (int)kind, name);
    if (!key)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (tz_map_get(&A->names, key, &i)) {
        free(key);
        return i;
    }
    if (TZ_GROW(A->rows, A->cap, A->nrows + 1) < 0) {
        free(key);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    acc_row *r = &A->rows[A->nrows];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->run[0] = calloc(A->nruns[0], sizeof *r->run[0]);
    r->run[1] = calloc(A->nruns[1], sizeof *r->run[1]);
    if (!r->run[0] || !r->run[1] || !(r->name = tz_strdup(name)) || tz_map_put(&A->names, key, (int64_t)A->nrows) < 0) {
        free(r->run[0]);
        free(r->run[1]);
        free(r->name);
        free(key);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    free(key);
    return (int64_t)A->nrows++;
}

/* A uniform number in (0, 1). */
static double rng_unit(uint64_t *s)
{
    return ((double)(rng_next(s) >> 11) + 0.5) * 0x1p-53;
}

/* The number of the duration after the one numbered n that the reservoir keeps
 * (Li's Algorithm L, 1994: skips drawn from the geometric law of the weight). */
static int64_t reservoir_skip(acc_run *s, uint64_t *rng, size_t cap)
{
    s->w *= exp(log(rng_unit(rng)) / (double)cap);
    double skip = floor(log(rng_unit(rng)) / log1p(-s->w));
    return s->ndur + 1 + (skip < 9e18 ? (int64_t)skip : INT64_MAX / 2);
}

/* One duration into a run: appended below the cap, else reservoir sampling (each
 * duration seen is kept with probability cap / ndur), which draws numbers only for
 * the durations it keeps. */
static int add_duration(acc *A, acc_run *s, double d)
{
    s->ndur++;
    s->total += d;
    size_t cap = A->o->sample_cap;
    if (s->n < cap) {
        if (TZ_GROW(s->s, s->cap, s->n + 1) < 0)
            return -1;
        s->s[s->n++] = d;
        if (s->n == cap) {
            s->w = 1;
            s->next = reservoir_skip(s, &A->rng, cap);
        }
        return 0;
    }
    if (s->ndur == s->next) {
        s->s[rng_next(&A->rng) % cap] = d;
        s->next = reservoir_skip(s, &A->rng, cap);
    }
    return 0;
}

double tz_diff_span_seconds(const traza_trace_info *info)
{
    int64_t span = info->max_ts > info->min_ts ? info->max_ts - info->min_ts : 1;
    return (double)span * pow(10.0, info->time_unit);
}

static int scan_trace(acc *A, traza_trace *t, int side, size_t run, traza_err *err)
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
                    r = name ? row_of(A, TRAZA_DIFF_EVENTS, name, err) : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
                    free(name);
                    if (r < 0 || tz_imap_put(&pairs, key, r) < 0) {
                        rc = r < 0 ? -1 : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
                        break;
                    }
                }
            } else {
                if (type_row[ty] < 0 && (type_row[ty] = row_of(A, TRAZA_DIFF_EVENTS, types[ty].name, err)) < 0) {
                    rc = -1;
                    break;
                }
                r = type_row[ty];
            }
            acc_run *s = &A->rows[r].run[side][run];
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

/* A call-stack trace walked once (tools/callwalk): per call, its function's calls
 * row (count, total time) and self row (total minus the calls it made), and the row
 * of its call path (root;...;function, counted). Memory: the rows and the paths, not
 * the calls. */
typedef struct calls_ctx {
    acc *A;
    traza_trace *t;
    int side;
    size_t run;
    double unit;
    int64_t ntypes;
    char **paths;     /* path id -> "root;...;function" */
    int64_t *path_row; /* path id -> row */
    size_t npaths, pcap, rcap;
    tz_imap pmap;     /* (parent path id + 1) * ntypes + type -> path id */
    acc_run **fruns;  /* type * 2 + (0 calls, 1 self) -> its row's run */
} calls_ctx;

static acc_run *func_run(calls_ctx *x, int32_t type, int self, traza_err *err)
{
    acc_run **slot = &x->fruns[(size_t)type * 2 + (size_t)self];
    if (!*slot) {
        const traza_event_type *et = traza_trace_event_type(x->t, type);
        int64_t r = row_of(x->A, self ? TRAZA_DIFF_SELF : TRAZA_DIFF_CALLS, et ? et->name : "?", err);
        if (r < 0)
            return NULL;
        *slot = &x->A->rows[r].run[x->side][x->run]; /* the runs of a row do not move when rows are added */
    }
    return *slot;
}

static int call_open(void *ctx, tz_cw_frame *f, const tz_cw_frame *parent, traza_err *err)
{
    calls_ctx *x = ctx;
    int64_t ppid = parent ? parent->user : -1, id;
    if (f->c.type < 0 || f->c.type >= x->ntypes || ppid >= (INT64_MAX - x->ntypes) / x->ntypes - 1)
        return traza_err_set(err, TRAZA_E_INTERNAL, "%s: a call has type %d, not in the trace", traza_trace_info_of(x->t)->name,
                             (int)f->c.type);
    int64_t key = (ppid + 1) * x->ntypes + f->c.type;
    if (!tz_imap_get(&x->pmap, key, &id)) {
        const traza_event_type *et = traza_trace_event_type(x->t, f->c.type);
        const char *fname = et ? et->name : "?";
        char *p = parent ? tz_asprintf("%s;%s", x->paths[ppid], fname) : tz_strdup(fname);
        int64_t r = p ? row_of(x->A, TRAZA_DIFF_PATH, p, err) : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        if (r < 0 || TZ_GROW(x->paths, x->pcap, x->npaths + 1) < 0 || TZ_GROW(x->path_row, x->rcap, x->npaths + 1) < 0 ||
            tz_imap_put(&x->pmap, key, (int64_t)x->npaths) < 0) {
            free(p);
            return r < 0 ? -1 : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        }
        x->paths[x->npaths] = p;
        x->path_row[x->npaths] = r;
        id = (int64_t)x->npaths++;
    }
    f->user = id;
    x->A->rows[x->path_row[id]].run[x->side][x->run].count++;
    acc_run *s = func_run(x, f->c.type, 0, err);
    if (!s)
        return -1;
    s->count++;
    if (add_duration(x->A, s, (double)(f->c.end - f->c.ts) * x->unit) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    return 0;
}

static int call_close(void *ctx, const tz_cw_frame *f, traza_err *err)
{
    calls_ctx *x = ctx;
    acc_run *s = func_run(x, f->c.type, 1, err);
    if (!s)
        return -1;
    s->count++;
    double self = (double)(f->c.end - f->c.ts - f->child_time) * x->unit;
    if (add_duration(x->A, s, self > 0 ? self : 0) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    return 0;
}

static int scan_calls(acc *A, traza_trace *t, int side, size_t run, traza_err *err)
{
    const traza_event_type *types;
    calls_ctx x = {.A = A, .t = t, .side = side, .run = run, .unit = pow(10.0, traza_trace_info_of(t)->time_unit)};
    x.ntypes = (int64_t)traza_trace_event_types(t, &types);
    if (!x.ntypes)
        x.ntypes = 1;
    tz_imap_init(&x.pmap);
    x.fruns = calloc((size_t)x.ntypes * 2, sizeof *x.fruns);
    static const tz_callwalk_fns fns = {call_open, call_close};
    int rc = x.fruns ? tz_callwalk(t, &fns, &x, err) : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; i < x.npaths; i++)
        free(x.paths[i]);
    free(x.paths);
    free(x.path_row);
    tz_imap_free(&x.pmap);
    free(x.fruns);
    return rc;
}

/* ---- per row -------------------------------------------------------------------- */

/* Every kept duration of a side's runs, sorted (NULL with *n = 0 when none; -1 when
 * out of memory). */
static int pool(const acc_run *runs, size_t nruns, double **out, size_t *n)
{
    size_t k = 0;
    for (size_t r = 0; r < nruns; r++)
        k += runs[r].n;
    *out = NULL;
    *n = k;
    if (!k)
        return 0;
    double *v = malloc(k * sizeof *v);
    if (!v)
        return -1;
    k = 0;
    for (size_t r = 0; r < nruns; r++) {
        memcpy(v + k, runs[r].s, runs[r].n * sizeof *v);
        k += runs[r].n;
    }
    sort_doubles(v, k);
    *out = v;
    return 0;
}

static void fill_side(traza_diff_side *o, const acc_run *runs, size_t nruns, const double *s, size_t n, double span)
{
    memset(o, 0, sizeof *o);
    o->runs = nruns;
    for (size_t r = 0; r < nruns; r++) {
        o->count += runs[r].count;
        o->ndur += runs[r].ndur;
        o->total += runs[r].total;
    }
    o->rate = (double)o->count / span;
    o->nsamples = n;
    o->median = quantile_sorted(s, n, 0.5);
    o->p90 = quantile_sorted(s, n, 0.9);
    o->p99 = quantile_sorted(s, n, 0.99);
}

/* m values spread over sorted v (its quantiles at (i + 0.5) / m), into out. */
static void spread(const double *v, size_t n, double *out, size_t m)
{
    for (size_t i = 0; i < m; i++)
        out[i] = v[(size_t)(((double)i + 0.5) * (double)n / (double)m)];
}

/* A side as the shift's bootstrap sees it: the pooled sorted durations, and with
 * several runs, the runs that have durations. */
typedef struct boot_side {
    const double *s;
    size_t n;
    const acc_run **runs;
    size_t nruns;
} boot_side;

/* One resample of a side into out; its size. One run: min(n, boot_cap) durations
 * drawn with replacement. Several: as many runs drawn with replacement, then from each
 * max(1, boot_cap / runs) of its durations with replacement. */
static size_t resample(const traza_diff_opts *o, const boot_side *b, uint64_t *rng, double *out)
{
    if (!b->runs) {
        size_t m = b->n < o->boot_cap ? b->n : o->boot_cap;
        for (size_t i = 0; i < m; i++)
            out[i] = b->s[rng_next(rng) % b->n];
        return m;
    }
    size_t per = o->boot_cap / b->nruns ? o->boot_cap / b->nruns : 1, k = 0;
    for (size_t r = 0; r < b->nruns; r++) {
        const acc_run *run = b->runs[rng_next(rng) % b->nruns];
        for (size_t i = 0; i < per; i++)
            out[k++] = run->s[rng_next(rng) % run->n];
    }
    return k;
}

static size_t resample_size(const traza_diff_opts *o, const boot_side *b)
{
    if (!b->runs)
        return b->n < o->boot_cap ? b->n : o->boot_cap;
    return (o->boot_cap / b->nruns ? o->boot_cap / b->nruns : 1) * b->nruns;
}

/* Shift and its 95 % interval. Above hl_cap per side the estimate is taken on hl_cap
 * quantiles of each side. With one run per side, when a resample is smaller than its
 * side the spread of the resampled shifts around the estimate is scaled by
 * sqrt((1/nx + 1/ny) / (1/mx + 1/my)), the ratio of the estimator's standard errors
 * (m-out-of-n bootstrap). With several runs the resample draws every run's worth of
 * runs, so the percentiles are taken as they are. */
static int shift_of(const traza_diff_opts *o, const boot_side *a, const boot_side *b, uint64_t *rng, traza_diff_row *r)
{
    size_t hx = a->n < o->hl_cap ? a->n : o->hl_cap, hy = b->n < o->hl_cap ? b->n : o->hl_cap;
    size_t bx = resample_size(o, a), by = resample_size(o, b);
    size_t nb = o->boot_resamples;
    hl_scratch h;
    memset(&h, 0, sizeof h);
    double *sx = malloc(hx * sizeof *sx), *sy = malloc(hy * sizeof *sy);
    double *rx = malloc(bx * sizeof *rx), *ry = malloc(by * sizeof *ry), *boot = malloc((nb ? nb : 1) * sizeof *boot);
    int ok = hl_scratch_init(&h, hx > bx ? hx : bx, hy > by ? hy : by) == 0 && sx && sy && rx && ry && boot;
    if (ok) {
        r->subsampled = hx < a->n || hy < b->n;
        spread(a->s, a->n, sx, hx);
        spread(b->s, b->n, sy, hy);
        r->shift = hl_sorted(sx, hx, sy, hy, &h);
        for (size_t k = 0; k < nb; k++) {
            size_t mx = resample(o, a, rng, rx), my = resample(o, b, rng, ry);
            sort_doubles(rx, mx);
            sort_doubles(ry, my);
            boot[k] = hl_sorted(rx, mx, ry, my, &h);
        }
        if (nb) {
            sort_doubles(boot, nb);
            double scale = a->runs ? 1
                                   : sqrt((1.0 / (double)a->n + 1.0 / (double)b->n) / (1.0 / (double)bx + 1.0 / (double)by));
            r->shift_lo = r->shift + (quantile_sorted(boot, nb, 0.025) - r->shift) * scale;
            r->shift_hi = r->shift + (quantile_sorted(boot, nb, 0.975) - r->shift) * scale;
        }
    }
    hl_scratch_free(&h);
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
    if (x->kind != y->kind)
        return (int)x->kind - (int)y->kind;
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

/* The runs that have durations into with, their medians into med; their count. */
static size_t run_medians(acc_run *runs, size_t nruns, const acc_run **with, double *med)
{
    size_t k = 0;
    for (size_t i = 0; i < nruns; i++)
        if (runs[i].n) {
            sort_doubles(runs[i].s, runs[i].n);
            with[k] = &runs[i];
            med[k++] = quantile_sorted(runs[i].s, runs[i].n, 0.5);
        }
    return k;
}

/* The tests of one row. With several runs per side: Welch's t on the medians of the
 * runs that have durations, and on the runs' rates. */
static int test_row(acc *A, acc_row *ar, traza_diff *d, uint64_t *rng, traza_diff_row *r)
{
    const traza_diff_opts *o = &d->opts;
    int multi = A->nruns[0] > 1;
    double *pa = NULL, *pb = NULL;
    size_t na, nb;
    const acc_run **ra = malloc(A->nruns[0] * sizeof *ra), **rb = malloc(A->nruns[1] * sizeof *rb);
    double *va = malloc(A->nruns[0] * sizeof *va), *vb = malloc(A->nruns[1] * sizeof *vb);
    int rc = ra && rb && va && vb && pool(ar->run[0], A->nruns[0], &pa, &na) == 0 && pool(ar->run[1], A->nruns[1], &pb, &nb) == 0
                 ? 0
                 : -1;
    if (rc == 0) {
        fill_side(&r->a, ar->run[0], A->nruns[0], pa, na, d->span_a);
        fill_side(&r->b, ar->run[1], A->nruns[1], pb, nb, d->span_b);
        r->count_ratio = r->a.rate > 0 ? r->b.rate / r->a.rate : (r->b.rate > 0 ? INFINITY : NAN);
        r->shift = r->shift_lo = r->shift_hi = r->rel_shift = r->p = r->stat = r->df = NAN;
        r->rate_p = r->rate_stat = r->rate_df = NAN;
        boot_side ba = {pa, na, NULL, 0}, bb = {pb, nb, NULL, 0};
        if (multi) {
            size_t ka = run_medians(ar->run[0], A->nruns[0], ra, va), kb = run_medians(ar->run[1], A->nruns[1], rb, vb);
            ba.runs = ra;
            ba.nruns = ka;
            bb.runs = rb;
            bb.nruns = kb;
            if (ka && kb) {
                r->p = traza_welch(va, ka, vb, kb, &r->stat, &r->df);
                r->test = isnan(r->p) ? TRAZA_DIFF_NO_TEST : TRAZA_DIFF_WELCH_MEDIANS;
            }
        } else if (na && nb) {
            r->p = mw_sorted(pa, na, pb, nb, &r->stat);
            r->test = TRAZA_DIFF_MANN_WHITNEY;
        }
        if (na && nb && (rc = shift_of(o, &ba, &bb, rng, r)) == 0)
            r->rel_shift = r->a.median > 0 ? r->shift / r->a.median : NAN;
        if (ar->kind != TRAZA_DIFF_SELF) { /* a self row's count is its calls row's */
            if (multi) {
                for (size_t i = 0; i < A->nruns[0]; i++)
                    va[i] = (double)ar->run[0][i].count / A->span[0][i];
                for (size_t i = 0; i < A->nruns[1]; i++)
                    vb[i] = (double)ar->run[1][i].count / A->span[1][i];
                r->rate_p = traza_welch(va, A->nruns[0], vb, A->nruns[1], &r->rate_stat, &r->rate_df);
                r->rate_test = TRAZA_DIFF_WELCH_RATES;
            } else {
                r->rate_p = traza_rate_test(r->a.count, d->span_a, r->b.count, d->span_b);
                r->rate_test = TRAZA_DIFF_BINOMIAL;
            }
        }
    }
    free(pa);
    free(pb);
    free(ra);
    free(rb);
    free(va);
    free(vb);
    return rc;
}

static int finish(acc *A, traza_diff *d, traza_err *err)
{
    const traza_diff_opts *o = &d->opts;
    size_t m = A->nrows ? A->nrows : 1;
    d->rows = calloc(m, sizeof *d->rows);
    double *p = malloc(2 * m * sizeof *p), *holm = malloc(2 * m * sizeof *holm), *bh = malloc(2 * m * sizeof *bh);
    int rc = d->rows && p && holm && bh ? 0 : -1;
    uint64_t rng = o->seed;
    for (size_t i = 0; rc == 0 && i < A->nrows; i++) {
        acc_row *ar = &A->rows[i];
        traza_diff_row *r = &d->rows[d->nrows];
        if (ar->kind == TRAZA_DIFF_PATH || ar->kind == TRAZA_DIFF_SELF) {
            int64_t ca = 0, cb = 0;
            for (size_t k = 0; k < A->nruns[0]; k++)
                ca += ar->run[0][k].count;
            for (size_t k = 0; k < A->nruns[1]; k++)
                cb += ar->run[1][k].count;
            /* a path on both sides is its functions' rows' business; a function on one
             * side only is its calls row's (new or gone) */
            if (ar->kind == TRAZA_DIFF_PATH ? ca && cb : !ca || !cb)
                continue;
        }
        r->name = ar->name;
        r->kind = ar->kind;
        ar->name = NULL;
        d->nrows++;
        if ((rc = test_row(A, ar, d, &rng, r)) < 0)
            break;
        p[2 * d->nrows - 2] = r->p;
        p[2 * d->nrows - 1] = r->rate_p;
        d->ntests += !isnan(r->p) + !isnan(r->rate_p);
    }
    if (rc == 0)
        rc = traza_p_holm(p, 2 * d->nrows, holm) < 0 || traza_p_bh(p, 2 * d->nrows, bh) < 0 ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < d->nrows; i++) {
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
        int path = r->kind == TRAZA_DIFF_PATH;
        if (r->a.count == 0 && r->b.count > 0)
            r->verdict = path ? TRAZA_DIFF_NEW_PATH : TRAZA_DIFF_NEW;
        else if (r->b.count == 0 && r->a.count > 0)
            r->verdict = path ? TRAZA_DIFF_GONE_PATH : TRAZA_DIFF_GONE;
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

int traza_diff_compute_runs(traza_trace *const *a, size_t na, traza_trace *const *b, size_t nb, const traza_diff_opts *opts,
                            traza_diff *out, traza_err *err)
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
    if (!na || !nb || ((na > 1 || nb > 1) && (na < 2 || nb < 2)))
        return traza_err_set(err, TRAZA_E_USAGE,
                             "diff: one run per side, or at least two on each side (the run-to-run spread of each side is "
                             "measured), not %zu and %zu", na, nb);
    acc A;
    memset(&A, 0, sizeof A);
    A.o = o;
    A.rng = o->seed ^ 0x5eed;
    A.nruns[0] = out->runs_a = na;
    A.nruns[1] = out->runs_b = nb;
    tz_map_init(&A.names);
    A.span[0] = malloc(na * sizeof *A.span[0]);
    A.span[1] = malloc(nb * sizeof *A.span[1]);
    int rc = A.span[0] && A.span[1] ? 0 : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (int side = 0; side < 2 && rc == 0; side++) {
        traza_trace *const *t = side ? b : a;
        for (size_t k = 0; k < A.nruns[side] && rc == 0; k++) {
            A.span[side][k] = tz_diff_span_seconds(traza_trace_info_of(t[k]));
            *(side ? &out->span_b : &out->span_a) += A.span[side][k];
            rc = o->by == TRAZA_DIFF_BY_FUNCTION ? scan_calls(&A, t[k], side, k, err) : scan_trace(&A, t[k], side, k, err);
        }
    }
    if (rc == 0)
        rc = finish(&A, out, err);
    for (size_t i = 0; i < A.nrows; i++) {
        free(A.rows[i].name);
        for (int side = 0; side < 2; side++) {
            for (size_t k = 0; k < A.nruns[side]; k++)
                free(A.rows[i].run[side][k].s);
            free(A.rows[i].run[side]);
        }
    }
    free(A.rows);
    free(A.span[0]);
    free(A.span[1]);
    tz_map_free(&A.names);
    if (rc < 0)
        traza_diff_free(out);
    return rc;
}

int traza_diff_compute(traza_trace *a, traza_trace *b, const traza_diff_opts *opts, traza_diff *out, traza_err *err)
{
    return traza_diff_compute_runs(&a, 1, &b, 1, opts, out, err);
}

void traza_diff_free(traza_diff *d)
{
    for (size_t i = 0; d->rows && i < d->nrows; i++)
        free(d->rows[i].name);
    free(d->rows);
    memset(d, 0, sizeof *d);
}
