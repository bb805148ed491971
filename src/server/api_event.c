/* /api/event: every field and parameter of one event (the details panel). */
#include "server/api_internal.h"
#include "traza/result.h"

#include <stdlib.h>
#include <string.h>

/* Event ids are given at commit in time order from 1: event `id` has rank id - 1.
 * The store's rank look-up finds its start time, and the events starting then hold
 * it; a store without rank look-ups steps to that rank. 1 with *out set (valid until
 * the cursor is freed), 0 when no event has that id, -1 on error. */
static int find_event(tz_req *r, traza_trace *t, int64_t id, traza_cursor **cur, const traza_event **out)
{
    int64_t rank = id - 1, ts;
    int32_t type, prod;
    traza_filter f;
    traza_filter_init(&f);
    f.with_params = 1;
    if (traza_events_at(t, &rank, 1, &ts, &type, &prod, &r->err) == 0) {
        f.has_from = f.has_to = 1;
        f.from = f.to = ts;
    } else if (r->err.code == TRAZA_E_UNSUPPORTED) {
        traza_err_clear(&r->err);
        f.offset = rank;
        f.limit = 1;
    } else {
        return -1;
    }
    traza_cursor *c = traza_query(t, &f, &r->err);
    if (!c)
        return -1;
    const traza_event *ev;
    int rc;
    while ((rc = traza_cursor_next(c, &ev, &r->err)) > 0)
        if (ev->id == id)
            break;
    if (rc <= 0) {
        traza_cursor_free(c);
        return rc;
    }
    *cur = c;
    *out = ev;
    return 1;
}

/* The event sets that hold the event: [{"id", "name"}]. */
static int put_results(tz_req *r, traza_trace *t, tz_buf *b, int64_t id)
{
    int64_t *sets = NULL;
    size_t nsets = 0;
    if (traza_result_sets_of_event(t, id, &sets, &nsets, &r->err) < 0)
        return -1;
    traza_result_info *all = NULL;
    size_t nall = 0;
    if (nsets && traza_result_list(t, &all, &nall, &r->err) < 0) {
        free(sets);
        return -1;
    }
    tz_buf_puts(b, ",\"results\":[");
    for (size_t i = 0; i < nsets; i++) {
        tz_buf_printf(b, "%s{\"id\":%lld,\"name\":", i ? "," : "", (long long)sets[i]);
        const char *name = "";
        for (size_t k = 0; k < nall; k++)
            if (all[k].id == sets[i])
                name = all[k].name;
        tz_json_str(b, name);
        tz_buf_putc(b, '}');
    }
    tz_buf_putc(b, ']');
    traza_result_info_array_free(all, nall);
    free(sets);
    return 0;
}

int tz_api_event(tz_req *r)
{
    traza_trace *t = tz_req_trace(r);
    if (!t)
        return -1;
    const char *s = tz_arg_str(r, "id");
    if (!s)
        return tz_fail(r, 400, "missing parameter 'id'");
    int64_t id;
    if (tz_arg_i64(r, "id", 1, INT64_MAX, 0, &id) < 0)
        return -1;
    const traza_trace_info *info = traza_trace_info_of(t);
    traza_cursor *c = NULL;
    const traza_event *ev = NULL;
    int k = id <= info->events ? find_event(r, t, id, &c, &ev) : 0;
    if (k < 0)
        return tz_fail_err(r, &r->err);
    if (k == 0)
        return tz_fail(r, 404, "trace '%s' has no event %lld (ids are 1..%lld)", info->name, (long long)id,
                       (long long)info->events);
    tz_buf b;
    tz_buf_init(&b);
    /* the fields as /api/events and 'traza query --json' write them */
    traza_event_text *w = traza_event_text_open(t, r->ticks_str ? TRAZA_TEXT_JSON_TICKS : TRAZA_TEXT_JSON, tz_buf_sink, &b);
    if (!w || traza_event_text_row(w, ev) != 0)
        b.oom = 1;
    traza_event_text_close(w);
    if (!b.oom && b.len)
        b.len--; /* reopen the object */
    const traza_producer *p = traza_trace_producer(t, ev->producer);
    tz_buf_printf(&b, ",\"type_id\":%d,\"producer_id\":%d,\"producer_name\":", ev->type, ev->producer);
    tz_json_str(&b, p ? p->name : "");
    if (ev->has & TRAZA_HAS_END_PRODUCER)
        tz_buf_printf(&b, ",\"end_producer_id\":%d", ev->end_producer);
    tz_buf_puts(&b, ",\"rel_ts\":");
    tz_json_tick(r, &b, ev->ts - info->min_ts);
    if (ev->has & TRAZA_HAS_END) {
        tz_buf_puts(&b, ",\"rel_end_ts\":");
        tz_json_tick(r, &b, ev->end_ts - info->min_ts);
        tz_buf_puts(&b, ",\"duration\":");
        tz_json_tick(r, &b, ev->end_ts - ev->ts);
    }
    tz_buf_printf(&b, ",\"time_unit\":%d", info->time_unit);
    int64_t evid = ev->id;
    traza_cursor_free(c);
    if (put_results(r, t, &b, evid) < 0) {
        tz_buf_free(&b);
        return tz_fail_err(r, &r->err);
    }
    tz_buf_putc(&b, '}');
    return tz_send_json(r, &b);
}
