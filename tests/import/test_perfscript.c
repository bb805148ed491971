/* perf script importer: samples on their threads, the period as value, the call
 * chain as parameters; errors naming the line; a cut last line refused. */
#include "imputil.h"

static const char *text =
    "# ========\n"
    "# hostname : box\n"
    "# event : name = cycles, type = 0, { sample_period, sample_freq } = 4000, sample_type = IP|TID\n"
    "# ========\n"
    "#\n"
    "Web Content 12/13 [002] 5.000000001: cycles: \n"
    "\t    7f00000010 leaf_fn+0x4 (/usr/lib/libx.so)\n"
    "\t        401000 operator()(int) (/usr/bin/app (deleted))\n"
    "\t        400500 [unknown] ([unknown])\n"
    "\n"
    "kworker/0:1 7 [000] 5.5: 250 instructions: \n"
    "\tffffffff81000000 schedule ([kernel.kallsyms])\n"
    "\n"
    "app 13 6.000002: cycles:  401000 main (/usr/bin/app)\n";

static void test_model(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace_info info;
    assert_int_equal(iu_import(&w, "p", text, NULL, NULL, &info), 0); /* detected */
    assert_string_equal(info.format, "perf-script");
    assert_int_equal(info.events, 3);
    assert_int_equal(info.categories[TRAZA_PUNCTUAL], 3);
    assert_int_equal(info.event_types, 2);
    assert_int_equal(info.time_unit, -9);
    assert_int_equal(info.min_ts, 5000000001);
    assert_int_equal(info.max_ts, 6000002000);
    int host = 0;
    for (size_t i = 0; i < info.nparams; i++)
        if (strcmp(info.params[i].key, "perf_hostname") == 0 && strcmp(info.params[i].value, "box") == 0)
            host = 1;
    assert_true(host);
    traza_trace_info_clear(&info);

    traza_trace *t = iu_open(&w, "p");
    traza_event e;
    char v[256];
    iu_event_at(t, 0, &e, v, sizeof v, "stack");
    assert_string_equal(v, "[unknown];operator()(int);leaf_fn+0x4");
    assert_int_equal(e.ts, 5000000001);
    assert_int_equal(e.cpu, 2);
    assert_true(e.has & TRAZA_HAS_VALUE); /* the period of "# event : name = cycles" */
    assert_true(e.value == 4000.0);
    const traza_producer *th = traza_trace_producer(t, e.producer);
    assert_string_equal(th->name, "tid 13");
    assert_string_equal(traza_trace_producer(t, th->parent)->name, "Web Content (12)");
    iu_event_at(t, 0, &e, v, sizeof v, "ip");
    assert_string_equal(v, "0x7f00000010");
    iu_event_at(t, 0, &e, v, sizeof v, "dso");
    assert_string_equal(v, "/usr/lib/libx.so");
    iu_event_at(t, 0, &e, v, sizeof v, "depth");
    assert_string_equal(v, "3");
    /* the period on the line wins */
    iu_event_at(t, 1, &e, v, sizeof v, "period");
    assert_string_equal(v, "250");
    assert_true(e.value == 250.0);
    assert_int_equal(e.ts, 5500000000);
    assert_string_equal(traza_trace_event_type(t, e.type)->name, "instructions");
    /* no call chain: the address on the sample line is the one frame; no CPU */
    iu_event_at(t, 2, &e, v, sizeof v, "stack");
    assert_string_equal(v, "main");
    assert_false(e.has & TRAZA_HAS_CPU);
    assert_string_equal(traza_trace_producer(t, e.producer)->name, "tid 13");
    assert_string_equal(traza_trace_producer(t, traza_trace_producer(t, e.producer)->parent)->name, "app (13)");
    traza_trace_close(t);
    tu_ws_close(&w);
}

static void test_errors(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    static const struct {
        const char *name, *text, *msg;
    } bad[] = {
        {"e1", "\t401000 main (/usr/bin/app)\n",
         "e1:1: a stack frame outside a sample: expected a sample line 'COMM PID [CPU] TIME: EVENT:' first, found '\t401000 main (/usr/bin/app)'"},
        {"e2", "app 13 [000] 1.5: cycles:\n\tzz main (/usr/bin/app)\n",
         "e2:2: expected a stack frame 'ADDR SYMBOL (DSO)' with a hexadecimal address, found '\tzz main (/usr/bin/app)'"},
        {"e3", "# x\napp 13 [000] 1.5 cycles:\n",
         "e3:2: expected a sample line 'COMM PID[/TID] [CPU] SECONDS.FRACTION: EVENT:', found 'app 13 [000] 1.5 cycles:'"},
        {"e4", "app x [000] 1.5: cycles:\n", "e4:1: expected a thread id 'TID' or 'PID/TID' before the time, found 'app x [000] 1.5: cycles:'"},
        {"e5", "app 1 [000] 1.0000000001: cycles:\n",
         "e5:1: expected a time in seconds with at most 9 decimals, found 'app 1 [000] 1.0000000001: cycles:'"},
        {"e6", "# only a header\n", "e6: no sample line ('COMM PID [CPU] TIME: EVENT:') in the file"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        iu_expect_fail_msg(&w, bad[i].name, bad[i].text, strlen(bad[i].text), "perf-script", bad[i].msg);
    /* a file cut inside its last line */
    iu_check_cuts(&w, "perf-script", "app 13 [000] 1.5: cycles:\n\t401000 main (/usr/bin/app)\n\n", "app 13 [000] 2.25: cycles:", 1,
                  1500000000, 2250000000);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
