/* /api/timeline: what the Gantt view draws for a window.
 *
 * Detail mode: when the window holds at most `max` events, every event (intervals
 * overlapping the window included). Summary mode (level of detail): otherwise, one
 * column per pixel with the exact event count and the (producer, type) cells seen
 * among the first `sample` events of that pixel, so a request costs O(width) index
 * look-ups whatever the trace size; with the in-memory time index (tindex.c) the
 * sample is spread evenly over the pixel's events instead of being its first ones. */
#include "server/api_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct cell {
    int32_t producer, type;
    int32_t n;
} cell;

static void event_json(tz_buf *b, const traza_event *ev, int first)
{
    tz_buf_printf(b, "%s[%lld,%lld,%d,%d,%d,%d", first ? "" : ",", (long long)ev->ts,
                  (long long)((ev->has & TRAZA_HAS_END) ? ev->end_ts : ev->ts), ev->type, ev->producer,
                  (ev->has & TRAZA_HAS_END_PRODUCER) ? ev->end_producer : -1, (ev->has & TRAZA_HAS_LEVEL) ? ev->level : 0);
    if (ev->has & TRAZA_HAS_VALUE) {
        tz_buf_putc(b, ',');
        tz_json_num(b, ev->value);
    }
    tz_buf_putc(b, ']');
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
    const tz_tindex *ix = tz_filter_time_only(&q) && info->events > 0 ? tz_req_tindex(r, t) : NULL;
    int64_t n = ix ? (int64_t)(tz_tindex_first_gt(ix, to) - tz_tindex_first_ge(ix, from))
                   : info->events > 0 ? traza_count(t, &q, &r->err) : 0;
    if (n < 0) {
        tz_req_filter_free(&rf);
        return tz_fail_err(r, &r->err);
    }
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_printf(&b, "{\"from\":%lld,\"to\":%lld,\"width\":%lld,\"count\":%lld,", (long long)from, (long long)to,
                  (long long)width, (long long)n);
    int rc = 0;
    if (n <= max) {
        /* intervals that started before the window come too: room for as many */
        q.overlap = 1;
        q.limit = 2 * max;
        traza_cursor *c = traza_query(t, &q, &r->err);
        if (!c) {
            rc = -1;
        } else {
            tz_buf_puts(&b, "\"mode\":\"detail\",\"fields\":[\"ts\",\"end\",\"type\",\"producer\",\"end_producer\",\"level\",\"value\"],\"events\":[");
            const traza_event *ev;
            int64_t k = 0;
            while ((rc = traza_cursor_next(c, &ev, &r->err)) > 0)
                event_json(&b, ev, k++ == 0);
            traza_cursor_free(c);
            tz_buf_printf(&b, "],\"truncated\":%s}", k >= 2 * max ? "true" : "false");
        }
    } else {
        tz_buf_printf(&b, "\"mode\":\"summary\",\"sample\":%lld,\"columns\":[", (long long)sample);
        __int128 span = (__int128)to - from + 1;
        cell *cells = calloc((size_t)sample, sizeof *cells);
        if (!cells)
            rc = traza_err_set(&r->err, TRAZA_E_NOMEM, "out of memory");
        int firstcol = 1;
        for (int64_t x = 0; x < width && rc == 0; x++) {
            traza_filter p = q;
            p.from = from + (int64_t)(span * x / width);
            p.to = from + (int64_t)(span * (x + 1) / width) - 1;
            if (p.to < p.from)
                continue;
            if (ix) {
                /* from the time index: `sample` events evenly spread over the pixel */
                size_t a = tz_tindex_first_ge(ix, p.from), e = tz_tindex_first_gt(ix, p.to);
                if (e <= a)
                    continue;
                size_t cnt = e - a, take = cnt < (size_t)sample ? cnt : (size_t)sample, nc = 0;
                for (size_t k = 0; k < take; k++) {
                    size_t i = a + (size_t)((__int128)cnt * k / take);
                    size_t j = 0;
                    while (j < nc && (cells[j].producer != tz_tindex_prod(ix, i) || cells[j].type != tz_tindex_type(ix, i)))
                        j++;
                    if (j == nc) {
                        cells[nc].producer = tz_tindex_prod(ix, i);
                        cells[nc].type = tz_tindex_type(ix, i);
                        cells[nc].n = 0;
                        nc++;
                    }
                    cells[j].n++;
                }
                tz_buf_printf(&b, "%s{\"x\":%lld,\"n\":%zu,\"cells\":[", firstcol ? "" : ",", (long long)x, cnt);
                firstcol = 0;
                for (size_t j = 0; j < nc; j++)
                    tz_buf_printf(&b, "%s[%d,%d,%d]", j ? "," : "", cells[j].producer, cells[j].type, cells[j].n);
                tz_buf_puts(&b, "]}");
                continue;
            }
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
            tz_buf_printf(&b, "%s{\"x\":%lld,\"n\":%lld,\"cells\":[", firstcol ? "" : ",", (long long)x, (long long)cnt);
            firstcol = 0;
            for (size_t j = 0; j < nc; j++)
                tz_buf_printf(&b, "%s[%d,%d,%d]", j ? "," : "", cells[j].producer, cells[j].type, cells[j].n);
            tz_buf_puts(&b, "]}");
        }
        free(cells);
        tz_buf_puts(&b, "]}");
    }
    tz_req_filter_free(&rf);
    if (rc < 0) {
        tz_buf_free(&b);
        return tz_fail_err(r, &r->err);
    }
    return tz_send_json(r, &b);
}
