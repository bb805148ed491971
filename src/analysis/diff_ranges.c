/* Where in time a change of durations shows: B's slices whose median duration of a
 * row (an event type, a type on one producer, a function's calls or its self time)
 * lies outside A's normal interval (the anomaly rules of anomaly.c). */
#include "traza/diff.h"
#include "traza/analysis.h"
#include "tools/callwalk.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct durs {
    double *v;
    int64_t *ts;
    size_t n, cap, tcap;
    double unit;
    int64_t min_ts;
} durs;

static int add_dur(durs *d, int64_t ticks, int64_t ts, traza_err *err)
{
    if (TZ_GROW(d->v, d->cap, d->n + 1) < 0 || TZ_GROW(d->ts, d->tcap, d->n + 1) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    d->v[d->n] = (double)(ticks > 0 ? ticks : 0) * d->unit;
    d->ts[d->n++] = ts - d->min_ts;
    return 0;
}

/* The rows whose durations are read, and where each event goes: one scan of the
 * trace for the rows of events and calls, one call walk for the rows of self times,
 * whatever the number of rows. */
typedef struct rows_ctx {
    traza_trace *t;
    traza_diff_by by;
    const traza_diff_range_row *rows;
    size_t nrows;
    durs *d;                 /* per row */
    const traza_event_type *types;
    size_t nt;
    tz_imap of;              /* (type, producer) or type -> row + 1, 0 for none */
    int32_t *self_row;       /* per type: the row of its self times, -1 for none */
} rows_ctx;

/* 1 when the events of type ty on producer prod are those of row r's name. */
static int row_has(rows_ctx *c, const traza_event_type *ty, int32_t prod, const char *name)
{
    if (ty->category == TRAZA_PUNCTUAL || (c->by == TRAZA_DIFF_BY_FUNCTION && ty->category != TRAZA_STATE))
        return 0; /* a function's calls are states */
    if (c->by != TRAZA_DIFF_BY_PRODUCER)
        return strcmp(ty->name, name) == 0;
    size_t len = strlen(ty->name);
    if (strncmp(ty->name, name, len) != 0 || strncmp(name + len, " @ ", 3) != 0)
        return 0;
    char path[512];
    return strcmp(traza_trace_producer_path(c->t, prod, path, sizeof path), name + len + 3) == 0;
}

/* The row of an event of type tid on producer prod (its durations), -1 for none; the
 * answer per type, or per type and producer by producer, is kept in c->of. */
static int row_of(rows_ctx *c, int32_t tid, int32_t prod, traza_err *err)
{
    if (tid < 0 || (size_t)tid >= c->nt)
        return -1;
    int64_t key = c->by == TRAZA_DIFF_BY_PRODUCER ? (int64_t)((uint64_t)(uint32_t)tid << 32 | (uint32_t)prod) : tid, v;
    if (!tz_imap_get(&c->of, key, &v)) {
        v = 0;
        for (size_t r = 0; r < c->nrows && !v; r++)
            if (c->rows[r].kind != TRAZA_DIFF_SELF && row_has(c, &c->types[tid], prod, c->rows[r].name))
                v = (int64_t)r + 1;
        if (tz_imap_put(&c->of, key, v) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    return (int)v - 1;
}

/* The durations (seconds) and start times of the rows of events and calls. */
static int read_durs(rows_ctx *c, traza_err *err)
{
    traza_filter f;
    traza_filter_init(&f);
    traza_scan *sc = traza_scan_open(c->t, &f, err);
    if (!sc)
        return -1;
    traza_scan_batch b;
    int rc;
    while ((rc = traza_scan_next(sc, &b, err)) > 0)
        for (size_t k = 0; k < b.n && rc > 0; k++) {
            int r = row_of(c, b.type[k], b.producer[k], err);
            if (r < -1 || (r >= 0 && add_dur(&c->d[r], b.end_ts[k] - b.ts[k], b.ts[k], err) < 0))
                rc = -1;
        }
    traza_scan_free(sc);
    return rc < 0 ? -1 : 0;
}

/* Self times: the calls walked with their callees (tools/callwalk). */
static int self_close(void *ctx, const tz_cw_frame *f, traza_err *err)
{
    rows_ctx *c = ctx;
    int32_t r = f->c.type >= 0 && (size_t)f->c.type < c->nt ? c->self_row[f->c.type] : -1;
    return r >= 0 ? add_dur(&c->d[r], f->c.end - f->c.ts - f->child_time, f->c.ts, err) : 0;
}

static int read_self(rows_ctx *c, traza_err *err)
{
    int any = 0;
    for (size_t i = 0; i < c->nt; i++) {
        c->self_row[i] = -1;
        for (size_t r = 0; r < c->nrows && c->self_row[i] < 0; r++)
            if (c->rows[r].kind == TRAZA_DIFF_SELF && c->types[i].category == TRAZA_STATE && strcmp(c->types[i].name, c->rows[r].name) == 0)
                c->self_row[i] = (int32_t)r, any = 1;
    }
    tz_callwalk_fns fns = {NULL, self_close};
    return any ? tz_callwalk(c->t, &fns, c, err) : 0;
}

/* Every row's durations in t, added to d[row]. */
static int read_rows(traza_trace *t, traza_diff_by by, const traza_diff_range_row *rows, size_t nrows, durs *d, traza_err *err)
{
    const traza_trace_info *info = traza_trace_info_of(t);
    rows_ctx c = {t, by, rows, nrows, d, NULL, 0, {0}, NULL};
    c.nt = traza_trace_event_types(t, &c.types);
    int self = 0, other = 0;
    for (size_t r = 0; r < nrows; r++) {
        d[r].unit = pow(10.0, info->time_unit);
        d[r].min_ts = info->min_ts;
        if (rows[r].kind == TRAZA_DIFF_SELF)
            self = 1;
        else
            other = 1;
    }
    tz_imap_init(&c.of);
    int rc = 0;
    if (self && !(c.self_row = malloc((c.nt ? c.nt : 1) * sizeof *c.self_row)))
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (rc == 0 && other)
        rc = read_durs(&c, err);
    if (rc == 0 && self)
        rc = read_self(&c, err);
    free(c.self_row);
    tz_imap_free(&c.of);
    return rc;
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* One row's ranges from its durations on both sides (da: A's runs pooled). */
static int place(const durs *da, const durs *dbp, traza_trace *b, size_t slices, int rule, double k, traza_diff_range **out, size_t *n,
                 double *lo, double *hi, traza_err *err)
{
    const durs db = *dbp;
    double center, spread;
    size_t cap = 0, last_first = 0; /* the first slice of the last range */
    int rc = 0;
    if (!da->n || !db.n)
        return 0; /* a side without durations: no range */
    if (rc == 0)
        rc = traza_anomaly_interval(da->v, da->n, (traza_rule)rule, k, lo, hi, &center, &spread, err);
    if (rc == 0 && *lo < 0)
        *lo = 0; /* a duration is never negative: below 0 the interval holds nothing */
    const traza_trace_info *ib = traza_trace_info_of(b);
    int64_t span = ib->max_ts > ib->min_ts ? ib->max_ts - ib->min_ts : 1;
    double unit = pow(10.0, ib->time_unit);
    /* the slice of each event of B, then each slice's durations sorted in place */
    size_t *start = calloc(slices + 1, sizeof *start);
    double *sorted = malloc(db.n * sizeof *sorted);
    if (rc == 0 && (!start || !sorted))
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < db.n; i++)
        start[(size_t)((double)db.ts[i] / (double)span * (double)slices >= (double)slices ? slices - 1
                                                                                           : (double)db.ts[i] / (double)span * (double)slices) + 1]++;
    for (size_t s = 0; rc == 0 && s < slices; s++)
        start[s + 1] += start[s];
    size_t *fill = rc == 0 ? calloc(slices, sizeof *fill) : NULL;
    if (rc == 0 && !fill)
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < db.n; i++) {
        double x = (double)db.ts[i] / (double)span * (double)slices;
        size_t s = x >= (double)slices ? slices - 1 : (size_t)x;
        sorted[start[s] + fill[s]++] = db.v[i];
    }
    for (size_t s = 0; rc == 0 && s < slices; s++) {
        size_t m = start[s + 1] - start[s];
        if (!m)
            continue;
        double *v = sorted + start[s];
        qsort(v, m, sizeof *v, cmp_d);
        double med = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
        if (med >= *lo && med <= *hi)
            continue;
        int slower = med > *hi;
        double from = (double)span * unit * (double)s / (double)slices, to = (double)span * unit * (double)(s + 1) / (double)slices;
        traza_diff_range *last = *n ? &(*out)[*n - 1] : NULL;
        if (last && last->slower == slower && fabs(last->to - from) < 1e-12 * (1 + fabs(from))) {
            /* extends the range: its median over every event of the merged slices */
            size_t first = start[last_first];
            size_t all = start[s + 1] - first;
            double *w = malloc(all * sizeof *w);
            if (!w) {
                rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
                break;
            }
            memcpy(w, sorted + first, all * sizeof *w);
            qsort(w, all, sizeof *w, cmp_d);
            last->median = all % 2 ? w[all / 2] : (w[all / 2 - 1] + w[all / 2]) / 2;
            free(w);
            last->to = to;
            last->events += (int64_t)m;
            continue;
        }
        if (TZ_GROW(*out, cap, *n + 1) < 0) {
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            break;
        }
        (*out)[(*n)++] = (traza_diff_range){from, to, (int64_t)m, med, slower};
        last_first = s;
    }
    free(start);
    free(sorted);
    free(fill);
    return rc < 0 ? -1 : 0;
}

int traza_diff_ranges_rows(traza_trace *const *a, size_t na, traza_trace *b, traza_diff_by by, const traza_diff_range_row *rows,
                           size_t nrows, size_t slices, int rule, double k, traza_diff_ranges_of *out, traza_err *err)
{
    memset(out, 0, nrows * sizeof *out);
    if (!slices)
        slices = 1;
    for (size_t r = 0; r < nrows; r++)
        if (rows[r].kind == TRAZA_DIFF_PATH)
            return traza_err_set(err, TRAZA_E_USAGE, "diff: a call path's row has no durations to place in time");
    durs *da = calloc(nrows ? nrows : 1, sizeof *da), *db = calloc(nrows ? nrows : 1, sizeof *db);
    int rc = da && db ? 0 : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; i < na && rc == 0; i++) /* A's runs pooled: one normal interval */
        rc = read_rows(a[i], by, rows, nrows, da, err);
    if (rc == 0)
        rc = read_rows(b, by, rows, nrows, db, err);
    for (size_t r = 0; r < nrows && rc == 0; r++)
        rc = place(&da[r], &db[r], b, slices, rule, k, &out[r].ranges, &out[r].n, &out[r].lo, &out[r].hi, err);
    for (size_t r = 0; r < nrows && da && db; r++) {
        free(da[r].v);
        free(da[r].ts);
        free(db[r].v);
        free(db[r].ts);
        if (rc < 0) {
            free(out[r].ranges);
            memset(&out[r], 0, sizeof out[r]);
        }
    }
    free(da);
    free(db);
    return rc < 0 ? -1 : 0;
}

int traza_diff_ranges(traza_trace *const *a, size_t na, traza_trace *b, traza_diff_by by, traza_diff_kind kind, const char *name,
                      size_t slices, int rule, double k, traza_diff_range **out, size_t *n, double *lo, double *hi, traza_err *err)
{
    traza_diff_range_row row = {kind, name};
    traza_diff_ranges_of r;
    int rc = traza_diff_ranges_rows(a, na, b, by, &row, 1, slices, rule, k, &r, err);
    *out = r.ranges;
    *n = r.n;
    *lo = r.lo;
    *hi = r.hi;
    return rc;
}
