/* KPTrace CSV importer: model, parameters by header name, errors that change nothing. */
#include "imputil.h"

static const char *good =
    "start,end,x1,x2,type,producer,producer2,cpu,size,name\n"
    "1,,a,b,irq,cpu0,,0,12,timer\n"
    "2,5,,,run,task1,,1,,\n"
    "3,4,,,msg,task1,task2,1,7,\n"
    "1500000,,,,irq,cpu0,,0,13,uart\n"
    "1500000\n"
    ;

static void test_model(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    /* The last line is truncated (only a timestamp): an error naming line 6. */
    iu_expect_fail(&w, "k0", good, "kptrace", NULL, "k0:6", "column 2", NULL);
    char *text = strdup(good);
    *strstr(text, "1500000\n") = '\0';
    traza_trace_info info;
    assert_int_equal(iu_import(&w, "k1", text, NULL, NULL, &info), 0); /* detected */
    free(text);
    assert_string_equal(info.format, "kptrace");
    assert_int_equal(info.events, 4);
    assert_int_equal(info.categories[TRAZA_PUNCTUAL], 2);
    assert_int_equal(info.categories[TRAZA_STATE], 1);
    assert_int_equal(info.categories[TRAZA_LINK], 1);
    assert_int_equal(info.producers, 3);
    assert_int_equal(info.event_types, 3);
    assert_int_equal(info.time_unit, -6); /* KPTrace counts microseconds */
    assert_int_equal(info.min_ts, 1);
    assert_int_equal(info.max_ts, 1500000);
    traza_trace_info_clear(&info);

    traza_trace *t = iu_open(&w, "k1");
    traza_event e;
    char v[64];
    iu_event_at(t, 0, &e, v, sizeof v, "size");
    assert_string_equal(v, "12");
    assert_int_equal(e.cpu, 0);
    iu_event_at(t, 0, &e, v, sizeof v, "name");
    assert_string_equal(v, "timer");
    iu_event_at(t, 1, &e, v, sizeof v, "size");
    assert_string_equal(v, ""); /* empty = absent */
    assert_int_equal(e.end_ts, 5);
    assert_int_equal(e.cpu, 1);
    iu_event_at(t, 2, &e, v, sizeof v, "size");
    assert_true(e.has & TRAZA_HAS_END_PRODUCER);
    assert_string_equal(traza_trace_producer(t, e.end_producer)->name, "task2");
    assert_string_equal(traza_trace_event_type(t, e.type)->name, "msg");
    assert_string_equal(v, "7");
    iu_event_at(t, 3, &e, v, sizeof v, "name");
    assert_string_equal(v, "uart");
    traza_trace_close(t);
    tu_ws_close(&w);
}

static void test_time_unit_override(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    /* --time-unit says what the integers count: 2500 ms, not 2500 us. */
    char *p = tu_write(w.dir, "u.csv", "start,end,a,b,type,producer,p2,cpu\n2500,2600,,,e,p,,\n");
    traza_import_opts o = {0};
    o.has_time_unit = 1;
    o.time_unit = -3;
    traza_trace_info info;
    assert_int_equal(traza_import(w.ws, (const char *const *)&p, 1, &o, &info, &w.err), 0);
    assert_int_equal(info.time_unit, -3);
    assert_int_equal(info.min_ts, 2500);
    assert_int_equal(info.max_ts, 2600);
    traza_trace_info_clear(&info);
    free(p);
    /* A fraction of the unit: an error, not a rounding. */
    p = tu_write(w.dir, "u2.csv", "start,end,a,b,type,producer,p2,cpu\n2.5,,,,e,p,,\n");
    o.name = "u2";
    assert_int_equal(traza_import(w.ws, (const char *const *)&p, 1, &o, &info, &w.err), -1);
    assert_err_contains(w.err, "u2.csv:2: column 1 (start): expected an integer count of 1e-3 s");
    free(p);
    tu_ws_close(&w);
}

#define HDR "start,end,a,b,type,producer,p2,cpu,size\n"

static void test_errors(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    /* One successful trace first: failures must leave it (and the catalogue) alone. */
    assert_int_equal(iu_import(&w, "ok", HDR "1,,,,e,p,,0,1\n", "kptrace", NULL, NULL), 0);
    iu_expect_fail(&w, "two_cats", HDR "1,,,,e,p,,0,1\n2,3,,,e,p,,0,1\n", "kptrace", NULL,
                   "two_cats:3", "event type 'e' is used here as a state event, but it was a punctual event before", NULL);
    iu_expect_fail(&w, "back", HDR "2,,,,e,p,,0,1\n1,,,,e,p,,0,1\n", "kptrace", NULL, "back:3", "time goes backwards", NULL);
    iu_expect_fail(&w, "badts", HDR "1x,,,,e,p,,0,1\n", "kptrace", NULL, "badts:2: column 1 (start): expected a timestamp, an integer count of 1e-6 s",
                   "found '1x'", NULL);
    iu_expect_fail(&w, "absurd", HDR "99999999999999999999,,,,e,p,,0,1\n", "kptrace", NULL, "absurd:2: column 1 (start)",
                   "fits in 64 bits", NULL);
    iu_expect_fail(&w, "cpu", HDR "1,,,,e,p,,-3,1\n", "kptrace", NULL, "cpu:2: column 8 (cpu): expected a CPU number", "found '-3'", NULL);
    iu_expect_fail(&w, "extra", HDR "1,,,,e,p,,0,1,zzz\n", "kptrace", NULL, "extra:2: column 10", "unknown extra column 'zzz'", NULL);
    iu_expect_fail(&w, "ptype", HDR "1,,,,e,p,,0,1\n2,,,,e,p,,0,abc\n", "kptrace", NULL, "ptype:3: column 9 (size): expected a int value",
                   "found 'abc'", NULL);
    iu_expect_fail(&w, "utf8", HDR "1,,,,e\xff,p,,0,1\n", "kptrace", NULL, "utf8:2", "invalid byte 0xff", NULL);
    static const char nul[] = HDR "1,,,,e,ta\0sk,,0,1\n";
    iu_expect_fail_msg(&w, "nul", nul, sizeof nul - 1, "kptrace", "nul:2: byte 10 of the line: expected text, found a NUL byte");
    iu_expect_fail(&w, "empty", "", "kptrace", NULL, "empty: empty file", NULL);
    iu_expect_fail(&w, "short_hdr", "a,b,c\n", "kptrace", NULL, "short_hdr:1: expected a header of at least 8 columns", NULL);
    iu_expect_fail(&w, "dup_hdr", "s,e,a,b,t,p,q,c,x,x\n", "kptrace", NULL, "parameter name 'x' is already column 9", NULL);
    iu_expect_fail(&w, "notype", HDR "1,,,,,p,,0,1\n", "kptrace", NULL, "notype:2: column 5 (type): expected an event type name", NULL);
    iu_expect_fail(&w, "endbefore", HDR "5,4,,,e,p,,0,1\n", "kptrace", NULL, "endbefore:2: column 2 (end)", NULL);
    iu_expect_fail(&w, "quote", HDR "1,,,,\"e,p,,0,1\n", "kptrace", NULL, "quote:2: column 5: expected a closing quote", NULL);
    traza_trace_info *list;
    size_t n;
    assert_int_equal(traza_workspace_list(w.ws, &list, &n, &w.err), 0);
    assert_int_equal(n, 1);
    traza_trace_info_array_free(list, n);
    tu_ws_close(&w);
}

/* A last line cut anywhere (no newline) is an error, never a shorter value. */
static void test_cut_last_line(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    iu_check_cuts(&w, "kptrace", HDR "1500000,,,,e,p,,0,1\n", "78592000,79500000,,,s,p2,,1,12", 1, 1500000, 79500000);
    tu_ws_close(&w);
}

/* The excerpt printed in the anomaly-detection work on KPTrace traces: no header,
 * system calls with their CPU then arguments, __switch_to as a link from the
 * previous to the next task, interrupts as states with their durations. */
static const char *paper =
    "266047,,,,sys_select,1036 (sshd),1,0x01a80e18,0x01a80dc8,0x00000000\n"
    "1018502,,,,__switch_to,0,1021 (flush-0:11),0\n"
    "1078487,,,,__switch_to,20 (kworker/0:1),0,0\n"
    "1092491,1092499,8,8,Interrupt,Interrupt 168 (GIC eth0),,0,,,,,\n"
    "1092501,1092581,80,80,SoftIRQ,SoftIRQ (net_rx_action),,0,,,,,\n";

static void test_paper_excerpt(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace_info info;
    if (iu_import(&w, "paper", paper, NULL, NULL, &info) < 0) /* detected */
        fail_msg("%s", w.err.msg);
    assert_string_equal(info.format, "kptrace");
    assert_int_equal(info.time_unit, -6);
    assert_int_equal(info.events, 5);
    assert_int_equal(info.categories[TRAZA_PUNCTUAL], 1);
    assert_int_equal(info.categories[TRAZA_LINK], 2);
    assert_int_equal(info.categories[TRAZA_STATE], 2);
    assert_int_equal(info.producers, 6);
    assert_int_equal(info.min_ts, 266047);
    assert_int_equal(info.max_ts, 1092581);
    traza_trace_info_clear(&info);
    traza_trace *t = iu_open(&w, "paper");
    traza_event e;
    char v[64];
    iu_event_at(t, 0, &e, v, sizeof v, "arg1");
    assert_string_equal(traza_trace_event_type(t, e.type)->name, "sys_select");
    assert_string_equal(traza_trace_producer(t, e.producer)->name, "1036 (sshd)");
    assert_int_equal(e.cpu, 1);
    assert_string_equal(v, "0x1a80e18");
    iu_event_at(t, 0, &e, v, sizeof v, "arg3");
    assert_string_equal(v, "0x0");
    iu_event_at(t, 1, &e, v, sizeof v, NULL);
    assert_string_equal(traza_trace_producer(t, e.producer)->name, "0");
    assert_string_equal(traza_trace_producer(t, e.end_producer)->name, "1021 (flush-0:11)");
    assert_int_equal(e.cpu, 0);
    iu_event_at(t, 3, &e, v, sizeof v, NULL);
    assert_string_equal(traza_trace_producer(t, e.producer)->name, "Interrupt 168 (GIC eth0)");
    assert_int_equal(e.ts, 1092491);
    assert_int_equal(e.end_ts, 1092499);
    assert_int_equal(e.nparams, 0);
    traza_trace_close(t);
    tu_ws_close(&w);
}

/* One bad line further on gives the KPTrace error, not a fall-back to generic CSV. */
static void test_bad_line_detected(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    char *bad = NULL;
    assert_true(asprintf(&bad, "%s1100000,,,,__switch_to,0,1021 (flush-0:11),x\n", paper) > 0);
    iu_expect_fail(&w, "badline", bad, NULL, NULL, "badline:6: column 8 (cpu): expected a CPU number", "found 'x'", NULL);
    free(bad);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model),
        cmocka_unit_test(test_time_unit_override),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_cut_last_line),
        cmocka_unit_test(test_paper_excerpt),
        cmocka_unit_test(test_bad_line_detected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
