/* The store conformance tests of test_store.c on the PostgreSQL backend, plus what is
 * specific to it: catalogue and atomic imports (aborted, failed, killed), and the same
 * events and filter results as SQLite on a generated trace. Needs TRAZA_PG_URI (set
 * by tests/run.sh, which starts a throwaway server); skips visibly without it. */
#define TU_NO_MAIN
#include "test_store.c"

#include <signal.h>
#include <sys/wait.h>

#include "traza/gen.h"

/* Number of trace schemas (t_<hex>) in the workspace's database. */
static int count_schemas(const tu_ws *w)
{
#ifndef TU_HAVE_LIBPQ
    fail_msg("built without libpq: %s", w->pg_uri); /* never run: tu_pg_init is 0 then */
    return -1;
#else
    PGconn *c = PQconnectdb(w->pg_uri);
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    PGresult *r = PQexec(c, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 't\\_%'");
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    int n = atoi(PQgetvalue(r, 0, 0));
    PQclear(r);
    PQfinish(c);
    return n;
#endif
}

static size_t count_traces(tu_ws *w)
{
    traza_trace_info *all;
    size_t n;
    assert_int_equal(traza_workspace_list(w->ws, &all, &n, &w->err), 0);
    traza_trace_info_array_free(all, n);
    return n;
}

static void test_pg_catalogue_and_abort(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    assert_string_equal(traza_workspace_backend(w.ws), "postgresql");
    tu_sample_trace(&w, "a", 3);
    tu_sample_trace(&w, "b", 3);
    assert_int_equal(count_schemas(&w), 2);
    /* an aborted import leaves nothing */
    traza_writer *wr = traza_writer_begin(w.ws, "c", "test", &w.err);
    assert_non_null(wr);
    traza_writer_abort(wr);
    assert_int_equal(count_schemas(&w), 2);
    assert_null(traza_writer_begin(w.ws, "a", "test", &w.err));
    assert_err_contains(w.err, "already exists");
    assert_int_equal(count_traces(&w), 2);
    assert_int_equal(traza_workspace_rename(w.ws, "a", "b", &w.err), -1);
    assert_int_equal(traza_workspace_rename(w.ws, "a", "a2", &w.err), 0);
    assert_int_equal(traza_workspace_remove(w.ws, "a2", &w.err), 0);
    assert_int_equal(traza_workspace_remove(w.ws, "a2", &w.err), -1);
    assert_err_contains(w.err, "no trace named 'a2'");
    assert_int_equal(count_schemas(&w), 1);
    /* a second handle on the same database sees the same catalogue */
    traza_workspace *ws2 = traza_workspace_open(w.ctx, w.pg_uri, &w.err);
    assert_non_null(ws2);
    traza_trace_info info;
    assert_int_equal(traza_workspace_find(ws2, "b", &info, &w.err), 0);
    assert_int_equal(info.events, 3 * 2 + 2);
    traza_trace_info_clear(&info);
    traza_workspace_close(ws2);
    tu_ws_close(&w);
}

/* Two imports of the same name race: the second one fails at publish time and
 * leaves neither a catalogue row nor a schema. */
static void test_pg_publish_conflict(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_writer *w1 = traza_writer_begin(w.ws, "same", "test", &w.err);
    traza_writer *w2 = traza_writer_begin(w.ws, "same", "test", &w.err);
    assert_non_null(w1);
    assert_non_null(w2);
    traza_writer *ws[2] = {w1, w2};
    for (int k = 0; k < 2; k++) {
        int32_t p = traza_writer_producer(ws[k], -1, "p", NULL, &w.err);
        int32_t ty = traza_writer_event_type(ws[k], "e", TRAZA_PUNCTUAL, &w.err);
        for (int i = 0; i < 10; i++) {
            traza_event ev = {0};
            ev.ts = i;
            ev.type = ty;
            ev.producer = p;
            assert_int_equal(traza_writer_event(ws[k], &ev, &w.err), 0);
        }
    }
    assert_int_equal(traza_writer_commit(w1, NULL, &w.err), 0);
    assert_int_equal(traza_writer_commit(w2, NULL, &w.err), -1);
    assert_int_equal(w.err.code, TRAZA_E_EXISTS);
    assert_err_contains(w.err, "a trace named 'same' already exists");
    assert_int_equal(count_traces(&w), 1);
    assert_int_equal(count_schemas(&w), 1);
    tu_ws_close(&w);
}

/* A process killed in the middle of an import (rows already sent to the server)
 * leaves the catalogue and the other traces as they were. */
static void test_pg_killed_import(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    tu_sample_trace(&w, "kept", 20);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        traza_err err;
        traza_ctx *ctx = traza_ctx_new(&err);
        traza_workspace *ws = ctx ? traza_workspace_open(ctx, w.pg_uri, &err) : NULL;
        traza_writer *wr = ws ? traza_writer_begin(ws, "doomed", "test", &err) : NULL;
        if (!wr)
            _exit(3);
        int32_t p = traza_writer_producer(wr, -1, "p", NULL, &err);
        int32_t ty = traza_writer_event_type(wr, "e", TRAZA_PUNCTUAL, &err);
        int32_t d = traza_writer_param_def(wr, ty, "s", TRAZA_PT_STRING, &err);
        /* enough rows for several COPY batches to reach the server */
        for (int i = 0; i < 200000; i++) {
            traza_param ps[1] = {{d, {TRAZA_PT_STRING, 0, 0, "some text to fill the buffers"}}};
            traza_event ev = {0};
            ev.ts = i;
            ev.type = ty;
            ev.producer = p;
            ev.params = ps;
            ev.nparams = 1;
            if (traza_writer_event(wr, &ev, &err) < 0)
                _exit(4);
        }
        raise(SIGKILL);
        _exit(5);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);
    /* the server notices the dropped connection and rolls the import back */
    int schemas = -1;
    for (int tries = 0; tries < 100 && (schemas = count_schemas(&w)) != 1; tries++)
        usleep(100000);
    assert_int_equal(schemas, 1);
    assert_int_equal(count_traces(&w), 1);
    traza_trace *t = traza_trace_open(w.ws, "kept", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    traza_filter f;
    traza_filter_init(&f);
    assert_int_equal(traza_count(t, &f, &w.err), 20 * 2 + 2);
    traza_trace_close(t);
    tu_ws_close(&w);
}

/* Compares every field and parameter of two cursors. */
static void same_events(traza_trace *a, traza_trace *b, const traza_filter *f, traza_err *err)
{
    traza_cursor *ca = traza_query(a, f, err), *cb = traza_query(b, f, err);
    assert_non_null(ca);
    assert_non_null(cb);
    const traza_event *x, *y;
    int64_t n = 0;
    for (;;) {
        int ra = traza_cursor_next(ca, &x, err), rb = traza_cursor_next(cb, &y, err);
        assert_int_equal(ra, rb);
        if (ra <= 0)
            break;
        n++;
        assert_int_equal(x->id, y->id);
        assert_int_equal(x->ts, y->ts);
        assert_int_equal(x->type, y->type);
        assert_int_equal(x->producer, y->producer);
        assert_int_equal(x->has, y->has);
        assert_int_equal(x->end_ts, y->end_ts);
        assert_int_equal(x->end_producer, y->end_producer);
        assert_int_equal(x->level, y->level);
        assert_int_equal(x->cpu, y->cpu);
        assert_true(x->value == y->value);
        assert_int_equal(x->nparams, y->nparams);
        for (uint32_t i = 0; i < x->nparams; i++) {
            assert_int_equal(x->params[i].def, y->params[i].def);
            assert_int_equal(x->params[i].v.kind, y->params[i].v.kind);
            switch (x->params[i].v.kind) {
            case TRAZA_PT_STRING: assert_string_equal(x->params[i].v.s, y->params[i].v.s); break;
            case TRAZA_PT_DOUBLE: assert_true(x->params[i].v.d == y->params[i].v.d); break;
            default: assert_int_equal(x->params[i].v.i, y->params[i].v.i);
            }
        }
    }
    traza_cursor_free(ca);
    traza_cursor_free(cb);
    assert_int_equal(traza_count(a, f, err), traza_count(b, f, err));
    if (!f->limit && !f->offset)
        assert_int_equal(traza_count(b, f, err), n);
}

/* traza_scan (the backends' s_open/s_next: binary cursor fetches on PostgreSQL)
 * returns the same rows on both backends. */
static void same_scan(traza_trace *a, traza_trace *b, const traza_filter *f, traza_err *err)
{
    traza_scan *sa = traza_scan_open(a, f, err), *sb = traza_scan_open(b, f, err);
    assert_non_null(sa);
    assert_non_null(sb);
    traza_scan_batch x, y;
    size_t i = 0, j = 0, total = 0;
    int ra = 1, rb = 1;
    x.n = y.n = 0;
    for (;;) {
        if (i == x.n && ra == 1) {
            ra = traza_scan_next(sa, &x, err);
            i = 0;
            assert_true(ra >= 0);
        }
        if (j == y.n && rb == 1) {
            rb = traza_scan_next(sb, &y, err);
            j = 0;
            assert_true(rb >= 0);
        }
        if (ra == 0 || rb == 0) {
            assert_int_equal(ra == 0 || i == x.n, rb == 0 || j == y.n); /* both at the end */
            break;
        }
        assert_int_equal(x.id[i], y.id[j]);
        assert_int_equal(x.ts[i], y.ts[j]);
        assert_int_equal(x.end_ts[i], y.end_ts[j]);
        assert_int_equal(x.type[i], y.type[j]);
        assert_int_equal(x.producer[i], y.producer[j]);
        i++, j++, total++;
    }
    assert_true(total > 0);
    traza_scan_free(sa);
    traza_scan_free(sb);
}

static void test_pg_same_as_sqlite(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    char *sdir = tu_tmpdir();
    traza_workspace *sq = traza_workspace_open(w.ctx, sdir, &w.err);
    assert_non_null(sq);
    traza_gen_opts o;
    traza_gen_opts_init(&o);
    o.events = 6000; /* several fetch batches */
    o.params = 4;
    assert_int_equal(traza_gen_store(w.ws, "g", &o, NULL, &w.err), 0);
    assert_int_equal(traza_gen_store(sq, "g", &o, NULL, &w.err), 0);
    traza_trace *a = traza_trace_open(sq, "g", TRAZA_OPEN_READ, &w.err);
    traza_trace *b = traza_trace_open(w.ws, "g", TRAZA_OPEN_READ, &w.err);
    assert_non_null(a);
    assert_non_null(b);
    traza_filter f;
    traza_filter_init(&f);
    same_scan(a, b, &f, &w.err);
    f.with_params = 1;
    same_events(a, b, &f, &w.err);
    /* a window, descending, paged */
    f.has_from = f.has_to = 1;
    f.from = 100000;
    f.to = 300000;
    f.order = TRAZA_ORDER_TIME_DESC;
    f.offset = 7;
    f.limit = 500;
    same_events(a, b, &f, &w.err);
    f.offset = f.limit = 0;
    f.order = TRAZA_ORDER_TIME;
    f.overlap = 1;
    same_events(a, b, &f, &w.err);
    same_scan(a, b, &f, &w.err);
    f.order = TRAZA_ORDER_TIME_DESC;
    f.limit = 3000;
    same_scan(a, b, &f, &w.err);
    f.order = TRAZA_ORDER_TIME;
    f.limit = 0;
    /* type, producer and parameter conditions */
    traza_filter g;
    traza_filter_init(&g);
    int32_t ty = 2, pr[2] = {5, 9};
    g.types = &ty;
    g.ntypes = 1;
    same_events(a, b, &g, &w.err);
    g.types = NULL;
    g.ntypes = 0;
    g.producers = pr;
    g.nproducers = 2;
    same_events(a, b, &g, &w.err);
    g.producers = NULL;
    g.nproducers = 0;
    const traza_param_cond conds[] = {
        {"p0", TRAZA_GT, "500000"}, {"p1", TRAZA_LE, "300.5"}, {"p2", TRAZA_EQ, "bravo"},
        {"p2", TRAZA_GT, "india"}, {"p3", TRAZA_GE, "0x10020000"}, {"p2", TRAZA_NE, "bravo"},
    };
    for (size_t i = 0; i < sizeof conds / sizeof conds[0]; i++) {
        g.conds = &conds[i];
        g.nconds = 1;
        same_events(a, b, &g, &w.err);
        same_scan(a, b, &g, &w.err);
        assert_true(traza_count(b, &g, &w.err) > 0);
    }
    traza_trace_close(a);
    traza_trace_close(b);
    traza_workspace_close(sq);
    tu_rmdir(sdir);
    tu_ws_close(&w);
}

/* Strings that are not valid UTF-8 (the API takes any bytes): stored losslessly on
 * PostgreSQL (pg_text.c) and read back byte for byte as SQLite does, in names, param
 * values, sources and trace params; equality filters on such values match the same
 * events. Includes U+FDD0 (the escape mark) and text that looks like an escape. */
static const char *const odd_strings[] = {
    "ab\xff" "cd\x80", "\xc3(", "caf\xc3\xa9", "\xef\xb7\x90" "FF", "x\xef\xb7\x90", "\xef\xb7\x90\xef\xb7\x90\xfe",
    "\xed\xa0\x80 surrogate", "\xf4\x90\x80\x80 too big", "tail\xe2\x82", "plain",
};
#define NODD (sizeof odd_strings / sizeof odd_strings[0])

static void write_odd(traza_workspace *ws, traza_err *err)
{
    traza_writer *w = traza_writer_begin(ws, "odd", "test", err);
    assert_non_null(w);
    assert_int_equal(traza_writer_add_source(w, "/tmp/na\xefme.csv", err), 0);
    assert_int_equal(traza_writer_set_param(w, "k\xfe", "v\xfd", err), 0);
    int32_t pr = traza_writer_producer(w, -1, "cpu\xff", "ty\x80pe", err);
    int32_t ty = traza_writer_event_type(w, "ev\xc3", TRAZA_PUNCTUAL, err);
    int32_t d = traza_writer_param_def(w, ty, "pa\xe9ram", TRAZA_PT_STRING, err);
    assert_true(pr >= 0 && ty >= 0 && d >= 0);
    for (size_t i = 0; i < NODD; i++) {
        traza_param p;
        memset(&p, 0, sizeof p);
        p.def = d;
        p.v.kind = TRAZA_PT_STRING;
        p.v.s = odd_strings[i];
        traza_event ev;
        memset(&ev, 0, sizeof ev);
        ev.ts = (int64_t)i * 10;
        ev.type = ty;
        ev.producer = pr;
        ev.params = &p;
        ev.nparams = 1;
        assert_int_equal(traza_writer_event(w, &ev, err), 0);
    }
    assert_int_equal(traza_writer_commit(w, NULL, err), 0);
}

static void test_pg_invalid_utf8(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    char *sdir = tu_tmpdir();
    traza_workspace *sq = traza_workspace_open(w.ctx, sdir, &w.err);
    assert_non_null(sq);
    write_odd(sq, &w.err);
    write_odd(w.ws, &w.err);
    traza_trace *a = traza_trace_open(sq, "odd", TRAZA_OPEN_READ, &w.err);
    traza_trace *b = traza_trace_open(w.ws, "odd", TRAZA_OPEN_READ, &w.err);
    assert_non_null(a);
    assert_non_null(b);
    traza_filter f;
    traza_filter_init(&f);
    f.with_params = 1;
    same_events(a, b, &f, &w.err);
    traza_cursor *c = traza_query(b, &f, &w.err);
    const traza_event *ev;
    for (size_t i = 0; i < NODD; i++) {
        assert_int_equal(traza_cursor_next(c, &ev, &w.err), 1);
        assert_int_equal(ev->nparams, 1);
        assert_string_equal(ev->params[0].v.s, odd_strings[i]);
    }
    traza_cursor_free(c);
    assert_string_equal(traza_trace_producer(b, 0)->name, "cpu\xff");
    assert_string_equal(traza_trace_producer(b, 0)->type, "ty\x80pe");
    assert_string_equal(traza_trace_event_type(b, 0)->name, "ev\xc3");
    assert_string_equal(traza_trace_param_def(b, 0)->name, "pa\xe9ram");
    const traza_trace_info *ia = traza_trace_info_of(a), *ib = traza_trace_info_of(b);
    assert_int_equal(ib->nsources, 1);
    assert_string_equal(ia->sources[0], ib->sources[0]);
    assert_string_equal(ib->sources[0], "/tmp/na\xefme.csv");
    assert_int_equal(ib->nparams, 1);
    assert_string_equal(ib->params[0].key, "k\xfe");
    assert_string_equal(ib->params[0].value, "v\xfd");
    for (size_t i = 0; i < NODD; i++) {
        traza_param_cond cond = {"pa\xe9ram", TRAZA_EQ, odd_strings[i]};
        traza_filter g;
        traza_filter_init(&g);
        g.conds = &cond;
        g.nconds = 1;
        assert_int_equal(traza_count(b, &g, &w.err), 1);
        same_events(a, b, &g, &w.err);
        cond.op = TRAZA_NE;
        assert_int_equal(traza_count(b, &g, &w.err), (int64_t)NODD - 1);
    }
    traza_trace_close(a);
    traza_trace_close(b);
    traza_workspace_close(sq);
    tu_rmdir(sdir);
    tu_ws_close(&w);
}

/* Several queries open at once on one trace, and a result saved while they are
 * open (it lives in their transaction until they end, then is committed). */
static void test_pg_nested_queries(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    tu_sample_trace(&w, "n", 30);
    traza_trace *t = traza_trace_open(w.ws, "n", TRAZA_OPEN_WRITE, &w.err);
    assert_non_null(t);
    traza_filter f;
    traza_filter_init(&f);
    f.with_params = 1;
    traza_cursor *outer = traza_query(t, &f, &w.err);
    assert_non_null(outer);
    const traza_event *ev;
    int64_t n_outer = 0, ids[3];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(traza_cursor_next(outer, &ev, &w.err), 1);
        ids[i] = ev->id;
        n_outer++;
    }
    traza_filter g;
    traza_filter_init(&g);
    g.has_from = g.has_to = 1;
    g.from = 100;
    g.to = 200;
    traza_cursor *inner = traza_query(t, &g, &w.err);
    assert_non_null(inner);
    int64_t n_inner = 0;
    while (traza_cursor_next(inner, &ev, &w.err) > 0)
        n_inner++;
    traza_cursor_free(inner);
    assert_int_equal(n_inner, traza_count(t, &g, &w.err));
    traza_result_meta m = {"first3", "test", NULL, 0, NULL};
    assert_true(traza_result_save_events(t, &m, ids, 3, &w.err) > 0);
    traza_result_meta m2 = {"first3", "test", "--other", 0, NULL};
    assert_true(traza_result_save_events(t, &m2, ids, 3, &w.err) < 0); /* name taken */
    assert_err_contains(w.err, "already exists");
    while (traza_cursor_next(outer, &ev, &w.err) > 0) /* the failed save left the query intact */
        n_outer++;
    traza_cursor_free(outer);
    assert_int_equal(n_outer, 30 * 2 + 2);
    traza_trace_close(t);
    t = traza_trace_open(w.ws, "n", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    traza_filter h;
    traza_filter_init(&h);
    traza_result_info *rs;
    size_t nr;
    assert_int_equal(traza_result_list(t, &rs, &nr, &w.err), 0);
    assert_int_equal(nr, 1);
    h.event_set = rs[0].id;
    traza_result_info_array_free(rs, nr);
    assert_int_equal(traza_count(t, &h, &w.err), 3);
    traza_trace_close(t);
    tu_ws_close(&w);
}

static void test_pg_unavailable(void **state)
{
    (void)state;
    print_message("[  SKIPPED ] PostgreSQL store tests: TRAZA_PG_URI is not set (tests/run.sh starts a server when "
                  "the Debian package postgresql is installed)\n");
    skip();
}

int main(void)
{
    (void)test_time_parse;          /* backend-independent: run by test_store */
    (void)test_catalogue_and_abort; /* SQLite files; see test_pg_catalogue_and_abort */
    if (!tu_pg_init()) {
        const struct CMUnitTest none[] = {cmocka_unit_test(test_pg_unavailable)};
        return cmocka_run_group_tests(none, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_and_order),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_results),
        cmocka_unit_test(test_regex_limit_is_an_error),
        cmocka_unit_test(test_regex_stop_each_event),
        cmocka_unit_test(test_filter_boundaries),
        cmocka_unit_test(test_workspace_exists),
        cmocka_unit_test(test_replace),
        cmocka_unit_test(test_pg_catalogue_and_abort),
        cmocka_unit_test(test_pg_publish_conflict),
        cmocka_unit_test(test_pg_killed_import),
        cmocka_unit_test(test_pg_same_as_sqlite),
        cmocka_unit_test(test_pg_nested_queries),
        cmocka_unit_test(test_pg_invalid_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
