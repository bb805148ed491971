/* Chrome trace-event JSON: importer (phases, producers, nesting, errors, shared
 * catapult samples) and exporter (structure, round trip). */
#include "testutil.h"

#include <jansson.h>

static traza_trace_info import_text(tu_ws *w, const char *name, const char *json)
{
    char *p = tu_write(w->dir, name, json);
    traza_import_opts o = {0};
    o.format = "chrome";
    traza_trace_info info;
    const char *paths[1] = {p};
    if (traza_import(w->ws, paths, 1, &o, &info, &w->err) < 0)
        fail_msg("import %s: %s", name, w->err.msg);
    free(p);
    return info;
}

static const char small[] =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"app\"}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"main\"}},\n"
    "{\"ph\":\"B\",\"name\":\"outer\",\"cat\":\"c1\",\"pid\":1,\"tid\":2,\"ts\":10,\"args\":{\"n\":3,\"s\":\"x\"}},\n"
    "{\"ph\":\"X\",\"name\":\"inner\",\"pid\":1,\"tid\":2,\"ts\":12,\"dur\":2.5},\n"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":20,\"args\":{\"r\":1.5}},\n"
    "{\"ph\":\"i\",\"name\":\"tick\",\"pid\":1,\"tid\":3,\"ts\":15,\"s\":\"t\"},\n"
    "{\"ph\":\"I\",\"name\":\"everywhere\",\"ts\":16,\"s\":\"g\"},\n"
    "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":10,\"args\":{\"heap\":100,\"stack\":7}},\n"
    "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":18,\"args\":{\"heap\":150}},\n"
    "{\"ph\":\"s\",\"name\":\"post\",\"cat\":\"task\",\"id\":\"0x1\",\"pid\":1,\"tid\":2,\"ts\":11},\n"
    "{\"ph\":\"f\",\"name\":\"post\",\"cat\":\"task\",\"id\":\"0x1\",\"pid\":1,\"tid\":3,\"ts\":17},\n"
    "{\"ph\":\"S\",\"name\":\"load\",\"cat\":\"net\",\"id\":5,\"pid\":1,\"tid\":2,\"ts\":12},\n"
    "{\"ph\":\"T\",\"name\":\"load\",\"cat\":\"net\",\"id\":5,\"pid\":1,\"tid\":2,\"ts\":13,\"args\":{\"step\":\"a\"}},\n"
    "{\"ph\":\"F\",\"name\":\"load\",\"cat\":\"net\",\"id\":5,\"pid\":1,\"tid\":3,\"ts\":19},\n"
    "{\"ph\":\"P\",\"name\":\"sample\",\"pid\":1,\"tid\":2,\"ts\":14},\n"
    "{\"ph\":\"O\",\"name\":\"obj\",\"pid\":1,\"tid\":2,\"ts\":14,\"id\":\"0x2\"}\n"
    "],\"displayTimeUnit\":\"ms\"}\n";

static void test_phases(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace_info info = import_text(&w, "small.json", small);
    assert_string_equal(info.format, "chrome");
    assert_int_equal(info.time_unit, -9);
    assert_int_equal(info.categories[TRAZA_STATE], 2);
    assert_int_equal(info.categories[TRAZA_PUNCTUAL], 4); /* i, I, T, P */
    assert_int_equal(info.categories[TRAZA_VARIABLE], 3); /* heap x2, stack */
    assert_int_equal(info.categories[TRAZA_LINK], 2);     /* s->f, S->F */
    assert_int_equal(info.min_ts, 10000);
    assert_int_equal(info.max_ts, 20000);
    traza_trace *t = traza_trace_open(w.ws, "small", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    assert_non_null(traza_trace_producer_find(t, "app (1)/main (2)"));
    assert_non_null(traza_trace_producer_find(t, "app (1)/tid 3"));
    assert_non_null(traza_trace_producer_find(t, "global"));
    assert_non_null(traza_trace_event_type_by_name(t, "mem.heap"));
    assert_non_null(traza_trace_event_type_by_name(t, "mem.stack"));
    assert_int_equal(traza_trace_event_type_by_name(t, "load")->category, TRAZA_PUNCTUAL); /* the T step came first */
    assert_int_equal(traza_trace_event_type_by_name(t, "load [link]")->category, TRAZA_LINK);
    /* states: outer level 0 with B and E args, inner level 1 with 2.5 us */
    traza_filter f;
    traza_filter_init(&f);
    f.categories = 1u << TRAZA_STATE;
    f.with_params = 1;
    traza_cursor *c = traza_query(t, &f, &w.err);
    const traza_event *ev;
    assert_int_equal(traza_cursor_next(c, &ev, &w.err), 1);
    assert_string_equal(traza_trace_event_type(t, ev->type)->name, "outer");
    assert_int_equal(ev->level, 0);
    assert_int_equal(ev->end_ts, 20000);
    assert_int_equal(ev->nparams, 4); /* cat, n, s, r */
    assert_int_equal(traza_cursor_next(c, &ev, &w.err), 1);
    assert_string_equal(traza_trace_event_type(t, ev->type)->name, "inner");
    assert_int_equal(ev->level, 1);
    assert_int_equal(ev->ts, 12000);
    assert_int_equal(ev->end_ts, 14500);
    traza_cursor_free(c);
    /* variables hold until the next sample of their series, the last to the end */
    f.categories = 1u << TRAZA_VARIABLE;
    f.with_params = 0;
    c = traza_query(t, &f, &w.err);
    int n = 0;
    while (traza_cursor_next(c, &ev, &w.err) > 0) {
        const char *name = traza_trace_event_type(t, ev->type)->name;
        if (strcmp(name, "mem.heap") == 0 && ev->ts == 10000) {
            assert_int_equal(ev->end_ts, 18000);
            assert_true(ev->value == 100.0);
        } else {
            assert_int_equal(ev->end_ts, 20000);
        }
        n++;
    }
    assert_int_equal(n, 3);
    traza_cursor_free(c);
    /* links go from the start thread to the end thread */
    f.categories = 1u << TRAZA_LINK;
    c = traza_query(t, &f, &w.err);
    assert_int_equal(traza_cursor_next(c, &ev, &w.err), 1);
    assert_string_equal(traza_trace_event_type(t, ev->type)->name, "post");
    char buf[256];
    assert_string_equal(traza_trace_producer_path(t, ev->producer, buf, sizeof buf), "app (1)/main (2)");
    assert_string_equal(traza_trace_producer_path(t, ev->end_producer, buf, sizeof buf), "app (1)/tid 3");
    assert_int_equal(ev->end_ts, 17000);
    traza_cursor_free(c);
    traza_trace_close(t);
    traza_trace_info_clear(&info);
    tu_ws_close(&w);
}

/* Nested B/B/E/E on one thread: each E closes the innermost open slice, so the outer
 * slice ends at the last E and the inner one at the first. */
static void test_nested_begin_end(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace_info info = import_text(&w, "nest",
                                        "{\"traceEvents\":["
                                        "{\"ph\":\"B\",\"name\":\"outer\",\"ts\":1,\"pid\":1,\"tid\":1},"
                                        "{\"ph\":\"B\",\"name\":\"inner\",\"ts\":2,\"pid\":1,\"tid\":1},"
                                        "{\"ph\":\"E\",\"ts\":3,\"pid\":1,\"tid\":1},"
                                        "{\"ph\":\"E\",\"ts\":10,\"pid\":1,\"tid\":1}]}\n");
    assert_int_equal(info.events, 2);
    assert_int_equal(info.max_ts, 10000);
    traza_trace_info_clear(&info);
    traza_trace *t = traza_trace_open(w.ws, "nest", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    traza_filter f;
    traza_filter_init(&f);
    traza_cursor *c = traza_query(t, &f, &w.err);
    assert_non_null(c);
    const traza_event *ev;
    assert_int_equal(traza_cursor_next(c, &ev, &w.err), 1);
    assert_string_equal(traza_trace_event_type(t, ev->type)->name, "outer");
    assert_int_equal(ev->ts, 1000);
    assert_int_equal(ev->end_ts, 10000);
    assert_int_equal(ev->level, 0);
    assert_int_equal(traza_cursor_next(c, &ev, &w.err), 1);
    assert_string_equal(traza_trace_event_type(t, ev->type)->name, "inner");
    assert_int_equal(ev->ts, 2000);
    assert_int_equal(ev->end_ts, 3000);
    assert_int_equal(ev->level, 1);
    assert_int_equal(traza_cursor_next(c, &ev, &w.err), 0);
    traza_cursor_free(c);
    traza_trace_close(t);
    tu_ws_close(&w);
}

static void test_unclosed_array_and_detect(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    char *p = tu_write(w.dir, "cut.json", "[{\"ph\":\"B\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1},\n"
                                          "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":2},\n");
    const traza_importer *imp = traza_importer_detect(p, &w.err);
    assert_non_null(imp);
    assert_string_equal(imp->name, "chrome");
    traza_trace_info info;
    const char *paths[1] = {p};
    assert_int_equal(traza_import(w.ws, paths, 1, NULL, &info, &w.err), 0);
    assert_int_equal(info.events, 1);
    traza_trace_info_clear(&info);
    free(p);
    tu_ws_close(&w);
}

static void expect_error(const char *json, const char *sub)
{
    tu_ws w;
    tu_ws_open(&w);
    char *p = tu_write(w.dir, "bad.json", json);
    traza_import_opts o = {0};
    o.format = "chrome";
    traza_trace_info info;
    const char *paths[1] = {p};
    assert_int_equal(traza_import(w.ws, paths, 1, &o, &info, &w.err), -1);
    assert_err_contains(w.err, sub);
    size_t n;
    traza_trace_info *list;
    assert_int_equal(traza_workspace_list(w.ws, &list, &n, &w.err), 0);
    assert_int_equal(n, 0); /* nothing half-imported */
    traza_trace_info_array_free(list, n);
    free(p);
    tu_ws_close(&w);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("{\"traceEvents\": [\n  {\"ph\":\"B\",\n   \"ts\": 1,,}\n]}", "bad.json:3:");
    expect_error("{\"traceEvents\": [\n  {\"ph\":\"B\",\n   \"ts\": 1,,}\n]}", "invalid JSON");
    expect_error("{\"other\": []}", "\"traceEvents\"");
    expect_error("{\"traceEvents\": 3}", "expected \"traceEvents\" to be an array, found an integer");
    expect_error("[{\"ph\":\"B\",\"ts\":1}, 7]", "event #1: expected an object, found an integer");
    expect_error("[{\"name\":\"x\",\"ts\":1}]", "event #0: expected 'ph'");
    expect_error("[{\"ph\":\"X\",\"name\":\"x\",\"ts\":\"soon\"}]", "event #0 (ph 'X', name 'x'): expected 'ts'");
    expect_error("[{\"ph\":\"X\",\"name\":\"x\",\"ts\":1,\"dur\":-4}]", "'dur' as a non-negative number");
    expect_error("\"just a string\"", "invalid JSON");
}

/* Per-category counts of the catapult samples (MANIFEST.md phases: states = X + B,
 * punctual = i + I + R + T, variables = C series samples, links = matched s/f and S/F). */
static void test_catapult(void **state)
{
    (void)state;
    const char *data = tu_data_dir();
    TU_SKIP_NO_DATA(data);
    static const struct {
        const char *file;
        int64_t punctual, st, link, var;
    } cases[] = {
        {"simple_trace.json", 9, 12, 0, 5},         /* I 6 + P 3; B 8 + X 4; C 5; M 3 name producers */
        {"x_event_trace.json", 187, 3241, 53, 42},  /* i 59 + T 124 + N 2 + D 2; X 2799 + B 442; S/F 53; C 42 */
        {"big_trace.json", 0, 933, 0, 0},           /* B/E 933 */
        {"flow.json", 0, 1625, 846, 0},             /* B 1625 (3 unended); s 866 of which 846 end in an f */
        {"webview.json.gz", 89, 8609, 5, 0},        /* I 14 + R 73 + N 2; X 8041 + B 568; S/F 5; O 14 without numbers */
        {"chromeos_system_trace.json", 0, 0, 0, 444}, /* O 12, 37 numbers each (t_chrome_objects.sh) */
    };
    tu_ws w;
    tu_ws_open(&w);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/catapult/tracing-test_data/%s", data, cases[i].file);
        const traza_importer *imp = traza_importer_detect(path, &w.err);
        if (!imp)
            fail_msg("%s: %s", cases[i].file, w.err.msg);
        assert_string_equal(imp->name, "chrome");
        traza_trace_info info;
        const char *paths[1] = {path};
        if (traza_import(w.ws, paths, 1, NULL, &info, &w.err) < 0)
            fail_msg("%s: %s", cases[i].file, w.err.msg);
        if (info.categories[TRAZA_PUNCTUAL] != cases[i].punctual || info.categories[TRAZA_STATE] != cases[i].st ||
            info.categories[TRAZA_LINK] != cases[i].link || info.categories[TRAZA_VARIABLE] != cases[i].var)
            fail_msg("%s: got punctual %lld state %lld link %lld variable %lld", cases[i].file, (long long)info.categories[0],
                     (long long)info.categories[1], (long long)info.categories[2], (long long)info.categories[3]);
        traza_trace_info_clear(&info);
    }
    tu_ws_close(&w);
}

/* Export, check the JSON structure against the stored trace, re-import, compare. */
static void roundtrip(tu_ws *w, const char *trace)
{
    traza_trace *t = traza_trace_open(w->ws, trace, TRAZA_OPEN_READ, &w->err);
    assert_non_null(t);
    const traza_trace_info *src = traza_trace_info_of(t);
    char *out = NULL;
    assert_true(asprintf(&out, "%s/%s-out.json", w->dir, trace) > 0);
    if (traza_export(t, "chrome", NULL, out, &w->err) < 0)
        fail_msg("export: %s", w->err.msg);
    json_error_t je;
    json_t *root = json_load_file(out, 0, &je);
    if (!root)
        fail_msg("exported JSON does not parse: %d:%d %s", je.line, je.column, je.text);
    json_t *evs = json_object_get(root, "traceEvents");
    assert_true(json_is_array(evs));
    int64_t nx = 0, ni = 0, nc = 0, ns = 0, nf = 0, nm = 0;
    size_t i;
    json_t *e;
    json_array_foreach(evs, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        assert_non_null(ph);
        json_t *pid = json_object_get(e, "pid");
        assert_true(!pid || json_is_integer(pid)); /* no pid: the "global" producer */
        if (strcmp(ph, "M") == 0) {
            nm++;
            continue;
        }
        assert_true(json_is_number(json_object_get(e, "ts")));
        assert_true(json_is_string(json_object_get(e, "name")));
        if (strcmp(ph, "X") == 0) {
            nx++;
            assert_true(json_is_number(json_object_get(e, "dur")));
        } else if (strcmp(ph, "i") == 0) {
            ni++;
        } else if (strcmp(ph, "C") == 0) {
            nc++;
            assert_int_equal(json_object_size(json_object_get(e, "args")), 1);
        } else if (strcmp(ph, "s") == 0) {
            ns++;
            assert_non_null(json_object_get(e, "id"));
        } else if (strcmp(ph, "f") == 0) {
            nf++;
        } else {
            fail_msg("unexpected phase %s", ph);
        }
    }
    if (strcmp(trace, "small") == 0)
        assert_int_equal(nm, 2); /* process_name app, thread_name main */
    assert_int_equal(nx, src->categories[TRAZA_STATE]);
    assert_int_equal(ni, src->categories[TRAZA_PUNCTUAL]);
    assert_int_equal(nc, src->categories[TRAZA_VARIABLE]);
    assert_int_equal(ns, src->categories[TRAZA_LINK]);
    assert_int_equal(nf, src->categories[TRAZA_LINK]);
    json_decref(root);
    traza_import_opts o = {0};
    char *name = NULL;
    assert_true(asprintf(&name, "%s-again", trace) > 0);
    o.name = name;
    traza_trace_info again;
    const char *paths[1] = {out};
    if (traza_import(w->ws, paths, 1, &o, &again, &w->err) < 0)
        fail_msg("re-import: %s", w->err.msg);
    for (int k = 0; k < TRAZA_NCATEGORIES; k++)
        assert_int_equal(again.categories[k], src->categories[k]);
    assert_int_equal(again.producers, src->producers);
    assert_int_equal(again.min_ts, 0); /* written from the trace start */
    assert_int_equal(again.max_ts, src->max_ts - src->min_ts);
    traza_trace_info_clear(&again);
    traza_trace_close(t);
    free(name);
    free(out);
}

static void test_export_roundtrip(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace_info info = import_text(&w, "small.json", small);
    traza_trace_info_clear(&info);
    roundtrip(&w, "small");
    const char *data = tu_data_dir();
    if (data) {
        const char *files[] = {"x_event_trace.json", "flow.json"};
        for (int k = 0; k < 2; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/catapult/tracing-test_data/%s", data, files[k]);
            const char *paths[1] = {path};
            traza_trace_info i2;
            assert_int_equal(traza_import(w.ws, paths, 1, NULL, &i2, &w.err), 0);
            roundtrip(&w, i2.name);
            traza_trace_info_clear(&i2);
        }
    } else {
        print_message("[  SKIPPED ] catapult round trips: ../shared/data is absent\n");
    }
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phases),
        cmocka_unit_test(test_nested_begin_end),
        cmocka_unit_test(test_unclosed_array_and_detect),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_catapult),
        cmocka_unit_test(test_export_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
