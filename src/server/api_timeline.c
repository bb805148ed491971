/* /api/timeline: what the Gantt view draws for a window.
 *
 * Detail mode: when the window holds at most `max` events, every event (intervals
 * overlapping the window included), each an array named by "fields":
 *   [ts, end, type, producer, end_producer, level, value, id]
 * end is ts for an event without one, end_producer -1 when there is none, level 0
 * when unset, value null for an event without a value, id the stored event id.
 *
 * Summary mode (level of detail): otherwise, one column per pixel with the exact
 * event count and the (producer, type) cells seen among `sample` events spread over
 * that pixel, so a request costs O(width) rank look-ups whatever the trace size (the
 * store's ranks and overview, or the in-memory time index of tindex.c). A filter
 * beyond time falls back to one query per pixel, whose sample is then the pixel's
 * first events.
 *
 * With a time-only filter and the trace's time index complete (filled with half of
 * the request's budget at most; see tindex.c), the summary also has exact rows:
 *   "rows": [{"producer": P, "runs": [[x, len, type], ...]}, ...]
 * per producer with something in the window, the runs of pixel columns x .. x+len-1
 * that hold at least one of its events or are covered by one of its states (a state
 * is drawn over every column it overlaps): maximal runs of such columns, each with
 * its dominant type, the one of most events starting in the run (counted on up to 8
 * events spread over each column, each weighing its share of the column's count; a
 * stretch covered by a state where nothing starts counts as that one state). Cost:
 * per producer, one galloping search per column holding a start or per stretch
 * covered by a state (O(log n) each), so at most producers x width searches,
 * whatever the number of events; at most TZ_TIMELINE_MAX_RUNS runs, "rows_truncated": true
 * beyond (the rows then end at some producer). */
#include "server/api_internal.h"

#include <stdlib.h>
#include <string.h>

#define TZ_TIMELINE_MAX_RUNS 262144

typedef struct cell {
    int32_t producer, type;
    int32_t n;
} cell;

static void event_json(const tz_req *r, tz_buf *b, const traza_event *ev, int first)
{
    tz_buf_puts(b, first ? "[" : ",[");
    tz_json_tick(r, b, ev->ts);
    tz_buf_putc(b, ',');
    tz_json_tick(r, b, (ev->has & TRAZA_HAS_END) ? ev->end_ts : ev->ts);
    tz_buf_printf(b, ",%d,%d,%d,%d", ev->type, ev->producer,
                  (ev->has & TRAZA_HAS_END_PRODUCER) ? ev->end_producer : -1, (ev->has & TRAZA_HAS_LEVEL) ? ev->level : 0);
    tz_buf_putc(b, ',');
    if (ev->has & TRAZA_HAS_VALUE)
        tz_json_num(b, ev->value);
    else
        tz_buf_puts(b, "null");
    tz_buf_printf(b, ",%lld]", (long long)ev->id);
}

/* Summary columns from ranks, for a time-only filter: pixel x holds the events of
 * ranks [rank(a_x), rank(a_x+1)); its sample is `sample` of them spread evenly, taken
 * from the trace's overview where the pixel holds enough overview entries, else read
 * by rank in one batch. Costs O(width) rank look-ups whatever the trace size and reads
 * no event in between. */
static int summary_ranked(tz_req *r, traza_trace *t, tz_buf *b, int64_t from, int64_t to, int64_t width, int64_t sample)
{
    const tz_tindex *ix = tz_req_tindex_opt(r, t);
    traza_overview ov = {0, 0, NULL, NULL, NULL};
    if (!ix && traza_trace_overview(t, &ov, &r->err) < 0)
        return -1;
    size_t w = (size_t)width, ns = (size_t)sample;
    int64_t *rank = malloc((w + 1) * sizeof *rank);
    int32_t *sty = malloc(w * ns * sizeof *sty), *spr = malloc(w * ns * sizeof *spr);
    size_t *nsamp = calloc(w, sizeof *nsamp);
    int64_t *want = malloc(w * ns * sizeof *want);
    size_t *where = malloc(w * ns * sizeof *where);
    cell *cells = calloc(ns, sizeof *cells);
    int rc = 0;
    if (!rank || !sty || !spr || !nsamp || !want || !where || !cells) {
        rc = traza_err_set(&r->err, TRAZA_E_NOMEM, "out of memory");
        goto out;
    }
    if (tz_req_slice_ranks(r, t, from, to, w, rank) < 0) {
        rc = -1;
        goto out;
    }
    /* the sample ranks of each pixel; those the overview lacks go into one batch */
    size_t nwant = 0;
    for (size_t c = 0; c < w; c++) {
        int64_t ra = rank[c], re = rank[c + 1], cnt = re - ra;
        if (cnt <= 0)
            continue;
        size_t take = cnt < sample ? (size_t)cnt : ns;
        if (ix) {
            for (size_t k = 0; k < take; k++) {
                size_t i = (size_t)(ra + (int64_t)((__int128)cnt * k / take));
                sty[c * ns + k] = tz_tindex_type(ix, i);
                spr[c * ns + k] = tz_tindex_prod(ix, i);
            }
            nsamp[c] = take;
            continue;
        }
        /* overview entries j with j * step in [ra, re) */
        int64_t j0 = (ra + ov.step - 1) / (ov.step ? ov.step : 1), j1 = ov.step ? (re - 1) / ov.step + 1 : 0;
        if (j1 > (int64_t)ov.n)
            j1 = (int64_t)ov.n;
        if (ov.step && j1 - j0 >= (int64_t)take) {
            int64_t m = j1 - j0;
            for (size_t k = 0; k < take; k++) {
                size_t j = (size_t)(j0 + (int64_t)((__int128)m * k / take));
                sty[c * ns + k] = ov.type[j];
                spr[c * ns + k] = ov.producer[j];
            }
        } else {
            for (size_t k = 0; k < take; k++) {
                want[nwant] = ra + (int64_t)((__int128)cnt * k / take);
                where[nwant++] = c * ns + k;
            }
        }
        nsamp[c] = take;
    }
    if (nwant) {
        int64_t *wts = malloc(nwant * sizeof *wts);
        int32_t *wty = malloc(nwant * sizeof *wty), *wpr = malloc(nwant * sizeof *wpr);
        if (!wts || !wty || !wpr)
            rc = traza_err_set(&r->err, TRAZA_E_NOMEM, "out of memory");
        else
            rc = traza_events_at(t, want, nwant, wts, wty, wpr, &r->err);
        for (size_t i = 0; rc == 0 && i < nwant; i++) {
            sty[where[i]] = wty[i];
            spr[where[i]] = wpr[i];
        }
        free(wts);
        free(wty);
        free(wpr);
        if (rc < 0)
            goto out;
    }
    int firstcol = 1;
    for (size_t c = 0; c < w; c++) {
        if (!nsamp[c])
            continue;
        size_t nc = 0;
        for (size_t k = 0; k < nsamp[c]; k++) {
            int32_t pr = spr[c * ns + k], ty = sty[c * ns + k];
            size_t j = 0;
            while (j < nc && (cells[j].producer != pr || cells[j].type != ty))
                j++;
            if (j == nc) {
                cells[nc].producer = pr;
                cells[nc].type = ty;
                cells[nc].n = 0;
                nc++;
            }
            cells[j].n++;
        }
        tz_buf_printf(b, "%s{\"x\":%zu,\"n\":%lld,\"cells\":[", firstcol ? "" : ",", c, (long long)(rank[c + 1] - rank[c]));
        firstcol = 0;
        for (size_t j = 0; j < nc; j++)
            tz_buf_printf(b, "%s[%d,%d,%d]", j ? "," : "", cells[j].producer, cells[j].type, cells[j].n);
        tz_buf_puts(b, "]}");
    }
out:
    free(rank);
    free(sty);
    free(spr);
    free(nsamp);
    free(want);
    free(where);
    free(cells);
    return rc;
}

/* Summary columns by queries (a store without rank look-ups, or a filter beyond time):
 * per pixel, its first `sample` events and the exact count. */
static int summary_by_queries(tz_req *r, traza_trace *t, tz_buf *b, const traza_filter *q, int64_t from, int64_t to,
                              int64_t width, int64_t sample)
{
    int rc = 0;
    __int128 span = (__int128)to - from + 1;
    cell *cells = calloc((size_t)sample, sizeof *cells);
    if (!cells)
        rc = traza_err_set(&r->err, TRAZA_E_NOMEM, "out of memory");
    int firstcol = 1;
    for (int64_t x = 0; x < width && rc == 0; x++) {
        traza_filter p = *q;
        p.from = from + (int64_t)(span * x / width);
        p.to = from + (int64_t)(span * (x + 1) / width) - 1;
        if (p.to < p.from)
            continue;
        p.limit = sample;
        traza_cursor *c = traza_query(t, &p, &r->err);
        if (!c) { rc = -1; break; }
        const traza_event *ev;
        size_t nc = 0;
        int64_t seen = 0;
        int k;
        while ((k = traza_cursor_next(c, &ev, &r->err)) > 0) {
            seen++;
            size_t j = 0;
            while (j < nc && (cells[j].producer != ev->producer || cells[j].type != ev->type))
                j++;
            if (j == nc) {
                cells[nc].producer = ev->producer;
                cells[nc].type = ev->type;
                cells[nc].n = 0;
                nc++;
            }
            cells[j].n++;
        }
        traza_cursor_free(c);
        if (k < 0) { rc = -1; break; }
        if (seen == 0)
            continue;
        int64_t cnt = seen;
        if (seen >= sample && (cnt = traza_count(t, &p, &r->err)) < 0) { rc = -1; break; }
        tz_buf_printf(b, "%s{\"x\":%lld,\"n\":%lld,\"cells\":[", firstcol ? "" : ",", (long long)x, (long long)cnt);
        firstcol = 0;
        for (size_t j = 0; j < nc; j++)
            tz_buf_printf(b, "%s[%d,%d,%d]", j ? "," : "", cells[j].producer, cells[j].type, cells[j].n);
        tz_buf_puts(b, "]}");
    }
    free(cells);
    return rc;
}

/* The first i >= lo of row p whose event starts at or after x, galloping from lo. */
static size_t row_first_ge(const tz_tindex *ix, const tz_prow *p, size_t lo, __int128 x)
{
    size_t hi = lo, step = 1;
    while (hi < p->n && p->ts[hi] < x) {
        lo = hi + 1;
        hi += step;
        step *= 2;
    }
    if (hi > p->n)
        hi = p->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->ts[mid] >= x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The run builder of one producer's row: the current run and its type votes. */
#define RUN_VOTES 16
typedef struct runs {
    tz_buf *b;
    int64_t x, len;
    int32_t vtype[RUN_VOTES];
    double vn[RUN_VOTES];
    int nv;
    int8_t slot[256]; /* type id < 256 -> its index in vtype, -1 when it has no vote yet */
    size_t total;   /* runs written over all rows */
    int open;       /* the producer's object is written */
} runs;

/* Clears the votes. */
static void run_clear(runs *u)
{
    for (int i = 0; i < u->nv; i++)
        if (u->vtype[i] >= 0 && u->vtype[i] < 256)
            u->slot[u->vtype[i]] = -1;
    u->nv = 0;
}

/* Adds weight n to type ty in the run's votes (a type beyond RUN_VOTES is not counted). */
static void run_vote(runs *u, int32_t ty, double n)
{
    int i = 0;
    if (ty >= 0 && ty < 256) {
        i = u->slot[ty] >= 0 ? u->slot[ty] : u->nv;
    } else {
        while (i < u->nv && u->vtype[i] != ty)
            i++;
    }
    if (i == u->nv) {
        if (u->nv == RUN_VOTES)
            return;
        if (ty >= 0 && ty < 256)
            u->slot[ty] = (int8_t)u->nv;
        u->vtype[u->nv] = ty;
        u->vn[u->nv++] = 0;
    }
    u->vn[i] += n;
}

static void run_flush(runs *u, int32_t producer, int *firstrow)
{
    if (!u->len)
        return;
    if (!u->open) {
        tz_buf_printf(u->b, "%s{\"producer\":%d,\"runs\":[", *firstrow ? "" : ",", producer);
        *firstrow = 0;
        u->open = 1;
    } else {
        tz_buf_putc(u->b, ',');
    }
    int best = 0;
    for (int i = 1; i < u->nv; i++)
        if (u->vn[i] > u->vn[best])
            best = i;
    tz_buf_printf(u->b, "[%lld,%lld,%d]", (long long)u->x, (long long)u->len, u->vtype[best]);
    u->total++;
    u->len = 0;
    run_clear(u);
}

/* Votes for the types of the events [k, k2) of row p: up to 8 of them spread evenly,
 * each weighing its share of the k2 - k events. */
static void row_votes(const tz_tindex *ix, const tz_prow *p, size_t k, size_t k2, runs *u)
{
    uint64_t d = k2 - k, m = d < 8 ? d : 8; /* d * i stays far below 2^64: d counts events */
    for (uint64_t i = 0; i < m; i++)
        run_vote(u, p->type[k + (size_t)(d * i / m)], (double)d / (double)m);
}

/* The column of t in [from, to]: the last c with bound[c] <= t (bound[0] <= t). */
static int64_t col_of(const __int128 *bound, int64_t width, int64_t t)
{
    int64_t lo = 0, hi = width - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (bound[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The "rows" of a summary (see the comment at the top). Column c is [A(c), A(c+1))
 * with A(c) = from + span * c / width, as in tz_req_slice_ranks; the column of a time
 * t in the window is the last c with A(c) <= t. The bounds are computed once for
 * every producer. -1 when out of memory. */
static int summary_rows(const tz_tindex *ix, tz_buf *b, int64_t from, int64_t to, int64_t width)
{
    __int128 span = (__int128)to - from + 1, w = width;
    __int128 *bound = malloc((size_t)(width + 1) * sizeof *bound);
    if (!bound)
        return -1;
    for (int64_t c = 0; c <= width; c++)
        bound[c] = (__int128)from + span * (__int128)c / w;
    runs u;
    memset(&u, 0, sizeof u);
    memset(u.slot, -1, sizeof u.slot);
    u.b = b;
    int firstrow = 1, truncated = 0;
    tz_buf_puts(b, ",\"rows\":[");
    for (size_t pi = 0; pi < ix->nrows && !truncated; pi++) {
        const tz_prow *p = &ix->rows[pi];
        if (!p->n)
            continue;
        u.open = 0;
        u.len = 0;
        run_clear(&u);
        int64_t c = 0;
        size_t k = row_first_ge(ix, p, 0, bound[0]);
        while (c < width) {
            __int128 a = bound[c];
            size_t k2 = row_first_ge(ix, p, k, bound[c + 1]);
            int64_t reach = k2 ? (p->reach ? p->reach[k2 - 1] : p->ts[k2 - 1]) : INT64_MIN;
            if (!k2 || reach < a) {
                /* nothing in column c: on to the column of the next start */
                if (k2 >= p->n || p->ts[k2] > to)
                    break;
                c = col_of(bound, width, p->ts[k2]);
                k = k2;
                continue;
            }
            int64_t last = c;
            if (!(u.len && u.x + u.len == c)) {
                run_flush(&u, (int32_t)pi, &firstrow);
                if (u.total >= TZ_TIMELINE_MAX_RUNS) {
                    truncated = 1;
                    break;
                }
                u.x = c;
            }
            if (k2 > k) {
                row_votes(ix, p, k, k2, &u);
            } else {
                /* covered by a state only: every column up to its end or the next start */
                run_vote(&u, p->bytype[k2 - 1], 1);
                last = reach > to ? width - 1 : col_of(bound, width, reach);
                if (k2 < p->n && p->ts[k2] <= to && col_of(bound, width, p->ts[k2]) - 1 < last)
                    last = col_of(bound, width, p->ts[k2]) - 1;
            }
            u.len = last + 1 - u.x;
            c = last + 1;
            k = k2;
        }
        if (!truncated)
            run_flush(&u, (int32_t)pi, &firstrow);
        if (u.open)
            tz_buf_puts(b, "]}");
    }
    free(bound);
    tz_buf_printf(b, "],\"rows_truncated\":%s", truncated ? "true" : "false");
    return 0;
}

int tz_api_timeline(tz_req *r)
{
    traza_trace *t = tz_req_trace(r);
    if (!t)
        return -1;
    tz_req_filter rf;
    if (tz_req_filter_parse(r, t, &rf) < 0)
        return -1;
    int64_t width, max, sample;
    if (tz_arg_clamp(r, "width", 1, TZ_API_MAX_WIDTH, 1000, &width) < 0 ||
        tz_arg_clamp(r, "max", 1, TZ_API_MAX_DETAIL, TZ_API_MAX_DETAIL, &max) < 0 ||
        tz_arg_clamp(r, "sample", 1, 64, 16, &sample) < 0) {
        tz_req_filter_free(&rf);
        return -1;
    }
    const traza_trace_info *info = traza_trace_info_of(t);
    traza_filter q = rf.f;
    int64_t from = q.has_from ? q.from : info->min_ts, to = q.has_to ? q.to : info->max_ts;
    if (to < from)
        to = from;
    q.has_from = q.has_to = 1;
    q.from = from;
    q.to = to;
    q.overlap = 0;
    q.with_params = q.nregexes > 0;
    int ranked = tz_filter_time_only(&q) && info->events > 0 && (tz_req_tindex_opt(r, t) || tz_store_has_ranks(t));
    int64_t n = info->events > 0 ? traza_count(t, &q, &r->err) : 0;
    if (n < 0) {
        tz_req_filter_free(&rf);
        return tz_fail_err(r, &r->err);
    }
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_puts(&b, "{\"from\":");
    tz_json_tick(r, &b, from);
    tz_buf_puts(&b, ",\"to\":");
    tz_json_tick(r, &b, to);
    tz_buf_printf(&b, ",\"width\":%lld,\"count\":%lld,", (long long)width, (long long)n);
    int rc = 0;
    if (n <= max) {
        /* intervals that started before the window come too: room for as many */
        q.overlap = 1;
        q.limit = 2 * max;
        traza_cursor *c = traza_query(t, &q, &r->err);
        if (!c) {
            rc = -1;
        } else {
            tz_buf_puts(&b, "\"mode\":\"detail\",\"fields\":[\"ts\",\"end\",\"type\",\"producer\",\"end_producer\",\"level\",\"value\",\"id\"],\"events\":[");
            const traza_event *ev;
            int64_t k = 0;
            while ((rc = traza_cursor_next(c, &ev, &r->err)) > 0)
                event_json(r, &b, ev, k++ == 0);
            traza_cursor_free(c);
            tz_buf_printf(&b, "],\"truncated\":%s}", k >= 2 * max ? "true" : "false");
        }
    } else {
        tz_buf_printf(&b, "\"mode\":\"summary\",\"sample\":%lld,\"columns\":[", (long long)sample);
        if (ranked)
            rc = summary_ranked(r, t, &b, from, to, width, sample);
        else
            rc = summary_by_queries(r, t, &b, &q, from, to, width, sample);
        tz_buf_puts(&b, "]");
        if (rc == 0 && tz_filter_time_only(&q) && info->events > 0) {
            int64_t now = tz_now_ns();
            const tz_tindex *ix = tz_req_tindex_within(r, t, now + (r->deadline - now) / 2);
            if (ix) /* out of memory for its bounds: no rows, as when the index is not ready */
                (void)summary_rows(ix, &b, from, to, width);
        }
        tz_buf_puts(&b, "}");
    }
    tz_req_filter_free(&rf);
    if (rc < 0) {
        tz_buf_free(&b);
        return tz_fail_err(r, &r->err);
    }
    return tz_send_json(r, &b);
}
