/* The SQL session API (traza/sql.h) and trace metadata (traza_workspace_set_meta):
 * statement splitting, rows through a sink, the caller's stop, read-only refusal, and
 * metadata changes made all at once or not at all. Runs on SQLite, and on PostgreSQL
 * when TRAZA_PG_URI is set. */
#include "sample_trace.h"

#include "traza/sql.h"

static void test_split(void **state)
{
    (void)state;
    const char *text = "  SELECT 'a;b' ; -- c;\n SELECT \"x;\"\"y\" /* ; */ FROM t;\n  SELECT 3 ";
    size_t start = 0;
    int complete;
    long n = traza_sql_next_statement(text, &start, &complete);
    assert_int_equal(complete, 1);
    assert_int_equal(start, 2);
    assert_int_equal(n, (long)strlen("SELECT 'a;b' "));
    start += (size_t)n + 1;
    n = traza_sql_next_statement(text, &start, &complete);
    assert_int_equal(complete, 1);
    assert_memory_equal(text + start, "SELECT \"x;\"\"y\" /* ; */ FROM t", (size_t)n);
    start += (size_t)n + 1;
    n = traza_sql_next_statement(text, &start, &complete);
    assert_int_equal(complete, 0);
    assert_memory_equal(text + start, "SELECT 3 ", (size_t)n);
    start += (size_t)n;
    assert_int_equal(traza_sql_next_statement(text, &start, &complete), -1);
    start = 0;
    assert_int_equal(traza_sql_next_statement(" -- only a comment\n /* and this */ ", &start, &complete), -1);
}

typedef struct rows {
    int64_t n, sum;
    int stop_after; /* the sink stops after this many rows; 0 = never */
    char first_col[32];
} rows;

static int on_cols(void *ctx, size_t n, const char *const *names)
{
    rows *r = ctx;
    assert_true(n >= 1);
    snprintf(r->first_col, sizeof r->first_col, "%s", names[0]);
    return 0;
}

static int on_row(void *ctx, size_t n, const char *const *v, const traza_sql_kind *k)
{
    rows *r = ctx;
    (void)n;
    assert_int_equal(k[0], TRAZA_SQL_INT);
    r->sum += strtoll(v[0], NULL, 10);
    r->n++;
    return r->stop_after && r->n >= r->stop_after;
}

static int stop_now(void *ctx, int stage)
{
    (void)stage;
    return ++*(int *)ctx > 2;
}

static void test_session(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    tu_sample_trace(&w, "s", 40);
    traza_trace *t = traza_trace_open(w.ws, "s", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    traza_sql *s = traza_sql_open(t, &w.err);
    assert_non_null(s);
    rows r = {0};
    traza_sql_sink sink = {on_cols, on_row, &r};
    /* the irq events carry vector = i % 7, i = 0..39 */
    assert_int_equal(traza_sql_exec(s, "SELECT vector AS v FROM ev_irq;", NULL, 0, &sink, &w.err), 0);
    assert_string_equal(r.first_col, "v");
    assert_int_equal(r.n, 40);
    int64_t want = 0;
    for (int i = 0; i < 40; i++)
        want += i % 7;
    assert_int_equal(r.sum, want);
    /* the sink stops */
    memset(&r, 0, sizeof r);
    r.stop_after = 3;
    assert_int_equal(traza_sql_exec(s, "SELECT id FROM events ORDER BY id", NULL, 0, &sink, &w.err), -1);
    assert_int_equal(w.err.code, TRAZA_E_CANCELLED);
    assert_int_equal(r.n, 3);
    /* the caller's stop (SQLite) or the timeout (PostgreSQL) */
    int calls = 0;
    traza_stop stop = {stop_now, &calls};
    memset(&r, 0, sizeof r);
    assert_int_equal(traza_sql_exec(s, "SELECT count(*) FROM events a, events b, events c, events d", &stop, 50, &sink, &w.err), -1);
    assert_int_equal(w.err.code, TRAZA_E_CANCELLED);
    assert_err_contains(w.err, "ran out of its time budget");
    /* read-only */
    assert_int_equal(traza_sql_exec(s, "UPDATE event SET ts = 0", NULL, 0, &sink, &w.err), -1);
    assert_int_equal(w.err.code, TRAZA_E_USAGE);
    assert_err_contains(w.err, "the SQL session is read-only");
    assert_int_equal(traza_sql_exec(s, "WITH x AS (SELECT 1) DELETE FROM event", NULL, 0, &sink, &w.err), -1);
    assert_err_contains(w.err, "the SQL session is read-only");
    memset(&r, 0, sizeof r);
    assert_int_equal(traza_sql_exec(s, "SELECT count(*) FROM events", NULL, 0, &sink, &w.err), 0);
    assert_int_equal(r.sum, traza_trace_info_of(t)->events);
    traza_sql_close(s);
    traza_trace_close(t);
    tu_ws_close(&w);
}

static const char *meta_of(traza_workspace *ws, const char *key, traza_err *err)
{
    static char buf[64];
    traza_trace_info info;
    assert_int_equal(traza_workspace_find(ws, "s", &info, err), 0);
    const char *v = NULL;
    if (strcmp(key, "alias") == 0)
        v = info.alias;
    for (size_t i = 0; i < info.nparams; i++)
        if (strcmp(info.params[i].key, key) == 0)
            v = info.params[i].value;
    snprintf(buf, sizeof buf, "%s", v ? v : "(none)");
    traza_trace_info_clear(&info);
    return buf;
}

static void test_meta(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    tu_sample_trace(&w, "s", 4);
    traza_kv set[] = {{"board", "stm32f4"}, {"alias", "first"}, {"os", "FreeRTOS"}};
    assert_int_equal(traza_workspace_set_meta(w.ws, "s", set, 3, &w.err), 0);
    assert_string_equal(meta_of(w.ws, "board", &w.err), "stm32f4");
    assert_string_equal(meta_of(w.ws, "alias", &w.err), "first");
    /* one bad key: nothing of the call is applied */
    traza_kv bad[] = {{"board", "nrf52"}, {"a b", "x"}};
    assert_int_equal(traza_workspace_set_meta(w.ws, "s", bad, 2, &w.err), -1);
    assert_int_equal(w.err.code, TRAZA_E_USAGE);
    assert_err_contains(w.err, "metadata key 'a b': character 2");
    assert_string_equal(meta_of(w.ws, "board", &w.err), "stm32f4");
    traza_kv unset[] = {{"alias", NULL}, {"os", NULL}, {"never", NULL}};
    assert_int_equal(traza_workspace_set_meta(w.ws, "s", unset, 3, &w.err), 0);
    assert_string_equal(meta_of(w.ws, "alias", &w.err), "(none)");
    assert_string_equal(meta_of(w.ws, "os", &w.err), "(none)");
    assert_int_equal(traza_workspace_set_meta(w.ws, "nosuch", set, 1, &w.err), -1);
    assert_int_equal(w.err.code, TRAZA_E_NOTFOUND);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_session),
        cmocka_unit_test(test_meta),
    };
    int rc = cmocka_run_group_tests_name("sql (sqlite)", tests, NULL, NULL);
    if (tu_pg_init())
        rc |= cmocka_run_group_tests_name("sql (postgresql)", tests, NULL, NULL);
    else
        print_message("SKIP: sql on PostgreSQL (TRAZA_PG_URI unset)\n");
    return rc;
}
