/* Request time budgets: a deadline per request, and counts that stop at it. */
#include "server/api_internal.h"

#include <time.h>

int64_t tz_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int tz_req_expired(const tz_req *r)
{
    return atomic_load(&r->api->sh->stopping) || tz_now_ns() >= r->deadline;
}

static int stop_at(void *ctx, int stage)
{
    (void)stage;
    return tz_now_ns() >= *(const int64_t *)ctx;
}

static int budget_stop_fn(void *ctx, int stage)
{
    const tz_budget_stop *b = ctx;
    int64_t now = tz_now_ns();
    return atomic_load(&b->r->api->sh->stopping) || (stage == TRAZA_STAGE_READ ? now >= b->read_deadline : now >= b->r->deadline);
}

void tz_budget_stop_init(tz_budget_stop *b, traza_stop *st, const tz_req *r)
{
    int64_t now = tz_now_ns();
    b->r = r;
    b->read_deadline = r->deadline > now ? now + (r->deadline - now) / 2 : now;
    st->fn = budget_stop_fn;
    st->ctx = b;
}

void tz_stop_at(traza_stop *st, const int64_t *deadline)
{
    st->fn = stop_at;
    st->ctx = (void *)deadline;
}

int tz_count_bounded(tz_req *r, traza_trace *t, const traza_filter *f, int64_t *count, int *exact, int64_t *scanned,
                     int64_t *scanned_to)
{
    *exact = 1;
    *scanned = 0;
    *scanned_to = INT64_MIN;
    if (f->nregexes == 0 && !f->during) {
        int64_t n = traza_count(t, f, &r->err);
        if (n < 0)
            return -1;
        *count = *scanned = n;
        return 0;
    }
    traza_filter q = *f;
    q.offset = q.limit = 0;
    q.order = TRAZA_ORDER_TIME;
    traza_stop stop; /* within a batch too: one event's regexes may take milliseconds */
    tz_stop_at(&stop, &r->deadline);
    q.stop = &stop;
    traza_scan *s = traza_scan_open(t, &q, &r->err);
    if (!s)
        return -1;
    traza_scan_batch b;
    int rc;
    int64_t n = 0;
    while ((rc = traza_scan_next(s, &b, &r->err)) > 0) {
        n += (int64_t)b.n;
        *scanned_to = b.ts[b.n - 1];
        if (tz_req_expired(r)) {
            *exact = 0;
            break;
        }
    }
    traza_scan_free(s);
    if (rc < 0 && r->err.code == TRAZA_E_CANCELLED) {
        traza_err_clear(&r->err);
        *exact = 0;
    } else if (rc < 0) {
        return -1;
    }
    *scanned = n;
    *count = n;
    if (!*exact) {
        /* extrapolate over the part of the window not reached */
        const traza_trace_info *info = traza_trace_info_of(t);
        int64_t a = f->has_from ? f->from : info->min_ts, e = f->has_to ? f->to : info->max_ts;
        double done = *scanned_to > a && e > a ? (double)(*scanned_to - a) / (double)(e - a) : 0;
        if (done > 0 && done < 1)
            *count = (int64_t)((double)n / done);
    }
    return 0;
}
