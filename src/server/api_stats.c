/* /api/stats: counts and durations per event type and per producer (the pie charts).
 *
 * The events counted are those of traza_stats_query (the rule of 'traza stats': events
 * overlapping the window, durations clipped to it). Bounded: a window holding more
 * than TZ_STATS_SCAN events is measured on a sample
 * (the first events of each of TZ_STATS_PARTS equal sub-windows, scaled by the exact
 * count of that sub-window); the answer then says "sampled": true. Counting with a
 * regex filter and scanning stop at the request's deadline (budget=): the answer
 * then says "partial": true and "covered_to" (the time measured up to). */
#include "server/api_internal.h"

#include <stdlib.h>
#include <string.h>

#define TZ_STATS_SCAN 400000
#define TZ_STATS_PARTS 64

typedef struct acc {
    double count, duration;
} acc;

static int scan(tz_req *r, traza_trace *t, const traza_filter *q, int64_t from, int64_t to, double scale_to, acc *types,
                acc *prods, double *total, int *partial, int64_t *covered_to)
{
    traza_cursor *c = traza_query(t, q, &r->err);
    if (!c)
        return -1;
    const traza_event *ev;
    int rc;
    size_t n0 = 0;
    /* into temporaries first so that a sub-window can be scaled */
    const traza_event_type *ty;
    const traza_producer *pr;
    size_t nt = traza_trace_event_types(t, &ty), np = traza_trace_producers(t, &pr);
    acc *lt = calloc(nt ? nt : 1, sizeof *lt), *lp = calloc(np ? np : 1, sizeof *lp);
    if (!lt || !lp) {
        free(lt);
        free(lp);
        traza_cursor_free(c);
        return traza_err_set(&r->err, TRAZA_E_NOMEM, "out of memory");
    }
    while ((rc = traza_cursor_next(c, &ev, &r->err)) > 0) {
        if ((n0 & 4095) == 4095 && tz_req_expired(r)) {
            *partial = 1;
            *covered_to = ev->ts;
            break;
        }
        double d = ev->has & TRAZA_HAS_END ? (double)traza_stats_clip(ev->ts, ev->end_ts, from, to) : 0;
        if ((size_t)ev->type < nt) { lt[ev->type].count++; lt[ev->type].duration += d; }
        if ((size_t)ev->producer < np) { lp[ev->producer].count++; lp[ev->producer].duration += d; }
        n0++;
    }
    traza_cursor_free(c);
    if (rc >= 0) {
        double k = scale_to > 0 && n0 > 0 ? scale_to / (double)n0 : 1;
        for (size_t i = 0; i < nt; i++) { types[i].count += lt[i].count * k; types[i].duration += lt[i].duration * k; }
        for (size_t i = 0; i < np; i++) { prods[i].count += lp[i].count * k; prods[i].duration += lp[i].duration * k; }
        *total += (double)n0 * k;
    }
    free(lt);
    free(lp);
    return rc < 0 ? -1 : 0;
}

static int cmp_desc(const void *a, const void *b, void *ctx)
{
    const acc *v = ctx;
    double x = v[*(const int32_t *)a].count, y = v[*(const int32_t *)b].count;
    return x < y ? 1 : x > y ? -1 : (*(const int32_t *)a > *(const int32_t *)b) - (*(const int32_t *)a < *(const int32_t *)b);
}

int tz_api_stats(tz_req *r)
{
    traza_trace *t = tz_req_trace(r);
    if (!t)
        return -1;
    tz_req_filter rf;
    if (tz_req_filter_parse(r, t, &rf) < 0)
        return -1;
    const traza_trace_info *info = traza_trace_info_of(t);
    const traza_event_type *types;
    const traza_producer *prods;
    size_t nt = traza_trace_event_types(t, &types), np = traza_trace_producers(t, &prods);
    acc *at = calloc(nt ? nt : 1, sizeof *at), *ap = calloc(np ? np : 1, sizeof *ap);
    int32_t *order = calloc(np ? np : 1, sizeof *order);
    if (!at || !ap || !order) {
        free(at); free(ap); free(order);
        tz_req_filter_free(&rf);
        return tz_fail(r, 500, "out of memory");
    }
    traza_filter q;
    int64_t from, to;
    traza_stats_query(t, &rf.f, &q, &from, &to);
    double total = 0;
    int sampled = 0, rc = 0;
    traza_filter cq = q;
    cq.has_from = cq.has_to = 1;
    cq.from = from;
    cq.to = to;
    cq.overlap = 0;
    int64_t n = 0, scanned = 0, covered_to = to;
    int exact = 1, partial = 0;
    if (info->events > 0 && tz_count_bounded(r, t, &cq, &n, &exact, &scanned, &covered_to) < 0)
        n = -1;
    if (!exact) {
        /* the count alone used the budget: measure a sample of what it reached */
        partial = sampled = 1;
        q.has_from = q.has_to = 1;
        q.from = from;
        q.to = covered_to;
        q.overlap = 0;
        q.limit = TZ_STATS_SCAN;
        int64_t ct = covered_to;
        r->deadline = tz_now_ns() + 200000000; /* a short grace for the sample */
        rc = scan(r, t, &q, from, covered_to, (double)scanned, at, ap, &total, &partial, &ct);
    } else if (n < 0) {
        rc = -1;
    } else if (n <= TZ_STATS_SCAN) {
        rc = scan(r, t, &q, from, to, 0, at, ap, &total, &partial, &covered_to);
    } else {
        sampled = 1;
        __int128 span = (__int128)to - from + 1;
        for (int i = 0; i < TZ_STATS_PARTS && rc == 0 && !partial; i++) {
            traza_filter s = q;
            s.has_from = s.has_to = 1;
            s.overlap = 0;
            s.from = from + (int64_t)(span * i / TZ_STATS_PARTS);
            s.to = from + (int64_t)(span * (i + 1) / TZ_STATS_PARTS) - 1;
            if (s.to < s.from)
                continue;
            if (tz_req_expired(r)) {
                partial = 1;
                covered_to = s.from - 1;
                break;
            }
            int64_t cnt, sc, st;
            int ex;
            if (tz_count_bounded(r, t, &s, &cnt, &ex, &sc, &st) < 0) { rc = -1; break; }
            if (!ex) {
                partial = 1;
                covered_to = st;
                s.to = st;
                cnt = sc;
            }
            if (cnt == 0)
                continue;
            s.limit = TZ_STATS_SCAN / TZ_STATS_PARTS;
            int64_t ct = s.to;
            int pp = 0;
            rc = scan(r, t, &s, s.from, s.to, (double)cnt, at, ap, &total, &pp, &ct);
        }
    }
    tz_req_filter_free(&rf);
    if (rc < 0) {
        free(at); free(ap); free(order);
        return tz_fail_err(r, &r->err);
    }
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_puts(&b, "{\"from\":");
    tz_json_tick(r, &b, from);
    tz_buf_puts(&b, ",\"to\":");
    tz_json_tick(r, &b, to);
    tz_buf_printf(&b, ",\"sampled\":%s,\"partial\":%s,", sampled ? "true" : "false", partial ? "true" : "false");
    if (partial) {
        tz_buf_puts(&b, "\"covered_to\":");
        tz_json_tick(r, &b, covered_to);
        tz_buf_putc(&b, ',');
    }
    tz_buf_printf(&b, "\"total\":%.0f,\"types\":[", total);
    int first = 1;
    for (size_t i = 0; i < nt; i++) {
        if (at[i].count <= 0)
            continue;
        tz_buf_printf(&b, "%s{\"id\":%zu,\"name\":", first ? "" : ",", i);
        first = 0;
        tz_json_str(&b, types[i].name);
        tz_buf_printf(&b, ",\"category\":\"%s\",\"count\":%.0f,\"duration\":%.0f,\"color\":",
                      traza_category_name(types[i].category), at[i].count, at[i].duration);
        tz_json_color(&b, types[i].name, types[i].color);
        tz_buf_puts(&b, "}");
    }
    tz_buf_puts(&b, "],\"producers\":[");
    size_t no = 0;
    for (size_t i = 0; i < np; i++)
        if (ap[i].count > 0)
            order[no++] = (int32_t)i;
    qsort_r(order, no, sizeof *order, cmp_desc, ap);
    double other = 0, other_d = 0;
    for (size_t k = 0; k < no; k++) {
        int32_t i = order[k];
        if (k >= TZ_API_MAX_LIST) {
            other += ap[i].count;
            other_d += ap[i].duration;
            continue;
        }
        char path[1024];
        traza_trace_producer_path(t, i, path, sizeof path);
        tz_buf_printf(&b, "%s{\"id\":%d,\"name\":", k ? "," : "", i);
        tz_json_str(&b, path);
        tz_buf_printf(&b, ",\"count\":%.0f,\"duration\":%.0f,\"color\":", ap[i].count, ap[i].duration);
        tz_json_color(&b, prods[i].name, NULL);
        tz_buf_puts(&b, "}");
    }
    tz_buf_printf(&b, "],\"other_producers\":{\"count\":%.0f,\"duration\":%.0f}}", other, other_d);
    free(at); free(ap); free(order);
    return tz_send_json(r, &b);
}
