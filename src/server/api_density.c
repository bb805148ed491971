/* /api/density: event counts in equal slices of a window (the density chart). */
#include "server/api_internal.h"

#include <stdlib.h>

int tz_api_density(tz_req *r)
{
    traza_trace *t = tz_req_trace(r);
    if (!t)
        return -1;
    tz_req_filter rf;
    if (tz_req_filter_parse(r, t, &rf) < 0)
        return -1;
    int64_t slices;
    if (tz_arg_clamp(r, "slices", 1, TZ_API_MAX_SLICES, 200, &slices) < 0) {
        tz_req_filter_free(&rf);
        return -1;
    }
    uint64_t *counts = calloc((size_t)slices, sizeof *counts);
    if (!counts) {
        tz_req_filter_free(&rf);
        return tz_fail(r, 500, "out of memory");
    }
    int64_t from = 0, to = 0;
    const traza_trace_info *info = traza_trace_info_of(t);
    int rc = 0;
    if (tz_filter_time_only(&rf.f) && info->events > 0) {
        /* the slices of traza_density as rank differences: slice i holds the events
         * with a_i <= ts < a_{i+1}; no event is read (tz_req_ranks) */
        from = rf.f.has_from ? rf.f.from : info->min_ts;
        to = rf.f.has_to ? rf.f.to : info->max_ts;
        int64_t *rank = to >= from ? malloc(((size_t)slices + 1) * sizeof *rank) : NULL;
        if (to >= from && !rank)
            rc = traza_err_set(&r->err, TRAZA_E_NOMEM, "out of memory");
        if (rank) {
            rc = tz_req_slice_ranks(r, t, from, to, (size_t)slices, rank);
            for (int64_t i = 0; rc == 0 && i < slices; i++)
                counts[i] = rank[i + 1] > rank[i] ? (uint64_t)(rank[i + 1] - rank[i]) : 0;
            free(rank);
        }
    } else if (info->events > 0 || rf.f.has_from || rf.f.has_to)
        rc = traza_density(t, &rf.f, (size_t)slices, counts, &from, &to, &r->err);
    tz_req_filter_free(&rf);
    if (rc < 0) {
        free(counts);
        return tz_fail_err(r, &r->err);
    }
    tz_buf b;
    tz_buf_init(&b);
    uint64_t max = 0, total = 0;
    for (int64_t i = 0; i < slices; i++) {
        total += counts[i];
        if (counts[i] > max)
            max = counts[i];
    }
    tz_buf_puts(&b, "{\"from\":");
    tz_json_tick(r, &b, from);
    tz_buf_puts(&b, ",\"to\":");
    tz_json_tick(r, &b, to);
    tz_buf_printf(&b, ",\"time_unit\":%d,\"slices\":%lld,\"max\":%llu,\"total\":%llu,\"counts\":[", info->time_unit, (long long)slices, (unsigned long long)max,
                  (unsigned long long)total);
    for (int64_t i = 0; i < slices; i++)
        tz_buf_printf(&b, "%s%llu", i ? "," : "", (unsigned long long)counts[i]);
    tz_buf_puts(&b, "]}");
    free(counts);
    return tz_send_json(r, &b);
}
