/* Call stacks of LTTng cyg-profile entries and exits (src/import/ctf_cyg.c), written
 * through a writer: an exit by address closing the calls opened inside it, the fast
 * provider's exits without address, an exit without its entry, calls never exited,
 * two threads kept apart, and the provider names. */
#include "testutil.h"
#include "import/ctf_cyg.h"

static void test_kind(void **state)
{
    (void)state;
    assert_int_equal(tz_cyg_kind("lttng_ust_cyg_profile:func_entry"), TZ_CYG_ENTRY);
    assert_int_equal(tz_cyg_kind("lttng_ust_cyg_profile_fast:func_exit"), TZ_CYG_EXIT);
    assert_int_equal(tz_cyg_kind("lttng_ust_cyg_profile:func_exit"), TZ_CYG_EXIT);
    assert_int_equal(tz_cyg_kind("lttng_ust_cyg_profile_fast:func_entry"), TZ_CYG_ENTRY);
    assert_int_equal(tz_cyg_kind("lttng_ust_cyg_profile:other"), TZ_CYG_NONE);
    assert_int_equal(tz_cyg_kind("sched_switch"), TZ_CYG_NONE);
    assert_int_equal(tz_cyg_kind("lttng_ust_cyg_profile"), TZ_CYG_NONE);
}

static void test_calls(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_writer *wr = traza_writer_begin(w.ws, "cyg", "ctf", &w.err);
    assert_non_null(wr);
    int32_t p = traza_writer_producer(wr, -1, "tid 1", "Thread", &w.err);
    int32_t q = traza_writer_producer(wr, -1, "tid 2", "Thread", &w.err);
    tz_cyg *g = tz_cyg_new(wr, "t", NULL, NULL, &w.err);
    assert_non_null(g);
    static const struct { int kind; int thread; int64_t ts; int has_addr; uint64_t addr; } in[] = {
        {TZ_CYG_ENTRY, 1, 10, 1, 0xa},
        {TZ_CYG_ENTRY, 1, 20, 1, 0xb},
        {TZ_CYG_ENTRY, 2, 22, 1, 0xf}, /* another thread: its own stack */
        {TZ_CYG_EXIT, 1, 30, 1, 0xa},  /* closes 0xb (its exit not recorded) and 0xa */
        {TZ_CYG_EXIT, 1, 35, 1, 0xc},  /* nothing open: no entry */
        {TZ_CYG_ENTRY, 1, 40, 1, 0xc},
        {TZ_CYG_EXIT, 1, 50, 0, 0},    /* the fast provider: the innermost call */
        {TZ_CYG_ENTRY, 1, 60, 1, 0xd}, /* never exited */
        {TZ_CYG_ENTRY, 1, 65, 1, 0xe},
        {TZ_CYG_EXIT, 1, 70, 1, 0xe},
        {TZ_CYG_EXIT, 2, 80, 1, 0xf},
    };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        if (tz_cyg_event(g, in[i].kind, in[i].thread == 1 ? p : q, in[i].ts, in[i].has_addr, in[i].addr) < 0)
            fail_msg("%s", w.err.msg);
    assert_int_equal(tz_cyg_finish(g), 0);
    assert_int_equal(tz_cyg_calls(g), 6);
    assert_int_equal(tz_cyg_unended(g), 2);
    assert_int_equal(tz_cyg_unmatched_exits(g), 1);
    tz_cyg_free(g);
    traza_trace_info info;
    if (traza_writer_commit(wr, &info, &w.err) < 0)
        fail_msg("%s", w.err.msg);
    traza_trace *t = traza_trace_open(w.ws, info.name, TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    traza_filter f;
    traza_filter_init(&f);
    f.with_params = 1;
    traza_cursor *c = traza_query(t, &f, &w.err);
    assert_non_null(c);
    const traza_event *ev;
    /* in time order: name, thread, start, end, level */
    static const struct { const char *name; int thread; int64_t s, e; int level; } want[] = {
        {"0xa", 1, 10, 30, 0}, {"0xb", 1, 20, 30, 1}, {"0xf", 2, 22, 80, 0},
        {"0xc", 1, 40, 50, 0}, {"0xd", 1, 60, 70, 0}, {"0xe", 1, 65, 70, 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(traza_cursor_next(c, &ev, &w.err), 1);
        assert_string_equal(traza_trace_event_type(t, ev->type)->name, want[i].name);
        assert_int_equal(traza_trace_event_type(t, ev->type)->category, TRAZA_STATE);
        assert_int_equal(ev->producer, want[i].thread == 1 ? p : q);
        assert_int_equal(ev->ts, want[i].s);
        assert_int_equal(ev->end_ts, want[i].e);
        assert_int_equal(ev->level, want[i].level);
        assert_int_equal(ev->nparams, 1);
        assert_string_equal(traza_trace_param_def(t, ev->params[0].def)->name, "addr");
        assert_int_equal(ev->params[0].v.i, (int64_t)strtoll(want[i].name + 2, NULL, 16));
    }
    assert_int_equal(traza_cursor_next(c, &ev, &w.err), 0);
    traza_cursor_free(c);
    traza_trace_close(t);
    traza_trace_info_clear(&info);
    tu_ws_close(&w);
}

static void test_not_elf(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    char *d = tu_tmpdir();
    char *p = tu_write(d, "x.elf", "not an ELF file");
    traza_writer *wr = traza_writer_begin(w.ws, "cyg", "ctf", &w.err);
    assert_non_null(wr);
    assert_null(tz_cyg_new(wr, "t", NULL, p, &w.err));
    assert_non_null(strstr(w.err.msg, "x.elf: not an ELF file with function symbols"));
    traza_writer_abort(wr);
    free(p);
    tu_rmdir(d);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind),
        cmocka_unit_test(test_calls),
        cmocka_unit_test(test_not_elf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
