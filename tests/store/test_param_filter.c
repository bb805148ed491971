/* Parameter conditions: the two SQL forms (EXISTS per event of the window, or the
 * events from the (def, value) index) are chosen by counting the matches first
 * (sql_common.c). Both must give exactly the rows of a brute-force filter, on every
 * window; the sparse form must use the index. Runs on SQLite, and on PostgreSQL when
 * TRAZA_PG_URI is set. */
#include "sample_trace.h"

#include <sqlite3.h>

#include "store/sql_common.h"

/* ---- the choice of form, on a fake backend ---------------------------------- */

static int64_t fake_matches;
static int fake_calls;

static void fake_put(tz_buf *b, int slot, int64_t v)
{
    (void)slot;
    tz_buf_printf(b, "%lld", (long long)v);
}

static void fake_all_types(tz_buf *b, void *ctx)
{
    (void)b;
    (void)ctx;
}

static int fake_cond(tz_buf *b, const struct tz_bcond *c, int slot, void *ctx)
{
    (void)c;
    (void)ctx;
    tz_buf_printf(b, " AND p.value = ?%d", slot);
    return 0;
}

static int64_t fake_count(const char *sql, const struct tz_bcond *c, void *ctx)
{
    (void)c;
    (void)ctx;
    fake_calls++;
    /* the probe is bounded by a sixteenth of the window (here 1600 events) */
    assert_non_null(strstr(sql, "LIMIT 100)"));
    assert_non_null(strstr(sql, "p.def IN (4,9) AND p.value = ?1"));
    return fake_matches;
}

static const tz_where_style fake_style = {fake_put, fake_all_types, fake_cond, fake_count};

/* Appends the WHERE clause of one condition `value = 7` on defs to b. */
static void where_one(tz_buf *b, const int32_t *defs, size_t ndefs, int64_t lo, int64_t hi, const tz_where_style *s)
{
    struct tz_bcond c = {defs, ndefs, TRAZA_EQ, 1, 7.0, NULL, NULL, 0};
    traza_filter f;
    traza_filter_init(&f);
    tz_bfilter bf = {0};
    bf.f = &f;
    bf.conds = &c;
    bf.nconds = 1;
    assert_int_equal(tz_where_build(b, &bf, lo, hi, s, NULL), 0);
}

static char *where_for(int64_t lo, int64_t hi)
{
    static const int32_t defs[] = {4, 9};
    tz_buf b;
    tz_buf_init(&b);
    where_one(&b, defs, 2, lo, hi, &fake_style);
    return tz_buf_take(&b);
}

static void test_form_choice(void **state)
{
    (void)state;
    fake_calls = 0;
    fake_matches = 3; /* few matches: the index */
    char *w = where_for(1, 1600);
    assert_non_null(strstr(w, " AND id IN (SELECT p.event FROM param p WHERE p.event BETWEEN 1 AND 1600 AND p.def IN (4,9) AND p.value = ?4)"));
    assert_null(strstr(w, "EXISTS"));
    free(w);
    fake_matches = 100; /* as many as the bound: per event */
    w = where_for(1, 1600);
    assert_non_null(strstr(w, " AND EXISTS (SELECT 1 FROM param p WHERE p.event = event.id AND p.def IN (4,9) AND p.value = ?4)"));
    free(w);
    fake_matches = -1; /* a probe that fails: per event */
    w = where_for(1, 1600);
    assert_non_null(strstr(w, "EXISTS"));
    free(w);
    assert_int_equal(fake_calls, 3);
    w = where_for(1, 15); /* a window under 16 events is not probed */
    assert_non_null(strstr(w, "EXISTS"));
    free(w);
    assert_int_equal(fake_calls, 3);
}

/* ---- the same rows either way, on a real store ---------------------------------- */

#define N 2000 /* sample events: N irq, N run, 1 msg, 1 load */

/* Ids of the events matching f, in order. */
static size_t ids_of(traza_trace *t, const traza_filter *f, int64_t *ids, size_t cap, traza_err *err)
{
    traza_cursor *c = traza_query(t, f, err);
    assert_non_null(c);
    const traza_event *ev;
    size_t n = 0;
    int rc;
    while ((rc = traza_cursor_next(c, &ev, err)) == 1) {
        assert_true(n < cap);
        ids[n++] = ev->id;
    }
    assert_int_equal(rc, 0);
    traza_cursor_free(c);
    return n;
}

/* The irq events in [from, to] whose i (ts / 10) satisfies keep, by id. */
static size_t expected(traza_trace *t, int64_t from, int64_t to, int (*keep)(int64_t i), int64_t *ids, traza_err *err)
{
    traza_filter f;
    traza_filter_init(&f);
    int32_t irq = traza_trace_event_type_by_name(t, "irq")->id;
    f.types = &irq;
    f.ntypes = 1;
    f.has_from = f.has_to = 1;
    f.from = from;
    f.to = to;
    traza_cursor *c = traza_query(t, &f, err);
    assert_non_null(c);
    const traza_event *ev;
    size_t n = 0;
    while (traza_cursor_next(c, &ev, err) == 1)
        if (keep(ev->ts / 10))
            ids[n++] = ev->id;
    traza_cursor_free(c);
    return n;
}

static int addr_is_1234(int64_t i) { return 0x8000 + i == 0x8000 + 1234; }
static int vector_ge_1(int64_t i) { return i % 7 >= 1; }
static int vector_ne_3(int64_t i) { return i % 7 != 3; }
static int vector_lt_1(int64_t i) { return i % 7 < 1; }

static void check_cond(traza_trace *t, traza_err *err, const char *name, traza_cmp op, const char *value,
                       int (*keep)(int64_t i))
{
    static int64_t got[2 * N + 2], want[2 * N + 2];
    /* whole trace, a middle window, a window of a few events, a window of one tick */
    const int64_t win[][2] = {{0, 10 * N}, {5000, 15000}, {12300, 12390}, {12340, 12340}};
    for (size_t k = 0; k < sizeof win / sizeof win[0]; k++) {
        traza_param_cond pc = {name, op, value};
        traza_filter f;
        traza_filter_init(&f);
        f.conds = &pc;
        f.nconds = 1;
        f.has_from = f.has_to = 1;
        f.from = win[k][0];
        f.to = win[k][1];
        size_t n = ids_of(t, &f, got, 2 * N + 2, err);
        size_t m = expected(t, win[k][0], win[k][1], keep, want, err);
        if (n != m)
            fail_msg("%s: window [%lld, %lld]: %zu rows, expected %zu", name, (long long)win[k][0],
                     (long long)win[k][1], n, m);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(got[i], want[i]);
        assert_int_equal(traza_count(t, &f, err), (int64_t)m);
    }
}

static void test_same_rows(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    tu_sample_trace(&w, "s", N);
    traza_trace *t = traza_trace_open(w.ws, "s", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    check_cond(t, &w.err, "addr", TRAZA_EQ, "34002", addr_is_1234);  /* one match: from the index */
    check_cond(t, &w.err, "vector", TRAZA_GE, "1", vector_ge_1);      /* 6 in 7: per event */
    check_cond(t, &w.err, "vector", TRAZA_NE, "3", vector_ne_3);
    check_cond(t, &w.err, "vector", TRAZA_LT, "1", vector_lt_1);
    traza_trace_close(t);
    tu_ws_close(&w);
}

/* ---- the sparse form reads the index ------------------------------------------ */

static void sqlite_put(tz_buf *b, int slot, int64_t v)
{
    (void)v;
    tz_buf_printf(b, "?%d", slot);
}

static int64_t sqlite_sparse(const char *sql, const struct tz_bcond *c, void *ctx)
{
    (void)sql;
    (void)c;
    (void)ctx;
    return 0;
}

static const tz_where_style sqlite_style = {sqlite_put, fake_all_types, fake_cond, sqlite_sparse};

static void test_sparse_plan(void **state)
{
    (void)state;
    if (*tu_pg_base())
        skip();
    tu_ws w;
    tu_ws_open(&w);
    tu_sample_trace(&w, "s", N);
    char *glob = NULL;
    assert_true(asprintf(&glob, "%s/traces", w.dir) > 0);
    const char *db;
    FILE *ls;
    char cmd[512], line[512];
    snprintf(cmd, sizeof cmd, "ls %s/*.db", glob);
    assert_non_null(ls = popen(cmd, "r"));
    assert_non_null(fgets(line, sizeof line, ls));
    pclose(ls);
    line[strcspn(line, "\n")] = '\0';
    db = line;
    sqlite3 *h;
    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);

    static const int32_t defs[] = {2};
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_puts(&b, "EXPLAIN QUERY PLAN SELECT id FROM event");
    where_one(&b, defs, 1, 1, 4002, &sqlite_style);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(h, b.s, -1, &st, NULL), SQLITE_OK);
    int uses_index = 0;
    while (sqlite3_step(st) == SQLITE_ROW)
        if (strstr((const char *)sqlite3_column_text(st, 3), "INDEX param_value"))
            uses_index = 1;
    sqlite3_finalize(st);
    sqlite3_close(h);
    tz_buf_free(&b);
    free(glob);
    assert_true(uses_index);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_form_choice),
        cmocka_unit_test(test_same_rows),
        cmocka_unit_test(test_sparse_plan),
    };
    int rc = cmocka_run_group_tests_name("param_filter (sqlite)", tests, NULL, NULL);
    if (tu_pg_init())
        rc |= cmocka_run_group_tests_name("param_filter (postgresql)", tests, NULL, NULL);
    return rc;
}
