/* Statistics, density, the filter and producer-activity tools, CSV export, SVG. */
#include "sample_trace.h"

static traza_trace *open_sample(tu_ws *w, int n, int flags)
{
    tu_sample_trace(w, "s", n);
    traza_trace *t = traza_trace_open(w->ws, "s", flags, &w->err);
    assert_non_null(t);
    return t;
}

static void test_stats(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace *t = open_sample(&w, 10, TRAZA_OPEN_READ);
    traza_stats st;
    assert_int_equal(traza_stats_compute(t, NULL, &st, &w.err), 0);
    assert_int_equal(st.total, 22);
    int32_t run = traza_trace_event_type_by_name(t, "run")->id, load = traza_trace_event_type_by_name(t, "load")->id;
    assert_int_equal(st.types[run].count, 10);
    assert_int_equal(st.types[run].duration, 50);
    assert_int_equal(st.types[load].duration, 100);
    int32_t c1 = traza_trace_producer_find(t, "cpu1")->id;
    assert_int_equal(st.producers[c1].count, 5);
    traza_stats_free(&st);
    /* clipped to [3, 22]: runs 1-6 (3 of it), 11-16 (5), 21-26 (1) = 9; load 19; link 5..25 -> 17 */
    traza_filter f;
    traza_filter_init(&f);
    f.has_from = f.has_to = 1;
    f.from = 3;
    f.to = 22;
    assert_int_equal(traza_stats_compute(t, &f, &st, &w.err), 0);
    assert_int_equal(st.types[run].count, 3);
    assert_int_equal(st.types[run].duration, 9);
    assert_int_equal(st.types[load].duration, 19);
    assert_int_equal(st.types[traza_trace_event_type_by_name(t, "msg")->id].duration, 17);
    traza_stats_free(&st);
    traza_trace_close(t);
    tu_ws_close(&w);
}

static void test_density(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace *t = open_sample(&w, 10, TRAZA_OPEN_READ);
    uint64_t c[4];
    int64_t from, to;
    /* span 0..100 -> 4 slices of 101/4 ticks: [0,24] [25,49] [50,74] [75,100] */
    assert_int_equal(traza_density(t, NULL, 4, c, &from, &to, &w.err), 0);
    assert_int_equal(from, 0);
    assert_int_equal(to, 100);
    /* ts: irq 0..90 step 10, run 1..91, msg 5, load 0 */
    assert_int_equal(c[0], 3 + 3 + 2); /* irq 0,10,20; run 1,11,21; msg 5; load 0 */
    assert_int_equal(c[0] + c[1] + c[2] + c[3], 22);
    /* with a type filter (scan path) the same total for that type */
    traza_filter f;
    traza_filter_init(&f);
    int32_t irq = traza_trace_event_type_by_name(t, "irq")->id;
    f.types = &irq;
    f.ntypes = 1;
    assert_int_equal(traza_density(t, &f, 4, c, &from, &to, &w.err), 0);
    assert_int_equal(c[0], 3);
    assert_int_equal(c[1], 2);
    assert_int_equal(c[0] + c[1] + c[2] + c[3], 10);
    assert_int_equal(traza_density(t, NULL, 0, c, &from, &to, &w.err), -1);
    traza_trace_close(t);
    tu_ws_close(&w);
}

static void test_filter_tools(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace *t = open_sample(&w, 10, TRAZA_OPEN_WRITE);
    traza_filter f;
    traza_filter_init(&f);
    int32_t irq = traza_trace_event_type_by_name(t, "irq")->id;
    f.types = &irq;
    f.ntypes = 1;
    traza_result_meta m = {"irqs", "filter", NULL, 0, NULL};
    int64_t n = 0;
    int64_t r = traza_filter_save(t, &f, 0, 0, &m, &n, &w.err);
    assert_true(r > 0);
    assert_int_equal(n, 10);
    traza_result_meta m2 = {"not-irqs", "filter", NULL, 0, NULL};
    assert_true(traza_filter_save(t, &f, 1, 0, &m2, &n, &w.err) > 0);
    assert_int_equal(n, 12);
    traza_result_meta m3 = {"irq-producers", "filter", NULL, 0, NULL};
    assert_true(traza_filter_save(t, &f, 0, 1, &m3, &n, &w.err) > 0);
    assert_int_equal(n, 2); /* cpu0, cpu1 */
    traza_result_meta m4 = {"non-irq-producers", "filter", NULL, 0, NULL};
    assert_true(traza_filter_save(t, &f, 1, 1, &m4, &n, &w.err) > 0);
    assert_int_equal(n, 2); /* root (load), cpu0 (run, msg) */
    /* activity: in [31, 39] only run 31..36 on cpu0 and load on root are active */
    traza_result_meta m5 = {"active", "producer-activity", NULL, 0, NULL};
    assert_true(traza_producer_activity_save(t, 31, 39, 0, &m5, &n, &w.err) > 0);
    assert_int_equal(n, 2);
    int32_t *ids;
    size_t k;
    traza_result_info ri;
    assert_int_equal(traza_result_find(t, "active", &ri, &w.err), 0);
    assert_int_equal(traza_result_producers(t, ri.id, &ids, &k, &w.err), 0);
    assert_int_equal(k, 2);
    assert_string_equal(traza_trace_producer(t, ids[0])->name, "root");
    assert_string_equal(traza_trace_producer(t, ids[1])->name, "cpu0");
    free(ids);
    traza_result_info_clear(&ri);
    traza_result_meta m6 = {"idle", "producer-activity", NULL, 0, NULL};
    assert_true(traza_producer_activity_save(t, 31, 39, 1, &m6, &n, &w.err) > 0);
    assert_int_equal(n, 1);
    /* the same through the registry, as `traza run filter` does */
    const traza_tool *tool = traza_registry_find(traza_ctx_registry(w.ctx), "filter");
    assert_non_null(tool);
    const char *keys[] = {"name", "type", "from", "to"};
    const char *vals[] = {"tool-irqs", "irq", "20us", "50"};
    traza_tool_args args = {4, keys, vals};
    traza_tool_call call = {w.ctx, w.ws, "s", &args, 0, NULL, NULL, NULL};
    traza_trace_close(t);
    assert_int_equal(traza_tool_run(tool, &call, &w.err), 0);
    t = traza_trace_open(w.ws, "s", TRAZA_OPEN_READ, &w.err);
    assert_int_equal(traza_result_find(t, "tool-irqs", &ri, &w.err), 0);
    assert_int_equal(ri.size, 4); /* irq at 20, 30, 40, 50 */
    assert_string_equal(ri.tool, "filter");
    traza_result_info_clear(&ri);
    const char *bk[] = {"nosuch"};
    const char *bv[] = {"1"};
    traza_tool_args bad = {1, bk, bv};
    call.args = &bad;
    assert_int_equal(traza_tool_run(tool, &call, &w.err), -1);
    assert_err_contains(w.err, "has no option '--nosuch'");
    traza_trace_close(t);
    tu_ws_close(&w);
}

static void test_export_csv(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace *t = open_sample(&w, 2, TRAZA_OPEN_READ);
    char *path = NULL;
    assert_true(asprintf(&path, "%s/out.csv", w.dir) > 0);
    assert_int_equal(traza_export(t, "csv", NULL, path, &w.err), 0);
    char *data;
    size_t len;
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    data = calloc(1, 65536);
    len = fread(data, 1, 65535, f);
    fclose(f);
    assert_true(len > 0);
    const char *expect =
        "id,ts,end_ts,type,category,producer,end_producer,level,value,cpu,params\n"
        "1,0,,irq,punctual,root/cpu0,,,,0,vector=0;who=timer;addr=0x8000\n" /* ties keep arrival order */
        "2,0,100,load,variable,root,,,0.75,,\n"
        "3,1,6,run,state,root/cpu0,,0,,,\n"
        "4,5,25,msg,link,root/cpu0,root/cpu1,,,,\n"
        "5,10,,irq,punctual,root/cpu1,,,,1,vector=1;who=uart;addr=0x8001\n"
        "6,11,16,run,state,root/cpu0,,0,,,\n";
    assert_string_equal(data, expect);
    free(data);
    assert_int_equal(traza_export(t, "nosuch", NULL, path, &w.err), -1);
    assert_err_contains(w.err, "unknown export format 'nosuch'");
    free(path);
    traza_trace_close(t);
    tu_ws_close(&w);
}

static void test_svg(void **state)
{
    (void)state;
    char a[8], b[8];
    traza_color_for("irq", a);
    traza_color_for("irq", b);
    assert_string_equal(a, b);
    traza_color_for("run", b);
    assert_string_not_equal(a, b);
    traza_chart_item items[] = {{"a<b", 3, NULL}, {"c", 1, "#123456"}, {"tiny", 0.001, NULL}};
    char *svg = traza_svg_pie("t&t", items, 3);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_non_null(strstr(svg, "a&lt;b"));
    assert_non_null(strstr(svg, "t&amp;t"));
    assert_non_null(strstr(svg, "75.0%"));
    assert_non_null(strstr(svg, "#123456"));
    assert_non_null(strstr(svg, "other (&lt; 1% each)"));
    free(svg);
    uint64_t c[3] = {1, 5, 2};
    svg = traza_svg_histogram("h", c, 3, 0, 30, "ms");
    assert_non_null(svg);
    assert_non_null(strstr(svg, "<title>5</title>"));
    free(svg);
}

#ifndef TU_NO_MAIN /* tests/store/test_*_pg.c reuse the test bodies */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_density),
        cmocka_unit_test(test_filter_tools),
        cmocka_unit_test(test_export_csv),
        cmocka_unit_test(test_svg),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
