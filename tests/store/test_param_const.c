/* Parameters held once per event type (traza_writer_param_const): readers see them on
 * every event of the type, conditions on them are decided per type, and a condition
 * on a name some types hold once and others per event mixes both. Runs on SQLite,
 * and on PostgreSQL when TRAZA_PG_URI is set. */
#include "testutil.h"

#define NA 300 /* events of "fa": file = a.c, line = 7 held once, n per event */
#define NB 200 /* events of "fb": file = b.c, line = 20 held once */
#define NC 100 /* events of "fc": file per event, a.c and c.c in turn */

static void write_trace(tu_ws *w)
{
    traza_writer *wr = traza_writer_begin(w->ws, "k", "test", &w->err);
    assert_non_null(wr);
    int32_t p = traza_writer_producer(wr, -1, "cpu0", NULL, &w->err);
    int32_t ta = traza_writer_event_type(wr, "fa", TRAZA_PUNCTUAL, &w->err);
    int32_t tb = traza_writer_event_type(wr, "fb", TRAZA_PUNCTUAL, &w->err);
    int32_t tc = traza_writer_event_type(wr, "fc", TRAZA_PUNCTUAL, &w->err);
    /* per-event n is defined before the held-once ones and after file: the reader
     * gives them back in definition order */
    int32_t a_file = traza_writer_param_def(wr, ta, "file", TRAZA_PT_STRING, &w->err);
    int32_t a_n = traza_writer_param_def(wr, ta, "n", TRAZA_PT_INT, &w->err);
    int32_t a_line = traza_writer_param_def(wr, ta, "line", TRAZA_PT_INT, &w->err);
    int32_t b_file = traza_writer_param_def(wr, tb, "file", TRAZA_PT_STRING, &w->err);
    int32_t b_line = traza_writer_param_def(wr, tb, "line", TRAZA_PT_INT, &w->err);
    int32_t c_file = traza_writer_param_def(wr, tc, "file", TRAZA_PT_STRING, &w->err);
    assert_true(a_file >= 0 && a_n >= 0 && a_line >= 0 && b_file >= 0 && b_line >= 0 && c_file >= 0);
    traza_value fa = {TRAZA_PT_STRING, 0, 0, "a.c"}, la = {TRAZA_PT_INT, 7, 0, NULL};
    traza_value fb = {TRAZA_PT_STRING, 0, 0, "b.c"}, lb = {TRAZA_PT_INT, 20, 0, NULL};
    assert_int_equal(traza_writer_param_const(wr, a_file, &fa, &w->err), 0);
    assert_int_equal(traza_writer_param_const(wr, a_line, &la, &w->err), 0);
    assert_int_equal(traza_writer_param_const(wr, b_file, &fb, &w->err), 0);
    assert_int_equal(traza_writer_param_const(wr, b_line, &lb, &w->err), 0);
    /* refused: a second value, a value of another type, an event that carries one */
    assert_int_equal(traza_writer_param_const(wr, a_file, &fb, &w->err), -1);
    assert_string_equal(w->err.msg, "parameter definition 0 already has its one value");
    assert_int_equal(traza_writer_param_const(wr, c_file, &la, &w->err), -1);
    assert_string_equal(w->err.msg, "parameter definition 5 is of type string, its value of type int");
    traza_param bad = {a_file, fb};
    traza_event ev = {0};
    ev.type = ta;
    ev.producer = p;
    ev.params = &bad;
    ev.nparams = 1;
    assert_int_equal(traza_writer_event(wr, &ev, &w->err), -1);
    assert_non_null(strstr(w->err.msg, "has one value for its whole type"));
    /* the events, interleaved in time: i % 6 = 0-2 fa, 3-4 fb, 5 fc */
    for (int i = 0; i < NA + NB + NC; i++) {
        memset(&ev, 0, sizeof ev);
        ev.ts = i;
        ev.producer = p;
        traza_param ps[1];
        if (i % 6 == 5) {
            ev.type = tc;
            ps[0] = (traza_param){c_file, {TRAZA_PT_STRING, 0, 0, (i / 6) % 2 ? "c.c" : "a.c"}};
            ev.params = ps;
            ev.nparams = 1;
        } else if (i % 6 < 3) {
            ev.type = ta;
            ps[0] = (traza_param){a_n, {TRAZA_PT_INT, i, 0, NULL}};
            ev.params = ps;
            ev.nparams = 1;
        } else {
            ev.type = tb;
        }
        assert_int_equal(traza_writer_event(wr, &ev, &w->err), 0);
    }
    assert_int_equal(traza_writer_commit(wr, NULL, &w->err), 0);
}

/* Events matching one condition (and, with rx, one regex): counted by traza_count,
 * and by reading them, each checked against want(type, file). */
static int64_t matching(traza_trace *t, traza_err *err, const char *name, traza_cmp op, const char *value, const char *rx)
{
    traza_param_cond pc = {name, op, value};
    traza_filter f;
    traza_filter_init(&f);
    if (name) {
        f.conds = &pc;
        f.nconds = 1;
    }
    traza_regex_cond rxc = {"file", rx, 0}; /* rx: a pattern over the file parameter */
    if (rx) {
        f.regexes = &rxc;
        f.nregexes = 1;
    }
    int64_t n = traza_count(t, &f, err);
    traza_cursor *c = traza_query(t, &f, err);
    assert_non_null(c);
    const traza_event *ev;
    int64_t k = 0;
    int rc;
    while ((rc = traza_cursor_next(c, &ev, err)) == 1)
        k++;
    assert_int_equal(rc, 0);
    traza_cursor_free(c);
    assert_int_equal(k, n);
    return n;
}

static int64_t sql_count(traza_sql *s, const char *stmt, traza_err *err);

static void test_held_once(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    write_trace(&w);
    traza_trace *t = traza_trace_open(w.ws, "k", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    const traza_value *v = traza_trace_param_const(t, 0);
    assert_non_null(v);
    assert_int_equal(v->kind, TRAZA_PT_STRING);
    assert_string_equal(v->s, "a.c");
    assert_null(traza_trace_param_const(t, 1)); /* n: per event */
    assert_null(traza_trace_param_const(t, 5));

    /* every event of fa reads file, n, line in definition order */
    traza_filter f;
    traza_filter_init(&f);
    f.with_params = 1;
    traza_cursor *c = traza_query(t, &f, &w.err);
    assert_non_null(c);
    const traza_event *ev;
    int64_t na = 0, nb = 0, nc = 0;
    while (traza_cursor_next(c, &ev, &w.err) == 1) {
        const char *ty = traza_trace_event_type(t, ev->type)->name;
        if (strcmp(ty, "fa") == 0) {
            assert_int_equal(ev->nparams, 3);
            assert_int_equal(ev->params[0].def, 0);
            assert_string_equal(ev->params[0].v.s, "a.c");
            assert_int_equal(ev->params[1].def, 1);
            assert_int_equal(ev->params[1].v.i, ev->ts);
            assert_int_equal(ev->params[2].def, 2);
            assert_int_equal(ev->params[2].v.i, 7);
            na++;
        } else if (strcmp(ty, "fb") == 0) {
            assert_int_equal(ev->nparams, 2);
            assert_string_equal(ev->params[0].v.s, "b.c");
            assert_int_equal(ev->params[1].v.i, 20);
            nb++;
        } else {
            assert_int_equal(ev->nparams, 1);
            nc++;
        }
    }
    traza_cursor_free(c);
    assert_int_equal(na, NA);
    assert_int_equal(nb, NB);
    assert_int_equal(nc, NC);

    /* conditions: only held-once definitions (a type list), mixed, per event only */
    assert_int_equal(matching(t, &w.err, "line", TRAZA_GT, "0", NULL), NA + NB);
    assert_int_equal(matching(t, &w.err, "line", TRAZA_EQ, "20", NULL), NB);
    assert_int_equal(matching(t, &w.err, "line", TRAZA_LT, "7", NULL), 0);
    assert_int_equal(matching(t, &w.err, "line", TRAZA_GE, "7", NULL), NA + NB);
    assert_int_equal(matching(t, &w.err, "file", TRAZA_EQ, "a.c", NULL), NA + NC / 2);
    assert_int_equal(matching(t, &w.err, "file", TRAZA_NE, "a.c", NULL), NB + NC / 2);
    assert_int_equal(matching(t, &w.err, "file", TRAZA_GT, "a.c", NULL), NB + NC / 2);
    assert_int_equal(matching(t, &w.err, "file", TRAZA_EQ, "c.c", NULL), NC / 2);
    assert_int_equal(matching(t, &w.err, "n", TRAZA_LT, "10", NULL), 6); /* 0 1 2 6 7 8 */
    /* regexes see them too */
    assert_int_equal(matching(t, &w.err, NULL, 0, NULL, "^a"), NA + NC / 2);
    assert_int_equal(matching(t, &w.err, "line", TRAZA_EQ, "7", "^a"), NA);

    /* the SQL views */
    traza_sql *s = traza_sql_open(t, &w.err);
    if (!s)
        fail_msg("%s", w.err.msg);
    assert_int_equal(sql_count(s, "SELECT count(*) FROM params WHERE name = 'file'", &w.err), NA + NB + NC);
    assert_int_equal(sql_count(s, "SELECT count(*) FROM params WHERE name = 'line' AND num = 20", &w.err), NB);
    assert_int_equal(sql_count(s, "SELECT count(*) FROM ev_fa WHERE file = 'a.c' AND line = 7", &w.err), NA);
    assert_int_equal(sql_count(s, "SELECT count(*) FROM ev_fc WHERE file = 'c.c'", &w.err), NC / 2);
    traza_sql_close(s);
    traza_trace_close(t);
    tu_ws_close(&w);
}

static int first_cell(void *ctx, size_t n, const char *const *values, const traza_sql_kind *kinds)
{
    (void)kinds;
    if (n)
        *(int64_t *)ctx = strtoll(values[0], NULL, 10);
    return 0;
}

static int64_t sql_count(traza_sql *s, const char *stmt, traza_err *err)
{
    int64_t n = -1;
    traza_sql_sink sink = {0};
    sink.ctx = &n;
    sink.row = first_cell;
    if (traza_sql_exec(s, stmt, NULL, 0, &sink, err) < 0)
        fail_msg("%s: %s", stmt, err->msg);
    return n;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_held_once),
    };
    int rc = cmocka_run_group_tests_name("param_const (sqlite)", tests, NULL, NULL);
    if (tu_pg_init())
        rc |= cmocka_run_group_tests_name("param_const (postgresql)", tests, NULL, NULL);
    return rc;
}
