/* Ranks, events by rank and the overview (store.h), and offsets that become id
 * arithmetic, on the SQLite backend: checked against brute force on traces with
 * repeated timestamps, written in order and out of order. */
#include "testutil.h"

#include <sqlite3.h>

#define STEP 256 /* TZ_OVERVIEW_STEP */

/* n events; event i starts at ts(i) = (i / 3) * 10 (three per time), written in
 * order or reversed. type = i % 3, producer = i % 5. */
static int64_t ts_of(int64_t i) { return (i / 3) * 10; }

static void make_trace(tu_ws *w, const char *name, int64_t n, int reversed)
{
    traza_writer *wr = traza_writer_begin(w->ws, name, "test", &w->err);
    assert_non_null(wr);
    int32_t ty[3], pr[5];
    char s[16];
    for (int i = 0; i < 3; i++) {
        snprintf(s, sizeof s, "t%d", i);
        ty[i] = traza_writer_event_type(wr, s, TRAZA_PUNCTUAL, &w->err);
        assert_true(ty[i] >= 0);
    }
    for (int i = 0; i < 5; i++) {
        snprintf(s, sizeof s, "p%d", i);
        pr[i] = traza_writer_producer(wr, -1, s, "proc", &w->err);
        assert_true(pr[i] >= 0);
    }
    for (int64_t k = 0; k < n; k++) {
        /* reversed: the times descend; within one time the order is kept */
        int64_t i = reversed ? (n - 1 - k) / 3 * 3 + k % 3 : k;
        if (i >= n)
            i = k; /* n not a multiple of 3: the last group written in order */
        traza_event ev;
        memset(&ev, 0, sizeof ev);
        ev.ts = ts_of(i);
        ev.type = ty[i % 3];
        ev.producer = pr[i % 5];
        assert_int_equal(traza_writer_event(wr, &ev, &w->err), 0);
    }
    assert_int_equal(traza_writer_commit(wr, NULL, &w->err), 0);
}

/* Every event in time order from a plain query. */
static void all_events(traza_trace *t, int64_t n, int64_t *ts, int32_t *type, int32_t *prod, traza_err *err)
{
    traza_filter f;
    traza_filter_init(&f);
    traza_cursor *c = traza_query(t, &f, err);
    assert_non_null(c);
    const traza_event *ev;
    int64_t k = 0;
    while (traza_cursor_next(c, &ev, err) > 0) {
        assert_true(k < n);
        ts[k] = ev->ts;
        type[k] = ev->type;
        prod[k] = ev->producer;
        k++;
    }
    traza_cursor_free(c);
    assert_int_equal(k, n);
}

static void check_trace(tu_ws *w, const char *name, int64_t n)
{
    traza_trace *t = traza_trace_open(w->ws, name, TRAZA_OPEN_READ, &w->err);
    assert_non_null(t);
    int64_t *ts = malloc((size_t)n * sizeof *ts);
    int32_t *type = malloc((size_t)n * sizeof *type), *prod = malloc((size_t)n * sizeof *prod);
    assert_true(ts && type && prod);
    all_events(t, n, ts, type, prod, &w->err);
    /* ranks of times before, at, between and after the events */
    int64_t x[] = {INT64_MIN, -1, 0, 1, 9, 10, 11, ts[n / 2], ts[n / 2] + 1, ts[n - 1], ts[n - 1] + 1, INT64_MAX,
                   ts[STEP], ts[STEP] - 1, ts[STEP] + 1};
    size_t nx = sizeof x / sizeof *x;
    int64_t rank[sizeof x / sizeof *x];
    assert_int_equal(traza_ranks_of(t, x, nx, rank, &w->err), 0);
    for (size_t i = 0; i < nx; i++) {
        int64_t want = 0;
        while (want < n && ts[want] < x[i])
            want++;
        assert_int_equal(rank[i], want);
    }
    /* events by rank */
    int64_t rk[] = {0, 1, STEP - 1, STEP, n / 2, n - 1};
    int64_t rts[6];
    int32_t rty[6], rpr[6];
    assert_int_equal(traza_events_at(t, rk, 6, rts, rty, rpr, &w->err), 0);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(rts[i], ts[rk[i]]);
        assert_int_equal(rty[i], type[rk[i]]);
        assert_int_equal(rpr[i], prod[rk[i]]);
    }
    int64_t bad = n;
    assert_int_equal(traza_events_at(t, &bad, 1, rts, rty, rpr, &w->err), -1);
    assert_err_contains(w->err, "outside the trace's");
    /* the overview: every STEP-th event */
    traza_overview ov;
    assert_int_equal(traza_trace_overview(t, &ov, &w->err), 0);
    assert_int_equal(ov.step, STEP);
    assert_int_equal(ov.n, (size_t)((n - 1) / STEP + 1));
    for (size_t j = 0; j < ov.n; j++) {
        assert_int_equal(ov.ts[j], ts[j * STEP]);
        assert_int_equal(ov.type[j], type[j * STEP]);
        assert_int_equal(ov.producer[j], prod[j * STEP]);
    }
    /* offsets on a time window are id arithmetic: same rows as stepping */
    traza_filter f;
    traza_filter_init(&f);
    f.has_from = f.has_to = 1;
    f.from = 15;
    f.to = ts[n - 1] - 15;
    int64_t lo = 0;
    while (ts[lo] < f.from)
        lo++;
    int64_t hi = n - 1;
    while (ts[hi] > f.to)
        hi--;
    int64_t offs[] = {0, 1, 700, hi - lo, hi - lo + 1, hi - lo + 50};
    for (int desc = 0; desc < 2; desc++)
        for (size_t i = 0; i < sizeof offs / sizeof *offs; i++) {
            f.offset = offs[i];
            f.limit = 4;
            f.order = desc ? TRAZA_ORDER_TIME_DESC : TRAZA_ORDER_TIME;
            traza_cursor *c = traza_query(t, &f, &w->err);
            assert_non_null(c);
            const traza_event *ev;
            int64_t k = 0;
            while (traza_cursor_next(c, &ev, &w->err) > 0) {
                int64_t want = desc ? hi - offs[i] - k : lo + offs[i] + k;
                assert_true(want >= lo && want <= hi);
                assert_int_equal(ev->id, want + 1);
                assert_int_equal(ev->ts, ts[want]);
                k++;
            }
            traza_cursor_free(c);
            int64_t left = hi - lo + 1 - offs[i];
            assert_int_equal(k, left < 0 ? 0 : left < 4 ? left : 4);
        }
    free(ts);
    free(type);
    free(prod);
    traza_trace_close(t);
}

static void test_ranks_in_order_and_reversed(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    make_trace(&w, "ordered", 5000, 0);
    make_trace(&w, "reversed", 4001, 1);
    check_trace(&w, "ordered", 5000);
    check_trace(&w, "reversed", 4001);
    tu_ws_close(&w);
}

/* The only .db file under DIR/traces. */
static void trace_db(const char *dir, char *out, size_t cap)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "ls %s/traces/*.db", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    assert_non_null(fgets(out, (int)cap, p));
    out[strcspn(out, "\n")] = 0;
    pclose(p);
}

static void exec_sql(const char *db, const char *sql)
{
    sqlite3 *h;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
}

static void test_overview_stored_missing_or_damaged(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    make_trace(&w, "t", 3000, 0);
    char db[4096];
    trace_db(w.dir, db, sizeof db);
    /* written at import: version 1, step 256, 12 entries of 16 bytes */
    sqlite3 *h;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(h, "SELECT length(value), hex(substr(value, 1, 16)) FROM meta WHERE key='overview'", -1,
                                        &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 16 + 12 * 16);
    assert_string_equal((const char *)sqlite3_column_text(st, 1), "01000000000100000C00000000000000");
    sqlite3_finalize(st);
    sqlite3_close(h);
    check_trace(&w, "t", 3000);
    /* an older store without it, and a damaged one: rebuilt by look-ups, same answers */
    exec_sql(db, "DELETE FROM meta WHERE key='overview'");
    check_trace(&w, "t", 3000);
    exec_sql(db, "INSERT INTO meta VALUES('overview', x'0100000000020000ffff000000000000')");
    check_trace(&w, "t", 3000);
    tu_ws_close(&w);
}

static void test_empty_trace(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_writer *wr = traza_writer_begin(w.ws, "empty", "test", &w.err);
    assert_non_null(wr);
    assert_int_equal(traza_writer_commit(wr, NULL, &w.err), 0);
    traza_trace *t = traza_trace_open(w.ws, "empty", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    int64_t x = 5, r = -1;
    assert_int_equal(traza_ranks_of(t, &x, 1, &r, &w.err), 0);
    assert_int_equal(r, 0);
    traza_overview ov;
    assert_int_equal(traza_trace_overview(t, &ov, &w.err), 0);
    assert_int_equal(ov.n, 0);
    int64_t rk = 0, ts;
    int32_t ty, pr;
    assert_int_equal(traza_events_at(t, &rk, 1, &ts, &ty, &pr, &w.err), -1);
    traza_trace_close(t);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranks_in_order_and_reversed),
        cmocka_unit_test(test_overview_stored_missing_or_damaged),
        cmocka_unit_test(test_empty_trace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
