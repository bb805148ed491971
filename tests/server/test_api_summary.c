/* /api/timeline's summary rows: exact per producer and pixel column. A trace of
 * W * 100 ticks asked for at width W (column c = ticks [100c, 100c + 99]): "n0" has
 * one punctual event per column, drowned among 50 events a column of "bulk" (a
 * sample of 16 per column misses most of n0's); "s0" has one state over columns
 * 20..29 and a punctual event in column 40; "late" states of 2 ticks straddle
 * column boundaries. Every producer's runs must be exactly the columns holding one
 * of its starts or overlapped by one of its states. */
#include "testutil.h"
#include "server/server.h"

#include <jansson.h>

#define W 64
#define NPROD 4

typedef struct ev {
    int64_t ts, end;
    int prod, type;
} ev;

static json_t *timeline(tz_api *api, const char *query)
{
    tz_params ps;
    tz_params_init(&ps);
    assert_int_equal(tz_params_parse(&ps, query), 0);
    tz_resp r;
    tz_api_handle(api, "GET", "/api/timeline", &ps, &r);
    tz_params_free(&ps);
    assert_int_equal(r.status, 200);
    json_error_t je;
    json_t *j = json_loadb(r.body, r.len, 0, &je);
    assert_non_null(j);
    tz_resp_free(&r);
    return j;
}

static void test_summary_rows_exact(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_writer *wr = traza_writer_begin(w.ws, "sum", "test", &w.err);
    assert_non_null(wr);
    int32_t prod[NPROD];
    const char *names[NPROD] = {"n0", "bulk", "s0", "late"};
    for (int p = 0; p < NPROD; p++)
        prod[p] = traza_writer_producer(wr, -1, names[p], "Core", &w.err);
    int32_t tick = traza_writer_event_type(wr, "tick", TRAZA_PUNCTUAL, &w.err);
    int32_t busy = traza_writer_event_type(wr, "busy", TRAZA_PUNCTUAL, &w.err);
    int32_t run = traza_writer_event_type(wr, "run", TRAZA_STATE, &w.err);
    ev evs[W * 52 + 8];
    size_t n = 0;
    for (int c = 0; c < W; c++) {
        evs[n++] = (ev){c * 100 + 37, c * 100 + 37, 0, tick};
        for (int k = 0; k < 50; k++)
            evs[n++] = (ev){c * 100 + 2 * k, c * 100 + 2 * k, 1, busy};
    }
    evs[n++] = (ev){2000, 2999, 2, run};
    evs[n++] = (ev){4050, 4050, 2, tick};
    evs[n++] = (ev){5099, 5101, 3, run}; /* columns 50 and 51 */
    evs[n++] = (ev){5700, 5701, 3, run}; /* column 57 only */
    evs[n++] = (ev){6399, 6399, 3, tick}; /* the last tick of the window */
    for (size_t i = 0; i < n; i++) {
        traza_event e = {0};
        e.ts = evs[i].ts;
        e.type = evs[i].type;
        e.producer = prod[evs[i].prod];
        if (evs[i].type == run) {
            e.end_ts = evs[i].end;
            e.has = TRAZA_HAS_END | TRAZA_HAS_LEVEL;
        }
        assert_int_equal(traza_writer_event(wr, &e, &w.err), 0);
    }
    traza_trace_info info;
    assert_int_equal(traza_writer_commit(wr, &info, &w.err), 0);
    assert_int_equal(info.min_ts, 0);
    assert_int_equal(info.max_ts, W * 100 - 1);
    traza_trace_info_clear(&info);

    tz_api *api = tz_api_new(w.ws, NULL, 0, &w.err);
    assert_non_null(api);
    char q[128];
    snprintf(q, sizeof q, "trace=sum&width=%d&max=1&sample=16", W);
    json_t *j = timeline(api, q);
    assert_string_equal(json_string_value(json_object_get(j, "mode")), "summary");
    assert_true(json_is_false(json_object_get(j, "rows_truncated")));
    json_t *rows = json_object_get(j, "rows");
    assert_true(json_is_array(rows));

    /* the expected coverage, by brute force over the events */
    int want[NPROD][W], got[NPROD][W], typ[NPROD][W];
    memset(want, 0, sizeof want);
    memset(got, 0, sizeof got);
    for (size_t i = 0; i < n; i++)
        for (int64_t c = evs[i].ts / 100; c <= evs[i].end / 100; c++)
            want[evs[i].prod][c] = 1;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *row = json_array_get(rows, i);
        int32_t pid = (int32_t)json_integer_value(json_object_get(row, "producer"));
        int p = 0;
        while (p < NPROD && prod[p] != pid)
            p++;
        assert_true(p < NPROD);
        json_t *runs = json_object_get(row, "runs");
        assert_true(json_array_size(runs) > 0);
        for (size_t k = 0; k < json_array_size(runs); k++) {
            json_t *u = json_array_get(runs, k);
            json_int_t x = json_integer_value(json_array_get(u, 0)), len = json_integer_value(json_array_get(u, 1));
            assert_true(x >= 0 && len >= 1 && x + len <= W);
            for (json_int_t c = x; c < x + len; c++) {
                assert_int_equal(got[p][c], 0); /* runs do not overlap */
                got[p][c] = 1;
                typ[p][c] = (int)json_integer_value(json_array_get(u, 2));
            }
        }
    }
    for (int p = 0; p < NPROD; p++)
        for (int c = 0; c < W; c++) {
            if (got[p][c] != want[p][c])
                fail_msg("producer %s column %d: drawn %d, expected %d", names[p], c, got[p][c], want[p][c]);
        }
    /* n0: every column, in its own type; s0: the state over its whole extent */
    for (int c = 0; c < W; c++)
        assert_int_equal(typ[0][c], tick);
    for (int c = 20; c < 30; c++)
        assert_int_equal(typ[2][c], run);
    assert_int_equal(typ[2][40], tick);
    json_decref(j);

    /* a zoom on columns 25..34 of the first view at width 20: the state covers the
     * first half (it started before the window), nothing else of s0 */
    j = timeline(api, "trace=sum&width=20&max=1&from=2500&to=3499");
    rows = json_object_get(j, "rows");
    int s0_cols = 0;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *row = json_array_get(rows, i);
        if (json_integer_value(json_object_get(row, "producer")) != prod[2])
            continue;
        json_t *runs = json_object_get(row, "runs");
        assert_int_equal(json_array_size(runs), 1);
        assert_int_equal(json_integer_value(json_array_get(json_array_get(runs, 0), 0)), 0);
        s0_cols = (int)json_integer_value(json_array_get(json_array_get(runs, 0), 1));
    }
    assert_int_equal(s0_cols, 10);
    json_decref(j);
    tz_api_free(api);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_rows_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
