/* Generic CSV importer: column maps by number and by header name, separators,
 * quotes, categories, typed parameters, errors. */
#include "imputil.h"

static void test_maps(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace_info info;
    traza_event e;
    char v[64];
    /* A headerless layout (end, end producer, cpu, a hex parameter), out of time order. */
    assert_int_equal(iu_import(&w, "num",
                               "30,,x,y,irq,cpu0,,1,0x1f\n"
                               "10,20,x,y,run,task,,0,\n"
                               "15,25,x,y,msg,task,cpu0,0,\n",
                               "csv", "ts=0,end=1,type=4,producer=5,end_producer=6,cpu=7,param:addr:hex=8", &info),
                     0);
    assert_int_equal(info.events, 3);
    assert_int_equal(info.categories[TRAZA_STATE], 1);
    assert_int_equal(info.categories[TRAZA_LINK], 1);
    assert_int_equal(info.categories[TRAZA_PUNCTUAL], 1);
    assert_int_equal(info.min_ts, 10);
    traza_trace_info_clear(&info);
    traza_trace *t = iu_open(&w, "num");
    iu_event_at(t, 2, &e, v, sizeof v, "addr");
    assert_string_equal(v, "0x1f");
    assert_int_equal(e.ts, 30);
    assert_int_equal(e.cpu, 1);
    traza_trace_close(t);

    /* Header names in the map, ';' separator, quoted fields, a category column and a value. */
    assert_int_equal(iu_import(&w, "names",
                               "when;what;who;kind;v;note\n"
                               "1;\"load;avg\";\"core \"\"A\"\"\";variable;0.5;\"hello, world\"\n"
                               "2;tick;core B;punctual;;\n",
                               "csv", "ts=when,type=what,producer=who,category=kind,value=v,param:note=note", &info),
                     0);
    assert_int_equal(info.categories[TRAZA_VARIABLE], 1);
    traza_trace_info_clear(&info);
    t = iu_open(&w, "names");
    iu_event_at(t, 0, &e, v, sizeof v, "note");
    assert_string_equal(v, "hello, world");
    assert_string_equal(traza_trace_event_type(t, e.type)->name, "load;avg");
    assert_string_equal(traza_trace_producer(t, e.producer)->name, "core \"A\"");
    assert_true(e.value == 0.5);
    traza_trace_close(t);

    /* Tab separator, seconds converted exactly with tsunit=0. */
    assert_int_equal(iu_import(&w, "tab", "1.25\te\tp\n2\te\tp\n", "csv", "ts=0,type=1,producer=2,tsunit=0", &info), 0);
    assert_int_equal(info.min_ts, 1250000000);
    assert_int_equal(info.max_ts, 2000000000);
    traza_trace_info_clear(&info);

    /* A header that is its own map (what traza gen writes); other columns are params. */
    assert_int_equal(iu_import(&w, "auto", "ts,end,type,producer,bytes\n5,9,dma,ch0,128\n7,,irq,ch1,\n", NULL, NULL, &info), 0);
    assert_string_equal(info.format, "csv");
    assert_int_equal(info.categories[TRAZA_STATE], 1);
    traza_trace_info_clear(&info);
    t = iu_open(&w, "auto");
    iu_event_at(t, 0, &e, v, sizeof v, "bytes");
    assert_string_equal(v, "128");
    traza_trace_close(t);
    tu_ws_close(&w);
}

/* A state whose end equals its start (zero length) is a state, with that end. */
static void test_zero_length_state(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace_info info;
    assert_int_equal(iu_import(&w, "zero", "ts,end,type,producer\n5,5,s,p\n7,9,s,p\n", "csv", NULL, &info), 0);
    assert_int_equal(info.events, 2);
    assert_int_equal(info.categories[TRAZA_STATE], 2);
    traza_trace_info_clear(&info);
    traza_trace *t = iu_open(&w, "zero");
    traza_event e;
    iu_event_at(t, 0, &e, NULL, 0, NULL);
    assert_int_equal(e.ts, 5);
    assert_true(e.has & TRAZA_HAS_END);
    assert_int_equal(e.end_ts, 5);
    iu_event_at(t, 1, &e, NULL, 0, NULL);
    assert_int_equal(e.ts, 7);
    assert_int_equal(e.end_ts, 9);
    traza_trace_close(t);
    tu_ws_close(&w);
}

static void test_errors(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    const char *m = "ts=0,type=1,producer=2,param:n:int=3";
    iu_expect_fail(&w, "unknownkey", "1,e,p,3\n", "csv", "ts=0,type=1,producer=2,colour=3", "unknown key 'colour'", NULL);
    iu_expect_fail(&w, "required", "1,e,p,3\n", "csv", "ts=0,type=1", "'producer' is required", NULL);
    iu_expect_fail(&w, "noname", "a,b,c\n1,e,p\n", "csv", "ts=a,type=b,producer=zz", "no column named 'zz'", NULL);
    iu_expect_fail(&w, "badint", "1,e,p,3\n2,e,p,x3\n", "csv", m, "badint:2: column 4 (n): expected a int value", "found 'x3'", NULL);
    iu_expect_fail(&w, "badts", "1,e,p,3\n2e,e,p,3\n", "csv", m, "badts:2: column 1 (ts): expected a number", NULL);
    iu_expect_fail(&w, "short", "1,e,p,3\n2,e\n", "csv", m, "short:2: column 3 (producer)", "too few fields", NULL);
    iu_expect_fail(&w, "twocat", "1,,e,p\n2,3,e,p\n", "csv", "ts=0,end=1,type=2,producer=3", "twocat:2", "used here as a state event", NULL);
    iu_expect_fail(&w, "precise", "1.5,e,p\n", "csv", "ts=0,type=1,producer=2", "precise:1: column 1 (ts): expected no more precision", NULL);
    iu_expect_fail(&w, "absurd", "123456789012345678901234,e,p\n", "csv", "ts=0,type=1,producer=2", "absurd:1", "fits in 64 bits", NULL);
    iu_expect_fail(&w, "cat", "1,e,p,blob\n", "csv", "ts=0,type=1,producer=2,category=3", "cat:1: column 4 (category)", "found 'blob'", NULL);
    iu_expect_fail(&w, "nomap", "a,b\n1,2\n", "csv", NULL, "does not name the columns ts, type and producer", NULL);
    iu_expect_fail(&w, "extra", "ts,type,producer\n1,e,p,zz\n", "csv", NULL, "extra:2: column 4", "unknown extra column 'zz'", NULL);
    iu_expect_fail(&w, "utf8", "1,e\xc0,p\n", "csv", "ts=0,type=1,producer=2", "utf8:1", "invalid byte 0xc0", NULL);
    static const char nul[] = "ts,type,producer\n1,e,ta\0sk\n";
    iu_expect_fail_msg(&w, "nul", nul, sizeof nul - 1, "csv", "nul:2: byte 7 of the line: expected text, found a NUL byte");
    static const char nulhdr[] = "ts,ty\0pe,producer\n1,e,p\n";
    iu_expect_fail_msg(&w, "nulhdr", nulhdr, sizeof nulhdr - 1, "csv", "nulhdr:1: byte 6 of the line: expected text, found a NUL byte");
    iu_expect_fail(&w, "value", "1,e,p,nan\n", "csv", "ts=0,type=1,producer=2,value=3", "value:1: column 4 (value): expected a finite number", NULL);
    traza_trace_info *list;
    size_t n;
    assert_int_equal(traza_workspace_list(w.ws, &list, &n, &w.err), 0);
    assert_int_equal(n, 0);
    traza_trace_info_array_free(list, n);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_maps),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_zero_length_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
