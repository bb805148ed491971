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

/* A row's events: those of a type (by type, and a function's calls), or of a type on
 * one producer ("type @ producer path", by producer). 1 when event type ty of
 * producer prod belongs to it; the answers per type and producer are cached in seen
 * (key -> 0 or 1). */
static int row_has(traza_trace *t, const traza_event_type *ty, int32_t tid, int32_t prod, traza_diff_by by, const char *name,
                   tz_imap *seen, traza_err *err)
{
    if (ty->category == TRAZA_PUNCTUAL || (by == TRAZA_DIFF_BY_FUNCTION && ty->category != TRAZA_STATE))
        return 0; /* a function's calls are states */
    if (by != TRAZA_DIFF_BY_PRODUCER)
        return strcmp(ty->name, name) == 0;
    size_t len = strlen(ty->name);
    if (strncmp(ty->name, name, len) != 0 || strncmp(name + len, " @ ", 3) != 0)
        return 0;
    int64_t key = (int64_t)((uint64_t)(uint32_t)tid << 32 | (uint32_t)prod), v;
    if (!tz_imap_get(seen, key, &v)) {
        char path[512];
        v = strcmp(traza_trace_producer_path(t, prod, path, sizeof path), name + len + 3) == 0;
        if (tz_imap_put(seen, key, v) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    return (int)v;
}

/* The durations (seconds) and start times of a row's events in t. */
static int read_durs(traza_trace *t, traza_diff_by by, const char *name, durs *d, traza_err *err)
{
    const traza_event_type *types;
    size_t nt = traza_trace_event_types(t, &types);
    traza_filter f;
    traza_filter_init(&f);
    traza_scan *sc = traza_scan_open(t, &f, err);
    if (!sc)
        return -1;
    tz_imap seen;
    tz_imap_init(&seen);
    traza_scan_batch b;
    int rc;
    while ((rc = traza_scan_next(sc, &b, err)) > 0)
        for (size_t k = 0; k < b.n && rc > 0; k++) {
            int32_t ty = b.type[k];
            int in = ty >= 0 && (size_t)ty < nt ? row_has(t, &types[ty], ty, b.producer[k], by, name, &seen, err) : 0;
            if (in < 0 || (in && add_dur(d, b.end_ts[k] - b.ts[k], b.ts[k], err) < 0))
                rc = -1;
        }
    traza_scan_free(sc);
    tz_imap_free(&seen);
    return rc < 0 ? -1 : 0;
}

/* A function's self times: its calls walked with their callees (tools/callwalk). */
typedef struct self_ctx {
    durs *d;
    int32_t type;
} self_ctx;

static int self_close(void *ctx, const tz_cw_frame *f, traza_err *err)
{
    self_ctx *x = ctx;
    return f->c.type == x->type ? add_dur(x->d, f->c.end - f->c.ts - f->child_time, f->c.ts, err) : 0;
}

static int read_self(traza_trace *t, const char *name, durs *d, traza_err *err)
{
    const traza_event_type *types;
    size_t nt = traza_trace_event_types(t, &types);
    self_ctx x = {d, -1};
    for (size_t i = 0; i < nt && x.type < 0; i++)
        if (types[i].category == TRAZA_STATE && strcmp(types[i].name, name) == 0)
            x.type = (int32_t)i;
    if (x.type < 0)
        return 0;
    tz_callwalk_fns fns = {NULL, self_close};
    return tz_callwalk(t, &fns, &x, err);
}

static int read_row(traza_trace *t, traza_diff_by by, traza_diff_kind kind, const char *name, durs *d, traza_err *err)
{
    const traza_trace_info *info = traza_trace_info_of(t);
    d->unit = pow(10.0, info->time_unit);
    d->min_ts = info->min_ts;
    return kind == TRAZA_DIFF_SELF ? read_self(t, name, d, err) : read_durs(t, by, name, d, err);
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int traza_diff_ranges(traza_trace *const *a, size_t na, traza_trace *b, traza_diff_by by, traza_diff_kind kind, const char *name,
                      size_t slices, int rule, double k, traza_diff_range **out, size_t *n, double *lo, double *hi, traza_err *err)
{
    *out = NULL;
    *n = 0;
    if (!slices)
        slices = 1;
    durs da = {0}, db = {0};
    double center, spread;
    size_t cap = 0, last_first = 0; /* the first slice of the last range */
    if (kind == TRAZA_DIFF_PATH)
        return traza_err_set(err, TRAZA_E_USAGE, "diff: a call path's row has no durations to place in time");
    int rc = 0;
    for (size_t i = 0; i < na && rc == 0; i++) /* A's runs pooled: one normal interval */
        rc = read_row(a[i], by, kind, name, &da, err);
    if (rc == 0)
        rc = read_row(b, by, kind, name, &db, err);
    if (rc == 0 && (!da.n || !db.n))
        goto done; /* a side without durations: no range */
    if (rc == 0)
        rc = traza_anomaly_interval(da.v, da.n, (traza_rule)rule, k, lo, hi, &center, &spread, err);
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
done:
    free(da.v);
    free(da.ts);
    free(db.v);
    free(db.ts);
    if (rc < 0) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc < 0 ? -1 : 0;
}
