/* The public event writer (traza_event_text, traza/export.h) the front ends use for
 * `traza query` and /api/events: each piece reaches the sink in one call, a JSON
 * document's rows are separated by ',' from the second on, the times of
 * TRAZA_TEXT_JSON_TICKS are strings, and the sink's nonzero return stops the writer. */
#include "sample_trace.h"

#include <jansson.h>

#include "util/util.h"

typedef struct sink {
    tz_buf all;
    int calls;
    int refuse; /* returned from this call on (0: never) */
    char last[512];
} sink;

static int put(void *arg, const char *data, size_t len)
{
    sink *s = arg;
    s->calls++;
    if (s->refuse && s->calls >= s->refuse)
        return 7;
    tz_buf_put(&s->all, data, len);
    snprintf(s->last, sizeof s->last, "%.*s", (int)len, data);
    return 0;
}

/* Writes every event of t in fmt; the rows' count. */
static int write_all(traza_trace *t, traza_text_format fmt, sink *s)
{
    traza_event_text *w = traza_event_text_open(t, fmt, put, s);
    assert_non_null(w);
    assert_int_equal(traza_event_text_header(w), 0);
    traza_filter f;
    traza_filter_init(&f);
    f.with_params = 1;
    traza_err err;
    traza_err_clear(&err);
    traza_cursor *c = traza_query(t, &f, &err);
    assert_non_null(c);
    const traza_event *ev;
    int n = 0;
    while (traza_cursor_next(c, &ev, &err) > 0) {
        assert_int_equal(traza_event_text_row(w, ev), 0);
        n++;
        if (fmt == TRAZA_TEXT_JSON || fmt == TRAZA_TEXT_JSON_TICKS)
            assert_memory_equal(s->last, n == 1 ? "{\"id\":" : ",{\"id\":", n == 1 ? 6 : 7);
        else
            assert_int_equal(s->last[strlen(s->last) - 1], '\n');
    }
    traza_cursor_free(c);
    assert_int_equal(traza_event_text_footer(w), 0);
    traza_event_text_close(w);
    return n;
}

static void test_formats(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    tu_sample_trace(&w, "s", 4);
    traza_trace *t = traza_trace_open(w.ws, "s", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    int64_t events = traza_trace_info_of(t)->events;

    sink s = {0};
    tz_buf_init(&s.all);
    assert_int_equal(write_all(t, TRAZA_TEXT_JSON, &s), events);
    assert_int_equal(s.calls, events + 2); /* '[', one call per row, "]\n" */
    assert_string_equal(s.last, "]\n");
    json_error_t je;
    json_t *doc = json_loads(s.all.s, 0, &je);
    assert_non_null(doc);
    assert_int_equal(json_array_size(doc), events);
    json_t *first = json_array_get(doc, 0);
    assert_true(json_is_integer(json_object_get(first, "ts")));
    json_decref(doc);
    tz_buf_free(&s.all);

    sink k = {0};
    tz_buf_init(&k.all);
    write_all(t, TRAZA_TEXT_JSON_TICKS, &k);
    assert_non_null(strstr(k.all.s, "{\"id\":1,\"ts\":\"0\""));
    tz_buf_free(&k.all);

    sink c = {0};
    tz_buf_init(&c.all);
    assert_int_equal(write_all(t, TRAZA_TEXT_CSV, &c), events);
    assert_int_equal(c.calls, events + 1); /* the header line, the rows; no tail */
    const char *head = "id,ts,end_ts,type,category,producer,end_producer,level,value,cpu,params\n";
    assert_memory_equal(c.all.s, head, strlen(head));
    assert_non_null(strstr(c.all.s, ",irq,punctual,root/cpu0,,,,0,vector=0;who=timer;addr=0x8000\n"));
    tz_buf_free(&c.all);

    sink b = {0};
    tz_buf_init(&b.all);
    write_all(t, TRAZA_TEXT_TABLE, &b);
    assert_non_null(strstr(b.all.s, " cpu=1 vector=1 who=uart addr=0x8001\n"));
    tz_buf_free(&b.all);

    traza_trace_close(t);
    tu_ws_close(&w);
}

static void test_sink_stops(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    tu_sample_trace(&w, "s", 2);
    traza_trace *t = traza_trace_open(w.ws, "s", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    sink s = {.refuse = 2};
    tz_buf_init(&s.all);
    traza_event_text *wr = traza_event_text_open(t, TRAZA_TEXT_JSON, put, &s);
    assert_non_null(wr);
    assert_int_equal(traza_event_text_header(wr), 0);
    traza_filter f;
    traza_filter_init(&f);
    traza_cursor *c = traza_query(t, &f, &w.err);
    assert_non_null(c);
    const traza_event *ev;
    assert_int_equal(traza_cursor_next(c, &ev, &w.err), 1);
    assert_int_equal(traza_event_text_row(wr, ev), 7); /* the sink's own return */
    assert_string_equal(s.all.s, "[");
    traza_cursor_free(c);
    traza_event_text_close(wr);
    tz_buf_free(&s.all);
    traza_trace_close(t);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_sink_stops),
    };
    return cmocka_run_group_tests_name("event_text", tests, NULL, NULL);
}
