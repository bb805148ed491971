/* The store API on the SQLite backend: write, read back, filter, results, atomicity. */
#include "testutil.h"

#include <dirent.h>
#include <math.h>

#include "sample_trace.h"

static void test_roundtrip_and_order(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    tu_sample_trace(&w, "t1", 50);
    traza_trace *t = traza_trace_open(w.ws, "t1", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    traza_filter f;
    traza_filter_init(&f);
    f.with_params = 1;
    traza_cursor *c = traza_query(t, &f, &w.err);
    assert_non_null(c);
    const traza_event *ev;
    int64_t last = INT64_MIN, n = 0, prev_id = 0;
    int seen_hex = 0, seen_str = 0;
    while (traza_cursor_next(c, &ev, &w.err) > 0) {
        assert_true(ev->ts >= last);
        assert_int_equal(ev->id, prev_id + 1); /* ids follow time order, dense */
        last = ev->ts;
        prev_id = ev->id;
        n++;
        const traza_event_type *ty = traza_trace_event_type(t, ev->type);
        if (strcmp(ty->name, "irq") == 0) {
            assert_int_equal(ev->nparams, 3);
            for (uint32_t i = 0; i < ev->nparams; i++) {
                const traza_param_def *d = traza_trace_param_def(t, ev->params[i].def);
                if (strcmp(d->name, "addr") == 0) {
                    assert_int_equal(ev->params[i].v.kind, TRAZA_PT_HEX);
                    assert_int_equal(ev->params[i].v.i, 0x8000 + ev->ts / 10);
                    seen_hex = 1;
                }
                if (strcmp(d->name, "who") == 0) {
                    assert_string_equal(ev->params[i].v.s, (ev->ts / 10 % 2) ? "uart" : "timer");
                    seen_str = 1;
                }
            }
            assert_true(ev->has & TRAZA_HAS_CPU);
        } else if (strcmp(ty->name, "load") == 0) {
            assert_true(fabs(ev->value - 0.75) < 1e-12);
        }
    }
    assert_true(seen_hex && seen_str);
    assert_int_equal(n, 102);
    traza_cursor_free(c);
    /* producers and paths */
    const traza_producer *p = traza_trace_producer_find(t, "root/cpu1");
    assert_non_null(p);
    assert_string_equal(p->name, "cpu1");
    int32_t *ids = NULL;
    size_t nids = 0;
    assert_int_equal(traza_trace_producer_subtree(t, traza_trace_producer_find(t, "root")->id, &ids, &nids, &w.err), 3);
    free(ids);
    traza_trace_close(t);
    tu_ws_close(&w);
}

/* The ids of the events of a query, in order, into ids[] (at most max); the count. */
static size_t query_ids(traza_trace *t, const traza_filter *f, int64_t *ids, size_t max, traza_err *err)
{
    traza_cursor *c = traza_query(t, f, err);
    assert_non_null(c);
    const traza_event *ev;
    size_t n = 0;
    int rc;
    while ((rc = traza_cursor_next(c, &ev, err)) > 0) {
        assert_true(n < max);
        ids[n++] = ev->id;
    }
    assert_int_equal(rc, 0);
    traza_cursor_free(c);
    return n;
}

static int64_t count(traza_trace *t, traza_filter *f, traza_err *err)
{
    int64_t n = traza_count(t, f, err);
    /* The cursor must agree with the count. */
    int64_t ids[512];
    int64_t k = (int64_t)query_ids(t, f, ids, 512, err);
    if (!f->limit && !f->offset)
        assert_int_equal(n, k);
    return k;
}

static void test_filters(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    tu_sample_trace(&w, "t2", 100);
    traza_trace *t = traza_trace_open(w.ws, "t2", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    traza_filter f;
    traza_filter_init(&f);
    f.has_from = f.has_to = 1;
    f.from = 100;
    f.to = 199;
    /* irq at 100..190 (10) + run at 101..191 (10) */
    assert_int_equal(count(t, &f, &w.err), 20);
    f.overlap = 1; /* + link 5..25? no; + variable 0..100 yes; + run 91..96? no */
    assert_int_equal(count(t, &f, &w.err), 21);
    f.overlap = 0;
    int32_t irq = traza_trace_event_type_by_name(t, "irq")->id;
    f.types = &irq;
    f.ntypes = 1;
    assert_int_equal(count(t, &f, &w.err), 10);
    int32_t c1 = traza_trace_producer_find(t, "cpu1")->id;
    f.producers = &c1;
    f.nproducers = 1;
    assert_int_equal(count(t, &f, &w.err), 5);
    traza_filter_init(&f);
    f.categories = 1u << TRAZA_STATE;
    assert_int_equal(count(t, &f, &w.err), 100);
    traza_filter_init(&f);
    traza_param_cond pc = {"vector", TRAZA_EQ, "3"};
    f.conds = &pc;
    f.nconds = 1;
    /* i % 7 == 3 for i in 0..99: 3,10,...,94 -> 14 */
    assert_int_equal(count(t, &f, &w.err), 14);
    traza_param_cond pc2 = {"who", TRAZA_EQ, "uart"};
    f.conds = &pc2;
    assert_int_equal(count(t, &f, &w.err), 50);
    traza_param_cond pc3 = {"vector", TRAZA_GE, "5"};
    f.conds = &pc3;
    assert_int_equal(count(t, &f, &w.err), 28);
    traza_param_cond bad = {"nope", TRAZA_EQ, "1"};
    f.conds = &bad;
    assert_int_equal(traza_count(t, &f, &w.err), -1);
    assert_err_contains(w.err, "no event type");
    traza_filter_init(&f);
    traza_regex_cond rx = {"producer", "cpu1$", 0};
    f.regexes = &rx;
    f.nregexes = 1;
    assert_int_equal(count(t, &f, &w.err), 50);
    traza_regex_cond rx2 = {"who", "^ti", 0};
    f.regexes = &rx2;
    assert_int_equal(count(t, &f, &w.err), 50);
    rx2.negate = 1;
    assert_int_equal(count(t, &f, &w.err), 152); /* uart irqs and every event without "who" */
    traza_regex_cond rx3 = {"type", "([", 0};
    f.regexes = &rx3;
    assert_null(traza_query(t, &f, &w.err));
    assert_err_contains(w.err, "regular expression");
    /* offset/limit with and without regex */
    traza_filter_init(&f);
    f.offset = 10;
    f.limit = 5;
    assert_int_equal(count(t, &f, &w.err), 5);
    traza_regex_cond rx4 = {"type", "^irq$", 0};
    f.regexes = &rx4;
    f.nregexes = 1;
    assert_int_equal(count(t, &f, &w.err), 5);
    traza_trace_close(t);
    tu_ws_close(&w);
}

static void test_results(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    tu_sample_trace(&w, "t3", 20);
    traza_trace *t = traza_trace_open(w.ws, "t3", TRAZA_OPEN_READ, &w.err);
    traza_result_meta m = {"set1", "test", "--x", 0, NULL};
    int64_t ids[] = {1, 2, 5, 5};
    assert_int_equal(traza_result_save_events(t, &m, ids, 4, &w.err), -1);
    assert_err_contains(w.err, "read-only");
    traza_trace_close(t);
    t = traza_trace_open(w.ws, "t3", TRAZA_OPEN_WRITE, &w.err);
    int64_t r1 = traza_result_save_events(t, &m, ids, 4, &w.err);
    assert_true(r1 > 0);
    traza_result_meta other = {"set1", "test", "--y", 0, NULL};
    assert_int_equal(traza_result_save_events(t, &other, ids, 2, &w.err), -1);
    assert_err_contains(w.err, "a result named 'set1' already exists, made by test with --x");
    int64_t badids[] = {1000};
    traza_result_meta m2 = {"bad", "test", NULL, 0, NULL};
    assert_int_equal(traza_result_save_events(t, &m2, badids, 1, &w.err), -1);
    int32_t prods[] = {1, 2};
    traza_result_meta m3 = {"cores", "test", NULL, 0, NULL};
    assert_true(traza_result_save_producers(t, &m3, prods, 2, &w.err) > 0);
    traza_group_node g[] = {{1, 0, "root", 1, TRAZA_GROUP_NONE, 0, 0}, {2, 1, NULL, 0, TRAZA_GROUP_EVENT, 5, 0},
                            {3, 1, "second", 0, TRAZA_GROUP_TYPE, 1, 1}};
    traza_result_meta m4 = {"grp", "test", NULL, 0, NULL};
    assert_true(traza_result_save_group(t, &m4, g, 3, &w.err) > 0);
    traza_annotation an[] = {{"note", {TRAZA_PT_STRING, 0, 0, "spike"}, 1, 10, 20}, {"score", {TRAZA_PT_DOUBLE, 0, 2.5, NULL}, 0, 0, 0}};
    traza_result_meta m5 = {"ann", "test", NULL, 0, NULL};
    assert_true(traza_result_save_annotations(t, &m5, an, 2, &w.err) > 0);
    traza_result_info *list;
    size_t n;
    assert_int_equal(traza_result_list(t, &list, &n, &w.err), 0);
    assert_int_equal(n, 4);
    assert_string_equal(list[0].name, "set1");
    assert_int_equal(list[0].size, 3); /* duplicate 5 counted once */
    assert_int_equal(list[0].kind, TRAZA_RES_EVENT_SET);
    traza_result_info_array_free(list, n);
    /* restricting a query to a saved set */
    traza_filter f;
    traza_filter_init(&f);
    f.event_set = r1;
    assert_int_equal(traza_count(t, &f, &w.err), 3);
    int64_t *got;
    size_t ng;
    assert_int_equal(traza_result_events(t, r1, &got, &ng, &w.err), 0);
    assert_int_equal(ng, 3);
    assert_int_equal(got[2], 5);
    free(got);
    traza_group_node *gn;
    assert_int_equal(traza_result_group(t, list ? 3 : 3, &gn, &ng, &w.err), 0);
    assert_int_equal(ng, 3);
    assert_string_equal(gn[0].name, "root");
    assert_null(gn[1].name);
    assert_int_equal(gn[1].ref, 5);
    traza_group_nodes_free(gn, ng);
    traza_annotation *ga;
    assert_int_equal(traza_result_annotations(t, 4, &ga, &ng, &w.err), 0);
    assert_int_equal(ng, 2);
    assert_string_equal(ga[0].value.s, "spike");
    assert_int_equal(ga[0].to, 20);
    assert_true(ga[1].value.d == 2.5 && !ga[1].has_range);
    traza_annotations_free(ga, ng);
    /* the event sets holding an event: set1 {1, 2, 5} and set2 {5, 7}; the group
     * that references event 5 and the producer set are no event sets */
    int64_t ids2[] = {7, 5};
    traza_result_meta m7 = {"set2", "test", NULL, 0, NULL};
    int64_t r2 = traza_result_save_events(t, &m7, ids2, 2, &w.err);
    assert_true(r2 > r1);
    assert_int_equal(traza_result_sets_of_event(t, 5, &got, &ng, &w.err), 0);
    assert_int_equal(ng, 2);
    assert_true(got[0] == r1 && got[1] == r2);
    free(got);
    assert_int_equal(traza_result_sets_of_event(t, 7, &got, &ng, &w.err), 0);
    assert_true(ng == 1 && got[0] == r2);
    free(got);
    assert_int_equal(traza_result_sets_of_event(t, 3, &got, &ng, &w.err), 0);
    assert_int_equal(ng, 0);
    free(got);
    /* processed trace link */
    tu_sample_trace(&w, "t3-derived", 2);
    traza_result_meta m6 = {"derived", "test", NULL, 0, NULL};
    assert_true(traza_result_save_processed(t, &m6, "t3-derived", &w.err) > 0);
    traza_result_info ri;
    assert_int_equal(traza_result_find(t, "derived", &ri, &w.err), 0);
    assert_string_equal(ri.target, "t3-derived");
    traza_result_info_clear(&ri);
    /* the same tool with the same options writes its result anew, without replace */
    assert_true(traza_result_save_events(t, &m, ids, 2, &w.err) > 0);
    assert_int_equal(traza_result_find(t, "set1", &ri, &w.err), 0);
    assert_int_equal(ri.size, 2);
    traza_result_info_clear(&ri);
    /* replace and delete */
    m.replace = 1;
    assert_true(traza_result_save_events(t, &m, ids, 1, &w.err) > 0);
    assert_int_equal(traza_result_find(t, "set1", &ri, &w.err), 0);
    assert_int_equal(ri.size, 1);
    assert_int_equal(traza_result_delete(t, ri.id, &w.err), 0);
    traza_result_info_clear(&ri);
    assert_int_equal(traza_result_find(t, "set1", &ri, &w.err), -1);
    assert_err_contains(w.err, "no result named 'set1'");
    traza_trace_close(t);
    tu_ws_close(&w);
}

static int count_files(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/traces", dir);
    DIR *d = opendir(p);
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

static void test_catalogue_and_abort(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    tu_sample_trace(&w, "a", 3);
    tu_sample_trace(&w, "b", 3);
    assert_int_equal(count_files(w.dir), 2);
    /* an aborted import leaves nothing */
    traza_writer *wr = traza_writer_begin(w.ws, "c", "test", &w.err);
    assert_non_null(wr);
    assert_int_equal(count_files(w.dir), 5); /* the temporary store and its two spools */
    traza_writer_abort(wr);
    assert_int_equal(count_files(w.dir), 2);
    /* duplicate name */
    assert_null(traza_writer_begin(w.ws, "a", "test", &w.err));
    assert_err_contains(w.err, "already exists");
    traza_trace_info *all;
    size_t n;
    assert_int_equal(traza_workspace_list(w.ws, &all, &n, &w.err), 0);
    assert_int_equal(n, 2);
    traza_trace_info_array_free(all, n);
    assert_int_equal(traza_workspace_rename(w.ws, "a", "b", &w.err), -1);
    assert_int_equal(traza_workspace_rename(w.ws, "a", "a2", &w.err), 0);
    assert_int_equal(traza_workspace_remove(w.ws, "a2", &w.err), 0);
    assert_int_equal(traza_workspace_remove(w.ws, "a2", &w.err), -1);
    assert_err_contains(w.err, "no trace named 'a2'");
    assert_int_equal(count_files(w.dir), 1);
    /* a stale temporary of a dead writer is swept at the next open */
    char p[4096];
    snprintf(p, sizeof p, "%s/traces/0123456789abcdef.importing-999999999.db", w.dir);
    FILE *f = fopen(p, "w");
    fputs("junk", f);
    fclose(f);
    snprintf(p, sizeof p, "%s/traces/fedcba9876543210.db", w.dir);
    f = fopen(p, "w");
    fclose(f);
    traza_workspace_close(w.ws);
    w.ws = traza_workspace_open(w.ctx, w.dir, &w.err);
    assert_non_null(w.ws);
    assert_int_equal(count_files(w.dir), 1);
    tu_ws_close(&w);
}

/* A trace of n punctual events "tick" at 0..n-1 on producer "p", begun with
 * traza_writer_begin_replacing and committed unless `abort`; its new id, or -1. */
static int64_t replacing_trace(tu_ws *w, const char *name, int n, int abort)
{
    traza_writer *wr = traza_writer_begin_replacing(w->ws, name, "test", &w->err);
    assert_non_null(wr);
    int32_t p = traza_writer_producer(wr, -1, "p", "Thread", &w->err);
    int32_t ty = traza_writer_event_type(wr, "tick", TRAZA_PUNCTUAL, &w->err);
    for (int i = 0; i < n; i++) {
        traza_event e = {0};
        e.ts = i;
        e.type = ty;
        e.producer = p;
        assert_int_equal(traza_writer_event(wr, &e, &w->err), 0);
    }
    assert_int_equal(traza_writer_set_param(wr, "version", n > 10 ? "new" : "old", &w->err), 0);
    if (abort) {
        traza_writer_abort(wr);
        return -1;
    }
    traza_trace_info info;
    assert_int_equal(traza_writer_commit(wr, &info, &w->err), 0);
    int64_t id = info.id;
    traza_trace_info_clear(&info);
    return id;
}

static int64_t events_of(traza_trace *t, traza_err *err)
{
    traza_filter f;
    traza_filter_init(&f);
    return traza_count(t, &f, err);
}

/* A trace replaced in the store: one name, the new events and parameters under a new
 * id above the old one; a reader that had the old one open still reads it whole; the
 * old id is gone; an aborted replacement changes nothing; replacing a name nobody
 * has is a plain import. */
static void test_replace(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    int sqlite = strcmp(traza_workspace_backend(w.ws), "sqlite") == 0;
    int64_t old_id = replacing_trace(&w, "live", 5, 0); /* no such trace yet: created */
    tu_sample_trace(&w, "other", 3);
    traza_trace *old = traza_trace_open(w.ws, "live", TRAZA_OPEN_READ, &w.err);
    assert_non_null(old);
    assert_int_equal(replacing_trace(&w, "live", 40, 1), -1); /* aborted */
    traza_trace_info info;
    assert_int_equal(traza_workspace_find(w.ws, "live", &info, &w.err), 0);
    assert_int_equal(info.id, old_id);
    assert_int_equal(info.events, 5);
    traza_trace_info_clear(&info);
    int64_t new_id = replacing_trace(&w, "live", 40, 0);
    assert_true(new_id > old_id);
    traza_trace_info *all;
    size_t n, named = 0;
    assert_int_equal(traza_workspace_list(w.ws, &all, &n, &w.err), 0);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].name, "live") == 0) {
            named++;
            assert_int_equal(all[i].id, new_id);
            assert_int_equal(all[i].events, 40);
            assert_int_equal(all[i].nparams, 1);
            assert_string_equal(all[i].params[0].value, "new");
        }
    assert_int_equal(named, 1);
    traza_trace_info_array_free(all, n);
    /* the reader of the old version reads it whole; a new open gets the new one */
    assert_int_equal(events_of(old, &w.err), 5);
    traza_trace_close(old);
    traza_trace *now = traza_trace_open(w.ws, "live", TRAZA_OPEN_READ, &w.err);
    assert_non_null(now);
    assert_int_equal(events_of(now, &w.err), 40);
    assert_int_equal(traza_trace_info_of(now)->id, new_id);
    traza_trace_close(now);
    char idtext[32];
    snprintf(idtext, sizeof idtext, "%lld", (long long)old_id);
    assert_null(traza_trace_open(w.ws, idtext, TRAZA_OPEN_READ, &w.err));
    assert_int_equal(w.err.code, TRAZA_E_NOTFOUND);
    if (sqlite)
        assert_int_equal(count_files(w.dir), 2); /* the old version's file is removed */
    tu_ws_close(&w);
}

/* A directory without a catalogue is no workspace until one is opened there; a
 * PostgreSQL URI always counts. */
static void test_workspace_exists(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char ws[4096];
    snprintf(ws, sizeof ws, "%s/ws", dir);
    assert_int_equal(traza_workspace_exists(ws), 0);
    assert_int_equal(traza_workspace_exists(dir), 0);
    assert_int_equal(traza_workspace_exists(""), 0);
    assert_int_equal(traza_workspace_exists("postgresql://localhost/db"), 1);
    traza_err err;
    traza_ctx *ctx = traza_ctx_new(&err);
    assert_non_null(ctx);
    traza_workspace *w = traza_workspace_open(ctx, ws, &err);
    assert_non_null(w);
    traza_workspace_close(w);
    assert_int_equal(traza_workspace_exists(ws), 1);
    traza_ctx_free(ctx);
    tu_rmdir(dir);
}

static void test_time_parse(void **state)
{
    (void)state;
    traza_err err;
    int64_t v;
    assert_int_equal(traza_time_parse("1.5ms", -9, &v, &err), 0);
    assert_int_equal(v, 1500000);
    assert_int_equal(traza_time_parse("200us", -6, &v, &err), 0);
    assert_int_equal(v, 200);
    assert_int_equal(traza_time_parse("3s", -9, &v, &err), 0);
    assert_int_equal(v, 3000000000LL);
    assert_int_equal(traza_time_parse("12345", -9, &v, &err), 0);
    assert_int_equal(v, 12345);
    assert_int_equal(traza_time_parse("-2ns", -9, &v, &err), 0);
    assert_int_equal(v, -2);
    assert_int_equal(traza_time_parse("0.0000015s", -6, &v, &err), 0);
    assert_int_equal(v, 2); /* rounded half up */
    assert_int_equal(traza_time_parse("1.5", -9, &v, &err), -1);
    assert_err_contains(err, "whole number");
    assert_int_equal(traza_time_parse("3 parsecs", -9, &v, &err), -1);
    assert_int_equal(traza_time_parse("5min", -9, &v, &err), -1);
    assert_err_contains(err, "unknown unit 'min'");
    assert_int_equal(traza_time_parse("99999999999s", -9, &v, &err), -1);
    assert_err_contains(err, "out of range");
}

/* 10 values of 200 'a' then '!', and 5 of "b". */
static traza_trace *backtracking_trace(tu_ws *w)
{
    char along[202];
    memset(along, 'a', 200);
    strcpy(along + 200, "!");
    tu_string_trace(w->ws, "bt", along, 10, 5);
    traza_trace *t = traza_trace_open(w->ws, "bt", TRAZA_OPEN_READ, &w->err);
    assert_non_null(t);
    return t;
}

/* A regex that backtracks catastrophically fails the query, naming the regex and the
 * limit, in the count, the cursor (every later call too) and the scan. */
static void test_regex_limit_is_an_error(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace *t = backtracking_trace(&w);
    traza_filter f;
    traza_filter_init(&f);
    traza_regex_cond rx = {"s", "!|^(a+)+$", 0};
    f.regexes = &rx;
    f.nregexes = 1;
    traza_err_clear(&w.err);
    assert_int_equal(traza_count(t, &f, &w.err), -1);
    assert_int_equal(w.err.code, TRAZA_E_UNSUPPORTED);
    assert_string_equal(w.err.msg, "regular expression '!|^(a+)+$' on s could not be evaluated on event 1: match limit exceeded "
                                   "(the limit of 200000 backtracking steps was hit: make the expression simpler or more specific)");
    traza_cursor *c = traza_query(t, &f, &w.err);
    assert_non_null(c);
    const traza_event *ev;
    assert_int_equal(traza_cursor_next(c, &ev, &w.err), -1);
    traza_err_clear(&w.err);
    assert_int_equal(traza_cursor_next(c, &ev, &w.err), -1);
    assert_err_contains(w.err, "regular expression '!|^(a+)+$' on s");
    traza_cursor_free(c);
    traza_scan *sc = traza_scan_open(t, &f, &w.err);
    assert_non_null(sc);
    traza_scan_batch b;
    assert_int_equal(traza_scan_next(sc, &b, &w.err), -1);
    assert_err_contains(w.err, "match limit exceeded");
    traza_scan_free(sc);
    /* the same values under a regex that decides quickly */
    traza_regex_cond ok = {"s", "!$|^b$", 0};
    f.regexes = &ok;
    assert_int_equal(traza_count(t, &f, &w.err), 15);
    traza_trace_close(t);
    tu_ws_close(&w);
}

typedef struct stop_after {
    int calls, at;
} stop_after;

static int stop_after_fn(void *ctx, int stage)
{
    stop_after *s = ctx;
    assert_int_equal(stage, TRAZA_STAGE_READ);
    return ++s->calls >= s->at;
}

/* The filter's stop is consulted after each event a regex is evaluated on: the
 * cursor gives the events before it, then fails with TRAZA_E_CANCELLED; the scan
 * gives those events as a batch first. */
static void test_regex_stop_each_event(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace *t = backtracking_trace(&w);
    stop_after sa = {0, 4};
    traza_stop st = {stop_after_fn, &sa};
    traza_filter f;
    traza_filter_init(&f);
    traza_regex_cond rx = {"s", "^a", 0};
    f.regexes = &rx;
    f.nregexes = 1;
    f.stop = &st;
    traza_cursor *c = traza_query(t, &f, &w.err);
    assert_non_null(c);
    const traza_event *ev;
    for (int64_t id = 1; id <= 3; id++) {
        assert_int_equal(traza_cursor_next(c, &ev, &w.err), 1);
        assert_int_equal(ev->id, id);
    }
    assert_int_equal(traza_cursor_next(c, &ev, &w.err), -1);
    assert_int_equal(w.err.code, TRAZA_E_CANCELLED);
    assert_string_equal(w.err.msg, "the query was stopped after 4 events were read");
    assert_int_equal(sa.calls, 4);
    traza_cursor_free(c);
    sa.calls = 0;
    traza_scan *sc = traza_scan_open(t, &f, &w.err);
    assert_non_null(sc);
    traza_scan_batch b;
    assert_int_equal(traza_scan_next(sc, &b, &w.err), 1);
    assert_int_equal(b.n, 3);
    assert_int_equal(b.id[0], 1);
    assert_int_equal(b.id[2], 3);
    assert_int_equal(traza_scan_next(sc, &b, &w.err), -1);
    assert_int_equal(w.err.code, TRAZA_E_CANCELLED);
    traza_scan_free(sc);
    /* without a regex the stop is not consulted */
    f.nregexes = 0;
    sa.calls = 0;
    assert_int_equal(traza_count(t, &f, &w.err), 15);
    assert_int_equal(sa.calls, 0);
    traza_trace_close(t);
    tu_ws_close(&w);
}

/* Boundaries on exact values: pages of a regex selection, a window of one instant,
 * each comparison of a numeric and a string parameter. */
static void test_filter_boundaries(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    tu_sample_trace(&w, "tb", 100);
    traza_trace *t = traza_trace_open(w.ws, "tb", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    int64_t ids[256];
    traza_filter f;
    traza_filter_init(&f);
    /* the sample's ids follow time order: load 1 (ts 0), then irq i at 2 + 2i except
     * the msg (ts 5) at 5; the irqs of cpu1 are those of odd i */
    traza_regex_cond rx = {"producer", "cpu1$", 0};
    f.regexes = &rx;
    f.nregexes = 1;
    assert_int_equal(query_ids(t, &f, ids, 256, &w.err), 50);
    int64_t all[50];
    memcpy(all, ids, sizeof all);
    f.offset = 20;
    f.limit = 7;
    assert_int_equal(query_ids(t, &f, ids, 256, &w.err), 7);
    assert_memory_equal(ids, all + 20, 7 * sizeof *ids);
    f.offset = 45;
    f.limit = 10;
    assert_int_equal(query_ids(t, &f, ids, 256, &w.err), 5);
    assert_memory_equal(ids, all + 45, 5 * sizeof *ids);
    f.offset = 50;
    assert_int_equal(query_ids(t, &f, ids, 256, &w.err), 0);
    /* the irqs of cpu1 are at ts 10, 30, ...: the 21st (offset 20) at 410 */
    f.offset = 20;
    f.limit = 1;
    traza_cursor *c = traza_query(t, &f, &w.err);
    const traza_event *ev;
    assert_int_equal(traza_cursor_next(c, &ev, &w.err), 1);
    assert_int_equal(ev->ts, 410);
    assert_int_equal(ev->id, all[20]);
    traza_cursor_free(c);
    /* a window of one instant: the irq at 410 only; at 411 the run starting there */
    traza_filter_init(&f);
    f.has_from = f.has_to = 1;
    f.from = f.to = 410;
    assert_int_equal(query_ids(t, &f, ids, 256, &w.err), 1);
    assert_int_equal(ids[0], all[20]);
    assert_int_equal(traza_count(t, &f, &w.err), 1);
    f.from = f.to = 411;
    assert_int_equal(traza_count(t, &f, &w.err), 1);
    f.from = f.to = 412;
    assert_int_equal(traza_count(t, &f, &w.err), 0);
    f.overlap = 1; /* run [411, 416] and load [0, 100]? no: load ends at 100 */
    assert_int_equal(traza_count(t, &f, &w.err), 1);
    /* vector = i % 7 over i = 0..99 */
    traza_filter_init(&f);
    traza_param_cond pc = {"vector", TRAZA_LE, "3"};
    f.conds = &pc;
    f.nconds = 1;
    assert_int_equal(traza_count(t, &f, &w.err), 58);
    pc.op = TRAZA_LT;
    assert_int_equal(traza_count(t, &f, &w.err), 44);
    pc.op = TRAZA_GT;
    assert_int_equal(traza_count(t, &f, &w.err), 42);
    pc.op = TRAZA_NE;
    assert_int_equal(traza_count(t, &f, &w.err), 86);
    pc.op = TRAZA_EQ;
    assert_int_equal(traza_count(t, &f, &w.err), 14);
    pc.value = "6";
    pc.op = TRAZA_GT;
    assert_int_equal(traza_count(t, &f, &w.err), 0);
    pc.op = TRAZA_LT;
    pc.value = "0";
    assert_int_equal(traza_count(t, &f, &w.err), 0);
    traza_param_cond ps = {"who", TRAZA_NE, "uart"};
    f.conds = &ps;
    assert_int_equal(traza_count(t, &f, &w.err), 50);
    ps.op = TRAZA_LT; /* "timer" < "uart" */
    assert_int_equal(traza_count(t, &f, &w.err), 50);
    ps.op = TRAZA_LE;
    assert_int_equal(traza_count(t, &f, &w.err), 100);
    ps.op = TRAZA_GT;
    assert_int_equal(traza_count(t, &f, &w.err), 0);
    traza_trace_close(t);
    tu_ws_close(&w);
}

#ifndef TU_NO_MAIN /* tests/store/test_*_pg.c reuse the test bodies */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_and_order),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_results),
        cmocka_unit_test(test_catalogue_and_abort),
        cmocka_unit_test(test_replace),
        cmocka_unit_test(test_workspace_exists),
        cmocka_unit_test(test_time_parse),
        cmocka_unit_test(test_regex_limit_is_an_error),
        cmocka_unit_test(test_regex_stop_each_event),
        cmocka_unit_test(test_filter_boundaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
