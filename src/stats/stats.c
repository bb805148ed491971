/* Statistics per event type and per producer, and event density over time. */
#include "traza/stats.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

void traza_stats_query(const traza_trace *t, const traza_filter *f, traza_filter *q, int64_t *from, int64_t *to)
{
    const traza_trace_info *info = traza_trace_info_of(t);
    traza_filter_init(q);
    if (f)
        *q = *f;
    q->with_params = q->nregexes > 0;
    q->offset = q->limit = 0;
    if (q->has_from || q->has_to)
        q->overlap = 1;
    *from = q->has_from ? q->from : info->min_ts;
    *to = q->has_to ? q->to : info->max_ts;
}

int64_t traza_stats_clip(int64_t ts, int64_t end_ts, int64_t from, int64_t to)
{
    int64_t a = ts > from ? ts : from;
    int64_t b = end_ts < to ? end_ts : to;
    return b > a ? b - a : 0;
}

int traza_stats_compute(traza_trace *t, const traza_filter *f, traza_stats *out, traza_err *err)
{
    memset(out, 0, sizeof *out);
    const traza_event_type *types;
    const traza_producer *prods;
    size_t nt = traza_trace_event_types(t, &types);
    size_t np = traza_trace_producers(t, &prods);
    out->types = calloc(nt ? nt : 1, sizeof *out->types);
    out->producers = calloc(np ? np : 1, sizeof *out->producers);
    if (!out->types || !out->producers) {
        traza_stats_free(out);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    out->ntypes = nt;
    out->nproducers = np;
    for (size_t i = 0; i < nt; i++)
        out->types[i].id = (int32_t)i;
    for (size_t i = 0; i < np; i++)
        out->producers[i].id = (int32_t)i;
    traza_filter q;
    traza_stats_query(t, f, &q, &out->from, &out->to);
    traza_scan *c = traza_scan_open(t, &q, err);
    if (!c) {
        traza_stats_free(out);
        return -1;
    }
    traza_scan_batch bt;
    int rc;
    while ((rc = traza_scan_next(c, &bt, err)) > 0) {
        for (size_t i = 0; i < bt.n; i++) {
            /* end_ts == ts for events without an end: a zero duration either way */
            int64_t d = traza_stats_clip(bt.ts[i], bt.end_ts[i], out->from, out->to);
            out->types[bt.type[i]].count++;
            out->types[bt.type[i]].duration += d;
            out->producers[bt.producer[i]].count++;
            out->producers[bt.producer[i]].duration += d;
            out->total++;
        }
    }
    traza_scan_free(c);
    if (rc < 0) {
        traza_stats_free(out);
        return -1;
    }
    return 0;
}

void traza_stats_free(traza_stats *s)
{
    free(s->types);
    free(s->producers);
    memset(s, 0, sizeof *s);
}

int traza_density(traza_trace *t, const traza_filter *f, size_t nslices, uint64_t *counts, int64_t *from, int64_t *to,
                  traza_err *err)
{
    if (nslices == 0)
        return traza_err_set(err, TRAZA_E_USAGE, "density needs at least one slice");
    const traza_trace_info *info = traza_trace_info_of(t);
    traza_filter q;
    traza_filter_init(&q);
    if (f)
        q = *f;
    int64_t lo = q.has_from ? q.from : info->min_ts;
    int64_t hi = q.has_to ? q.to : info->max_ts;
    if (hi < lo)
        return traza_err_set(err, TRAZA_E_USAGE, "the window ends before it starts");
    memset(counts, 0, nslices * sizeof *counts);
    *from = lo;
    *to = hi;
    __int128 span = (__int128)hi - lo + 1;
    int time_only = !q.types && !q.producers && !q.categories && !q.nconds && !q.nregexes && !q.event_set && !q.during && !q.overlap;
    if (time_only) {
        /* Each slice is a count over an id range: O(slices * log n), no scan. */
        for (size_t i = 0; i < nslices; i++) {
            q.has_from = q.has_to = 1;
            q.from = lo + (int64_t)(span * (__int128)i / (__int128)nslices);
            q.to = lo + (int64_t)(span * (__int128)(i + 1) / (__int128)nslices) - 1;
            if (q.to < q.from)
                continue;
            int64_t n = traza_count(t, &q, err);
            if (n < 0)
                return -1;
            counts[i] = (uint64_t)n;
        }
        return 0;
    }
    q.has_from = q.has_to = 1;
    q.from = lo;
    q.to = hi;
    q.offset = q.limit = 0;
    q.with_params = q.nregexes > 0;
    traza_scan *c = traza_scan_open(t, &q, err);
    if (!c)
        return -1;
    traza_scan_batch bt;
    int rc;
    while ((rc = traza_scan_next(c, &bt, err)) > 0) {
        for (size_t k = 0; k < bt.n; k++) {
            int64_t ts = bt.ts[k];
            if (ts < lo || ts > hi)
                continue;
            /* the slice whose [lo + span*i/n, lo + span*(i+1)/n) holds ts, as the count path cuts them */
            size_t i = (size_t)((((__int128)ts - lo) * nslices + nslices - 1) / span);
            counts[i < nslices ? i : nslices - 1]++;
        }
    }
    traza_scan_free(c);
    return rc < 0 ? -1 : 0;
}
