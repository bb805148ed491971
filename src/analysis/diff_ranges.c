/* Where in time a change of durations shows: B's slices whose median duration of a
 * row lies outside A's normal interval (the anomaly rules of anomaly.c). */
#include "traza/diff.h"
#include "traza/analysis.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct durs {
    double *v;
    int64_t *ts;
    size_t n, cap, tcap;
} durs;

/* The durations (seconds) and start times of the events of type name in t. */
static int read_durs(traza_trace *t, const char *name, durs *d, traza_err *err)
{
    const traza_trace_info *info = traza_trace_info_of(t);
    double unit = pow(10.0, info->time_unit);
    const traza_event_type *types;
    size_t nt = traza_trace_event_types(t, &types);
    traza_filter f;
    traza_filter_init(&f);
    traza_scan *sc = traza_scan_open(t, &f, err);
    if (!sc)
        return -1;
    traza_scan_batch b;
    int rc;
    while ((rc = traza_scan_next(sc, &b, err)) > 0)
        for (size_t k = 0; k < b.n; k++) {
            int32_t ty = b.type[k];
            if (ty < 0 || (size_t)ty >= nt || types[ty].category == TRAZA_PUNCTUAL || strcmp(types[ty].name, name) != 0)
                continue;
            if (TZ_GROW(d->v, d->cap, d->n + 1) < 0 || TZ_GROW(d->ts, d->tcap, d->n + 1) < 0) {
                traza_scan_free(sc);
                return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            }
            d->v[d->n] = (double)(b.end_ts[k] > b.ts[k] ? b.end_ts[k] - b.ts[k] : 0) * unit;
            d->ts[d->n++] = b.ts[k] - info->min_ts;
        }
    traza_scan_free(sc);
    return rc < 0 ? -1 : 0;
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int traza_diff_ranges(traza_trace *a, traza_trace *b, const char *type, size_t slices, int rule, double k,
                      traza_diff_range **out, size_t *n, double *lo, double *hi, traza_err *err)
{
    *out = NULL;
    *n = 0;
    if (!slices)
        slices = 1;
    durs da = {0}, db = {0};
    double center, spread;
    size_t cap = 0, last_first = 0; /* the first slice of the last range */
    int rc = read_durs(a, type, &da, err);
    if (rc == 0)
        rc = read_durs(b, type, &db, err);
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
