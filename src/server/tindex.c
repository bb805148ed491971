/* An in-memory time index of a trace for the server: the start time, type and
 * producer of every event in time order (16 bytes an event), built by one scan the
 * first time a trace is asked for and kept for the two most recent traces. With it,
 * density slices, timeline pixel columns and deep table offsets are binary searches
 * instead of store look-ups, so those requests cost microseconds per pixel whatever
 * the trace size (bench/web.sh). Traces above TZ_TINDEX_MAX events are served by the
 * store alone. */
#include "server/api_internal.h"

#include <stdlib.h>
#include <string.h>

void tz_tindex_free(tz_tindex *ix)
{
    if (!ix)
        return;
    free(ix->ts);
    free(ix->type);
    free(ix->prod);
    free(ix);
}

static tz_tindex *build(traza_trace *t, traza_err *err)
{
    const traza_trace_info *info = traza_trace_info_of(t);
    tz_tindex *ix = calloc(1, sizeof *ix);
    size_t n = (size_t)(info->events > 0 ? info->events : 0);
    if (!ix || !(ix->ts = malloc((n ? n : 1) * sizeof *ix->ts)) || !(ix->type = malloc((n ? n : 1) * sizeof *ix->type)) ||
        !(ix->prod = malloc((n ? n : 1) * sizeof *ix->prod))) {
        tz_tindex_free(ix);
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory for the time index of %zu events", n);
        return NULL;
    }
    ix->trace_id = info->id;
    traza_filter f;
    traza_filter_init(&f);
    traza_cursor *c = traza_query(t, &f, err);
    if (!c) {
        tz_tindex_free(ix);
        return NULL;
    }
    const traza_event *ev;
    int rc;
    size_t k = 0;
    while ((rc = traza_cursor_next(c, &ev, err)) > 0 && k < n) {
        ix->ts[k] = ev->ts;
        ix->type[k] = ev->type;
        ix->prod[k] = ev->producer;
        k++;
    }
    traza_cursor_free(c);
    if (rc < 0) {
        tz_tindex_free(ix);
        return NULL;
    }
    ix->n = k;
    return ix;
}

const tz_tindex *tz_req_tindex(tz_req *r, traza_trace *t)
{
    tz_api *api = r->api;
    const traza_trace_info *info = traza_trace_info_of(t);
    if (info->events > TZ_TINDEX_MAX)
        return NULL;
    for (int i = 0; i < TZ_TINDEX_CACHE; i++)
        if (api->tix[i] && api->tix[i]->trace_id == info->id) {
            api->tix[i]->used = ++api->clock;
            return api->tix[i];
        }
    traza_err err;
    traza_err_clear(&err);
    tz_tindex *ix = build(t, &err);
    if (!ix)
        return NULL; /* the store answers instead */
    int victim = 0;
    for (int i = 0; i < TZ_TINDEX_CACHE; i++) {
        if (!api->tix[i]) { victim = i; break; }
        if (api->tix[i]->used < api->tix[victim]->used)
            victim = i;
    }
    tz_tindex_free(api->tix[victim]);
    ix->used = ++api->clock;
    api->tix[victim] = ix;
    return ix;
}

size_t tz_tindex_first_ge(const tz_tindex *ix, int64_t x)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->ts[mid] >= x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

size_t tz_tindex_first_gt(const tz_tindex *ix, int64_t x)
{
    return x == INT64_MAX ? ix->n : tz_tindex_first_ge(ix, x + 1);
}

int tz_filter_time_only(const traza_filter *f)
{
    return !f->types && !f->producers && !f->categories && !f->nconds && !f->nregexes && !f->event_set && !f->overlap;
}
