/* The micro model of /api/aggregate, bounded in time whatever the window.
 *
 * - a window of at most TZ_AGG_EXACT events (or exact=N, less), or the time ranges
 *   of saved annotations (during=): the library's exact model;
 * - the occurrences model with the server's time index: exact, from the index (one
 *   pass over the window's entries, no store access); the index is filled with at
 *   most half of each request's budget (tindex.c), so on a big trace the first
 *   requests are sampled and the later ones exact;
 * - otherwise sampled: in each slice, the first TZ_AGG_SCAN / slices events that
 *   start in it are read and their contributions scaled by (events starting in the
 *   slice) / (events read). Every read stops at the request's deadline; slices not
 *   reached then stay empty and the answer says "partial".
 * Each event's contribution is the library's (traza_agg_acc_add): only which events
 * are read, and what they weigh, is decided here. */
#include "server/api_internal.h"

#include <stdlib.h>
#include <string.h>

#define TZ_AGG_EXACT 500000
#define TZ_AGG_SCAN 400000

/* An event of a slice's sample, kept until the sample's weight is known. */
typedef struct sampled_ev {
    int64_t a, b;
    int32_t type, producer;
    double value;
} sampled_ev;

/* Sampled: in each slice, the first `per` events that start in it, each weighing
 * (events starting in the slice) / (events read). */
static int add_sampled(tz_req *r, traza_trace *t, const traza_filter *f, const tz_tindex *ix, traza_agg_acc *A,
                       size_t nslices, int *partial)
{
    int64_t per = TZ_AGG_SCAN / (int64_t)nslices;
    if (per < 16)
        per = 16;
    sampled_ev *buf = malloc((size_t)per * sizeof *buf);
    if (!buf)
        return traza_err_set(&r->err, TRAZA_E_NOMEM, "out of memory");
    int rc = 0;
    for (size_t k = 0; k < nslices && rc == 0 && !*partial; k++) {
        if (k > 0 && tz_req_expired(r)) { /* the first slice is always read */
            *partial = 1;
            break;
        }
        traza_filter sf = *f;
        sf.from = traza_agg_acc_slice_start(A, k);
        sf.to = k + 1 == nslices ? traza_agg_acc_slice_start(A, nslices) : traza_agg_acc_slice_start(A, k + 1) - 1;
        if (sf.to < sf.from)
            continue;
        int64_t cnt = ix ? (int64_t)(tz_tindex_first_gt(ix, sf.to) - tz_tindex_first_ge(ix, sf.from)) : traza_count(t, &sf, &r->err);
        if (cnt <= 0) {
            rc = cnt < 0 ? -1 : 0;
            continue;
        }
        sf.limit = per;
        traza_cursor *c = traza_query(t, &sf, &r->err);
        if (!c) {
            rc = -1;
            break;
        }
        const traza_event *ev;
        size_t seen = 0;
        int q = 0;
        while (seen < (size_t)per && (q = traza_cursor_next(c, &ev, &r->err)) == 1) {
            buf[seen++] = (sampled_ev){ev->ts, (ev->has & TRAZA_HAS_END) ? ev->end_ts : ev->ts, ev->type, ev->producer, ev->value};
            if ((seen & 4095) == 0 && tz_req_expired(r)) {
                *partial = 1;
                break;
            }
        }
        traza_cursor_free(c);
        if (q < 0) {
            rc = -1;
            break;
        }
        double weight = (double)cnt / (double)seen;
        for (size_t i = 0; i < seen && rc == 0; i++)
            rc = traza_agg_acc_add(A, buf[i].a, buf[i].b, buf[i].type, buf[i].producer, buf[i].value, weight, &r->err);
    }
    free(buf);
    return rc;
}

int tz_agg_micro_bounded(tz_req *r, traza_trace *t, int64_t t0, int64_t t1, size_t nslices, int model, traza_agg_micro *m,
                         int *sampled, int *partial)
{
    *sampled = *partial = 0;
    memset(m, 0, sizeof *m);
    /* during= (saved annotations): the library's exact model over the ranges, as
     * `traza aggregate --during` builds it */
    traza_filter f;
    traza_filter_init(&f);
    f.has_from = f.has_to = 1;
    f.from = t0;
    f.to = t1;
    const char *during = tz_arg_str(r, "during");
    if (during && *during) {
        traza_filter_spec spec = {.during = during};
        int32_t *no_types = NULL, *no_prods = NULL;
        int rr = traza_filter_resolve(t, &spec, &f, &no_types, &no_prods, &r->err);
        free(no_types);
        free(no_prods);
        return rr < 0 ? -1 : traza_agg_micro_build(t, &f, nslices, (traza_agg_model)model, m, &r->err);
    }
    int64_t n = traza_count(t, &f, &r->err); /* rank look-ups: no scan */
    if (n < 0)
        return -1;
    int64_t exact;
    if (tz_arg_clamp(r, "exact", 1, TZ_AGG_EXACT, TZ_AGG_EXACT, &exact) < 0)
        return -2;
    if (n <= exact)
        return traza_agg_micro_build(t, &f, nslices, (traza_agg_model)model, m, &r->err);
    /* the time index takes at most half the budget; until it is complete (after a
     * few requests on a big trace) the answer is sampled */
    int64_t now = tz_now_ns();
    const tz_tindex *ix = model == TRAZA_AGG_OCCURRENCES ? tz_req_tindex_within(r, t, now + (r->deadline - now) / 2) : NULL;
    traza_agg_acc *A = traza_agg_acc_open(t, t0, t1, nslices, (traza_agg_model)model, &r->err);
    if (!A)
        return -1;
    int rc = 0;
    if (model == TRAZA_AGG_OCCURRENCES && ix) {
        /* exact, from the index */
        size_t e = tz_tindex_first_gt(ix, t1);
        for (size_t i = tz_tindex_first_ge(ix, t0); i < e && rc == 0; i++) {
            if ((i & 65535) == 65535 && tz_req_expired(r)) {
                *partial = 1;
                break;
            }
            rc = traza_agg_acc_add(A, ix->ts[i], ix->ts[i], tz_tindex_type(ix, i), tz_tindex_prod(ix, i), 0, 1, &r->err);
        }
    } else {
        *sampled = 1;
        rc = add_sampled(r, t, &f, ix, A, nslices, partial);
    }
    if (rc < 0) {
        traza_agg_acc_free(A);
        return -1;
    }
    return traza_agg_acc_finish(A, m, &r->err);
}
