/* /api/events (one page of the event table) and /api/events.csv (the selection). */
#include "server/api_internal.h"

#include <stdio.h>
#include <string.h>

int tz_api_events(tz_req *r, int csv)
{
    traza_trace *t = tz_req_trace(r);
    if (!t)
        return -1;
    tz_req_filter rf;
    if (tz_req_filter_parse(r, t, &rf) < 0)
        return -1;
    int64_t offset, limit, desc, want_total;
    int64_t maxl = csv ? TZ_API_MAX_CSV : TZ_API_MAX_EVENTS;
    if (tz_arg_i64(r, "offset", 0, INT64_MAX / 2, 0, &offset) < 0 || tz_arg_clamp(r, "limit", 1, maxl, csv ? maxl : 100, &limit) < 0 ||
        tz_arg_i64(r, "desc", 0, 1, 0, &desc) < 0 || tz_arg_i64(r, "total", 0, 1, 1, &want_total) < 0) {
        tz_req_filter_free(&rf);
        return -1;
    }
    rf.f.offset = offset;
    rf.f.limit = limit;
    rf.f.order = desc ? TRAZA_ORDER_TIME_DESC : TRAZA_ORDER_TIME;
    rf.f.with_params = 1;
    int64_t total = -1, scanned = 0, scanned_to = 0;
    int empty = 0, total_exact = 1;
    const traza_trace_info *info = traza_trace_info_of(t);
    const tz_tindex *ix = tz_filter_time_only(&rf.f) && !desc && info->events > 0 ? tz_req_tindex_opt(r, t) : NULL;
    if (ix) {
        /* a deep offset becomes a time bound plus a short offset among equal times:
         * the store never steps over the skipped events */
        size_t a = rf.f.has_from ? tz_tindex_first_ge(ix, rf.f.from) : 0;
        size_t e = rf.f.has_to ? tz_tindex_first_gt(ix, rf.f.to) : ix->n;
        total = e > a ? (int64_t)(e - a) : 0;
        if (offset >= total) {
            empty = 1;
        } else if (offset > 0) {
            size_t pos = a + (size_t)offset;
            rf.f.has_from = 1;
            rf.f.from = ix->ts[pos];
            rf.f.offset = (int64_t)(pos - tz_tindex_first_ge(ix, ix->ts[pos]));
        }
    }
    /* A page of a regex filter answers within the budget: it gets three quarters of
     * what is left and, when cut, says so with the rows it found; the count gets the
     * rest (an estimate past it). A CSV download is the whole selection or an error. */
    int64_t now = tz_now_ns(), page_deadline = 0;
    traza_stop page_stop;
    if (!csv) {
        page_deadline = now + (r->deadline > now ? (r->deadline - now) / 4 * 3 : 0);
        tz_stop_at(&page_stop, &page_deadline);
        rf.f.stop = &page_stop;
    }
    traza_cursor *c = traza_query(t, &rf.f, &r->err);
    if (!c) {
        tz_req_filter_free(&rf);
        return tz_fail_err(r, &r->err);
    }
    tz_buf b;
    tz_buf_init(&b);
    traza_event_text *w =
        traza_event_text_open(t, csv ? TRAZA_TEXT_CSV : r->ticks_str ? TRAZA_TEXT_JSON_TICKS : TRAZA_TEXT_JSON, tz_buf_sink, &b);
    if (!w) {
        traza_cursor_free(c);
        tz_req_filter_free(&rf);
        return tz_fail(r, 500, "out of memory");
    }
    if (csv && traza_event_text_header(w) != 0)
        b.oom = 1;
    const traza_event *ev;
    int rc = 0;
    int64_t n = 0;
    while (!empty && (rc = traza_cursor_next(c, &ev, &r->err)) > 0) {
        if (traza_event_text_row(w, ev) != 0)
            b.oom = 1;
        if (!csv) {
            /* ids the client needs for colours and links */
            if (!b.oom && b.len) b.len--; /* reopen the object the row ends with */
            tz_buf_printf(&b, ",\"type_id\":%d,\"producer_id\":%d}", ev->type, ev->producer);
        }
        n++;
    }
    traza_event_text_close(w);
    traza_cursor_free(c);
    int page_cut = 0;
    if (rc < 0 && !csv && r->err.code == TRAZA_E_CANCELLED) {
        traza_err_clear(&r->err);
        page_cut = 1;
    }
    if (rc >= 0 || page_cut) {
        if (!csv && !ix && want_total) {
            traza_filter cf = rf.f;
            cf.offset = cf.limit = 0;
            if (tz_count_bounded(r, t, &cf, &total, &total_exact, &scanned, &scanned_to) < 0)
                rc = -1, page_cut = 0;
        }
    }
    tz_req_filter_free(&rf);
    if (rc < 0 && !page_cut) {
        tz_buf_free(&b);
        return tz_fail_err(r, &r->err);
    }
    if (csv) {
        if (b.oom) {
            tz_buf_free(&b);
            return tz_fail(r, 500, "out of memory");
        }
        size_t len = b.len;
        char *s = tz_buf_take(&b);
        if (!s)
            return tz_fail(r, 500, "out of memory");
        tz_resp_free(r->resp);
        r->resp->status = 200;
        r->resp->ctype = "text/csv; charset=utf-8";
        r->resp->body = s;
        r->resp->len = len;
        snprintf(r->resp->disposition, sizeof r->resp->disposition, "attachment; filename=\"events.csv\"");
        return 0;
    }
    tz_buf j;
    tz_buf_init(&j);
    tz_buf_printf(&j, "{\"total\":%lld,\"total_exact\":%s,", (long long)total, total_exact ? "true" : "false");
    if (!total_exact || page_cut)
        tz_buf_puts(&j, "\"partial\":true,");
    if (page_cut)
        tz_buf_puts(&j, "\"page_partial\":true,");
    if (!total_exact) {
        tz_buf_printf(&j, "\"scanned\":%lld,\"scanned_to\":", (long long)scanned);
        tz_json_tick(r, &j, scanned_to);
        tz_buf_putc(&j, ',');
    }
    tz_buf_printf(&j, "\"offset\":%lld,\"limit\":%lld,\"events\":[", (long long)offset, (long long)limit);
    if (b.oom)
        j.oom = 1;
    else
        tz_buf_put(&j, b.s, b.len);
    tz_buf_free(&b);
    tz_buf_printf(&j, "],\"count\":%lld,\"more\":%s}", (long long)n, page_cut || total > offset + n ? "true" : "false");
    return tz_send_json(r, &j);
}
