/* The SQLite bulk writer's paths (in-order, sorted in memory with rows taken back,
 * spilled to the on-disk reorder) give the same trace, a sound database file and a
 * working (type, producer) index; traza_scan returns what traza_query returns. */
#include "testutil.h"

#include <dirent.h>
#include <math.h>
#include <sqlite3.h>

enum { NPROD = 5, NTYPE = 3 };

typedef struct exp_ev {
    int64_t ts, seq;
    int32_t type, producer;
    int has_end;
} exp_ev;

/* Event i of a deterministic stream: in order for the first `sorted_prefix` events,
 * then jumping back now and then. */
static exp_ev make_ev(int i, int sorted_prefix)
{
    exp_ev e;
    uint32_t x = (uint32_t)i * 2654435761u;
    e.seq = i;
    e.ts = (int64_t)i * 10;
    if (i >= sorted_prefix && (x >> 7) % 3 == 0)
        e.ts -= (int64_t)((x >> 11) % 5000); /* may go back before the prefix's end */
    e.type = (int32_t)((x >> 3) % NTYPE);
    e.producer = (int32_t)((x >> 17) % NPROD);
    e.has_end = e.type == 1;
    return e;
}

static int cmp_exp(const void *a, const void *b)
{
    const exp_ev *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void write_trace(tu_ws *w, const char *name, int n, int sorted_prefix)
{
    traza_writer *wr = traza_writer_begin(w->ws, name, "test", &w->err);
    assert_non_null(wr);
    int32_t prod[NPROD], type[NTYPE], def;
    for (int p = 0; p < NPROD; p++) {
        char nm[16];
        snprintf(nm, sizeof nm, "p%d", p);
        prod[p] = traza_writer_producer(wr, -1, nm, "Core", &w->err);
    }
    type[0] = traza_writer_event_type(wr, "a", TRAZA_PUNCTUAL, &w->err);
    type[1] = traza_writer_event_type(wr, "s", TRAZA_STATE, &w->err);
    type[2] = traza_writer_event_type(wr, "b", TRAZA_PUNCTUAL, &w->err);
    def = traza_writer_param_def(wr, type[2], "tag", TRAZA_PT_STRING, &w->err);
    for (int i = 0; i < n; i++) {
        exp_ev x = make_ev(i, sorted_prefix);
        traza_event e = {0};
        char tag[32];
        traza_param par;
        e.ts = x.ts;
        e.type = type[x.type];
        e.producer = prod[x.producer];
        if (x.has_end) {
            e.end_ts = x.ts + 7;
            e.has = TRAZA_HAS_END;
        }
        if (x.type == 2) {
            snprintf(tag, sizeof tag, "seq%d", i);
            par.def = def;
            par.v.kind = TRAZA_PT_STRING;
            par.v.s = tag;
            e.params = &par;
            e.nparams = 1;
        }
        assert_int_equal(traza_writer_event(wr, &e, &w->err), 0);
    }
    int rc = traza_writer_commit(wr, NULL, &w->err);
    if (rc != 0)
        print_error("commit: %s\n", w->err.msg);
    assert_int_equal(rc, 0);
}

/* PRAGMA integrity_check on every trace store of the workspace. */
static void check_files(const char *wsdir)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/traces", wsdir);
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    int seen = 0;
    while ((de = readdir(d))) {
        if (!strstr(de->d_name, ".db"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        sqlite3 *db;
        assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        sqlite3_stmt *st;
        assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
        sqlite3_finalize(st);
        assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE type='index' AND name='event_type_producer'", -1,
                                            &st, NULL),
                         SQLITE_OK);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        assert_int_equal(sqlite3_column_int(st, 0), 1);
        sqlite3_finalize(st);
        assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'tz_tp%'", -1, &st, NULL), SQLITE_OK);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        assert_int_equal(sqlite3_column_int(st, 0), 0); /* no build table left behind */
        sqlite3_finalize(st);
        sqlite3_close(db);
        seen++;
    }
    closedir(d);
    assert_true(seen > 0);
}

static void check_trace(tu_ws *w, const char *name, int n, int sorted_prefix)
{
    exp_ev *ex = malloc((size_t)n * sizeof *ex + 1);
    assert_non_null(ex);
    for (int i = 0; i < n; i++)
        ex[i] = make_ev(i, sorted_prefix);
    qsort(ex, (size_t)n, sizeof *ex, cmp_exp);
    traza_trace *t = traza_trace_open(w->ws, name, TRAZA_OPEN_READ, &w->err);
    assert_non_null(t);
    traza_filter f;
    traza_filter_init(&f);
    f.with_params = 1;
    traza_cursor *c = traza_query(t, &f, &w->err);
    assert_non_null(c);
    const traza_event *ev;
    int k = 0;
    while (traza_cursor_next(c, &ev, &w->err) == 1) {
        assert_true(k < n);
        assert_int_equal(ev->id, k + 1);
        assert_int_equal(ev->ts, ex[k].ts);
        assert_int_equal(ev->type, ex[k].type);
        assert_int_equal(ev->producer, ex[k].producer);
        if (ex[k].has_end)
            assert_int_equal(ev->end_ts, ex[k].ts + 7);
        if (ex[k].type == 2) {
            char tag[32];
            snprintf(tag, sizeof tag, "seq%lld", (long long)ex[k].seq);
            assert_int_equal(ev->nparams, 1);
            assert_string_equal(ev->params[0].v.s, tag);
        } else {
            assert_int_equal(ev->nparams, 0);
        }
        k++;
    }
    assert_int_equal(k, n);
    traza_cursor_free(c);
    /* The (type, producer) index answers like a scan would. */
    for (int32_t ty = 0; ty < NTYPE; ty++)
        for (int32_t p = 0; p < NPROD; p++) {
            int64_t want = 0;
            for (int i = 0; i < n; i++)
                want += ex[i].type == ty && ex[i].producer == p && ex[i].ts >= 1000 && ex[i].ts <= 30000;
            traza_filter_init(&f);
            f.types = &ty;
            f.ntypes = 1;
            f.producers = &p;
            f.nproducers = 1;
            f.has_from = f.has_to = 1;
            f.from = 1000;
            f.to = 30000;
            assert_int_equal(traza_count(t, &f, &w->err), want);
        }
    /* Saved max_duration: an overlap query finds the state that started before. */
    traza_trace_close(t);
    free(ex);
}

static void run_case(const char *label, int n, int sorted_prefix, const char *sort_mem)
{
    tu_ws w;
    tu_ws_open(&w);
    if (sort_mem)
        setenv("TRAZA_SORT_MEM", sort_mem, 1);
    write_trace(&w, label, n, sorted_prefix);
    unsetenv("TRAZA_SORT_MEM");
    check_trace(&w, label, n, sorted_prefix);
    check_files(w.dir);
    tu_ws_close(&w);
}

static void test_in_order(void **state)
{
    (void)state;
    run_case("sorted", 5000 + 37, 1 << 30, NULL); /* not a multiple of the statement size */
    run_case("empty", 0, 1 << 30, NULL);
}

static void test_sorted_in_memory(void **state)
{
    (void)state;
    run_case("late", 6000, 4000, NULL);  /* rows of the prefix are taken back */
    run_case("early", 3000, 0, NULL);     /* out of order from the start */
}

static void test_spilled(void **state)
{
    (void)state;
    run_case("spill", 6000, 4000, "20000"); /* over the memory budget: on-disk reorder */
}

static void test_scan(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    write_trace(&w, "s", 10000, 7000);
    traza_trace *t = traza_trace_open(w.ws, "s", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    int32_t ty[2] = {1, 2};
    int32_t pr[2] = {0, 3};
    traza_regex_cond rx = {"producer", "^p[03]$", 0};
    for (int variant = 0; variant < 5; variant++) {
        traza_filter f;
        traza_filter_init(&f);
        if (variant == 1) {
            f.has_from = f.has_to = 1;
            f.from = 20000;
            f.to = 60000;
            f.overlap = 1;
        } else if (variant == 2) {
            f.types = ty;
            f.ntypes = 2;
            f.producers = pr;
            f.nproducers = 2;
            f.order = TRAZA_ORDER_TIME_DESC;
        } else if (variant == 3) {
            f.regexes = &rx; /* generic path */
            f.nregexes = 1;
            f.offset = 3;
            f.limit = 5000;
        } else if (variant == 4) {
            f.offset = 10;
            f.limit = 4100;
        }
        traza_cursor *c = traza_query(t, &f, &w.err);
        traza_scan *s = traza_scan_open(t, &f, &w.err);
        assert_non_null(c);
        assert_non_null(s);
        traza_scan_batch b;
        const traza_event *ev;
        size_t total = 0;
        int rc;
        while ((rc = traza_scan_next(s, &b, &w.err)) == 1) {
            assert_true(b.n > 0);
            for (size_t i = 0; i < b.n; i++) {
                if (traza_cursor_next(c, &ev, &w.err) != 1)
                    fail_msg("variant %d: scan has more events than the query (%zu)", variant, total);
                assert_int_equal(b.id[i], ev->id);
                assert_int_equal(b.ts[i], ev->ts);
                assert_int_equal(b.end_ts[i], (ev->has & TRAZA_HAS_END) ? ev->end_ts : ev->ts);
                assert_int_equal(b.type[i], ev->type);
                assert_int_equal(b.producer[i], ev->producer);
                total++;
            }
        }
        assert_int_equal(rc, 0);
        assert_int_equal(traza_scan_next(s, &b, &w.err), 0); /* stays at the end */
        assert_int_equal(traza_cursor_next(c, &ev, &w.err), 0);
        assert_true(total > 0);
        traza_filter f2 = f;
        f2.offset = f2.limit = 0;
        if (variant != 3 && variant != 4)
            assert_int_equal((int64_t)total, traza_count(t, &f2, &w.err));
        traza_scan_free(s);
        traza_cursor_free(c);
    }
    /* An empty filter result and a bad filter. */
    traza_filter f;
    traza_filter_init(&f);
    f.categories = 1u << TRAZA_LINK;
    traza_scan *s = traza_scan_open(t, &f, &w.err);
    assert_non_null(s);
    traza_scan_batch b;
    assert_int_equal(traza_scan_next(s, &b, &w.err), 0);
    traza_scan_free(s);
    traza_param_cond bad = {"nope", TRAZA_EQ, "1"};
    f.categories = 0;
    f.conds = &bad;
    f.nconds = 1;
    assert_null(traza_scan_open(t, &f, &w.err));
    assert_err_contains(w.err, "no event type");
    traza_trace_close(t);
    tu_ws_close(&w);
}

/* The parameter values index follows SQLite's order for mixed values (NULL, numbers
 * compared exactly across integers and reals, then text by bytes): the page writer's
 * in-memory sort and CREATE INDEX (the path beyond the sort budget) give the same
 * index, and an index scan returns what SQLite's own sorter returns. */
static void param_order_case(const char *sort_mem, int shuffle)
{
    tu_ws w;
    tu_ws_open(&w);
    if (sort_mem)
        setenv("TRAZA_SORT_MEM", sort_mem, 1);
    traza_writer *wr = traza_writer_begin(w.ws, "p", "test", &w.err);
    assert_non_null(wr);
    int32_t prod = traza_writer_producer(wr, -1, "cpu", "Core", &w.err);
    int32_t type = traza_writer_event_type(wr, "e", TRAZA_PUNCTUAL, &w.err);
    int32_t dv = traza_writer_param_def(wr, type, "v", TRAZA_PT_STRING, &w.err);
    int32_t dw = traza_writer_param_def(wr, type, "w", TRAZA_PT_INT, &w.err);
    static const int64_t ints[] = {0, 1, -1, 2, 9007199254740993LL, INT64_MAX, INT64_MIN, 9007199254740992LL, 3};
    static const double reals[] = {1.0, 1.5, -0.0, 0.0, 9007199254740992.0, 9.3e18, -9.3e18, 1e-300, 2.5, 9223372036854775807.0};
    static const char *const strs[] = {"", "a", "ab", "b", "\xc3\xa9", "A", "10", "9", "ab\x7f", "a b"};
    char uniq[16];
    for (int i = 0; i < 3000; i++) {
        int k = shuffle ? (i * 7919) % 3000 : i;
        traza_param par[2];
        memset(par, 0, sizeof par);
        par[0].def = dv;
        switch (k % 4) {
        case 0: par[0].v.kind = TRAZA_PT_INT; par[0].v.i = ints[(k / 4) % 9]; break;
        case 1: par[0].v.kind = TRAZA_PT_DOUBLE; par[0].v.d = k % 40 == 1 ? NAN : reals[(k / 4) % 10]; break;
        case 2: /* the ten texts, and 562 distinct ones: the sort's text table grows */
            par[0].v.kind = TRAZA_PT_STRING;
            snprintf(uniq, sizeof uniq, "u%d", k % 3000);
            par[0].v.s = k % 16 == 2 ? strs[(k / 16) % 10] : uniq;
            break;
        default: par[0].v.kind = TRAZA_PT_HEX; par[0].v.i = k; break;
        }
        par[1].def = dw;
        par[1].v.kind = TRAZA_PT_INT;
        par[1].v.i = k % 5;
        traza_event e = {0};
        e.ts = i;
        e.type = type;
        e.producer = prod;
        e.params = par;
        e.nparams = 1 + (k % 3 == 0); /* "w" on a third of the events, given first or not */
        if (e.nparams == 2 && k % 2) {
            traza_param t = par[0];
            par[0] = par[1];
            par[1] = t;
        }
        assert_int_equal(traza_writer_event(wr, &e, &w.err), 0);
    }
    assert_int_equal(traza_writer_commit(wr, NULL, &w.err), 0);
    unsetenv("TRAZA_SORT_MEM");
    check_files(w.dir);
    /* the index scan and SQLite's sort agree, value by value */
    char dir[512], path[1024];
    snprintf(dir, sizeof dir, "%s/traces", w.dir);
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    path[0] = '\0';
    while ((de = readdir(d)))
        if (strstr(de->d_name, ".db"))
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    closedir(d);
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *a, *b;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT def, quote(value), event FROM param INDEXED BY param_value WHERE def >= -1"
                                        " ORDER BY def, value, event", -1, &a, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT def, quote(value), event FROM param NOT INDEXED ORDER BY def, value, event", -1, &b, NULL),
                     SQLITE_OK);
    int n = 0, nulls = 0;
    for (;;) {
        int ra = sqlite3_step(a), rb = sqlite3_step(b);
        assert_int_equal(ra, rb);
        if (ra != SQLITE_ROW)
            break;
        assert_int_equal(sqlite3_column_int(a, 0), sqlite3_column_int(b, 0));
        assert_string_equal((const char *)sqlite3_column_text(a, 1), (const char *)sqlite3_column_text(b, 1));
        assert_int_equal(sqlite3_column_int64(a, 2), sqlite3_column_int64(b, 2));
        nulls += strcmp((const char *)sqlite3_column_text(a, 1), "NULL") == 0;
        n++;
    }
    assert_int_equal(n, 3000 + 1000);
    assert_int_equal(nulls, 75); /* NaN is stored as NULL, as SQLite stores it */
    sqlite3_finalize(a);
    sqlite3_finalize(b);
    /* a value condition through the index */
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM param INDEXED BY param_value WHERE def = 0 AND value > 1 AND value < 'a'", -1,
                                        &a, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(a), SQLITE_ROW);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM param NOT INDEXED WHERE def = 0 AND value > 1 AND value < 'a'", -1, &b, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(b), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(a, 0), sqlite3_column_int(b, 0));
    assert_true(sqlite3_column_int(a, 0) > 100);
    sqlite3_finalize(a);
    sqlite3_finalize(b);
    sqlite3_close(db);
    tu_ws_close(&w);
}

static void test_param_order(void **state)
{
    (void)state;
    param_order_case(NULL, 0);   /* sorted in memory, written as pages */
    param_order_case(NULL, 1);
    param_order_case("1000", 1); /* beyond the budget: CREATE INDEX */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_order),
        cmocka_unit_test(test_sorted_in_memory),
        cmocka_unit_test(test_spilled),
        cmocka_unit_test(test_scan),
        cmocka_unit_test(test_param_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
