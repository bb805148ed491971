/* PC-trace importer: layouts, hex/decimal, time columns, errors. */
#include "imputil.h"

static void test_layouts(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace_info info;
    char v[64];
    traza_event e;
    /* Bare fixed-width hex (as probes dump it): "00010400" is hex, not decimal. */
    assert_int_equal(iu_import(&w, "bare", "000103fc\n00010400\n00010404\n", NULL, NULL, &info), 0);
    assert_string_equal(info.format, "pc");
    assert_int_equal(info.events, 3);
    assert_int_equal(info.max_ts, 2); /* the instruction index */
    traza_trace_info_clear(&info);
    traza_trace *t = iu_open(&w, "bare");
    iu_event_at(t, 1, &e, v, sizeof v, "addr");
    assert_string_equal(v, "0x10400");
    assert_string_equal(traza_trace_event_type(t, e.type)->name, "instr");
    assert_string_equal(traza_trace_producer(t, e.producer)->name, "core0");
    traza_trace_close(t);

    /* Decimal addresses. */
    assert_int_equal(iu_import(&w, "dec", "100\n104\n108\n", "pc", NULL, &info), 0);
    traza_trace_info_clear(&info);
    t = iu_open(&w, "dec");
    iu_event_at(t, 2, &e, v, sizeof v, "addr");
    assert_string_equal(v, "0x6c");
    traza_trace_close(t);
    /* ...unless forced. */
    assert_int_equal(iu_import(&w, "dech", "100\n104\n", "pc", "base=hex", &info), 0);
    traza_trace_info_clear(&info);
    t = iu_open(&w, "dech");
    iu_event_at(t, 1, &e, v, sizeof v, "addr");
    assert_string_equal(v, "0x104");
    traza_trace_close(t);

    /* Keil-like CSV: time in seconds, quoted disassembly with commas. */
    assert_int_equal(iu_import(&w, "keil",
                               "time,address,instruction\n"
                               "0.000000000,0x00000080,\"ldr r0, [pc, #0xcc]\"\n"
                               "0.000000032,0x00000082,\"mov sp, r0\"\n",
                               NULL, NULL, &info),
                     0);
    assert_string_equal(info.format, "pc");
    assert_int_equal(info.time_unit, -9);
    assert_int_equal(info.max_ts, 32);
    traza_trace_info_clear(&info);
    t = iu_open(&w, "keil");
    iu_event_at(t, 0, &e, v, sizeof v, "disasm");
    assert_string_equal(v, "ldr r0, [pc, #0xcc]");
    iu_event_at(t, 1, &e, v, sizeof v, "addr");
    assert_string_equal(v, "0x82");
    traza_trace_close(t);

    /* Headerless time,address with picosecond decimals -> ps unit. */
    assert_int_equal(iu_import(&w, "ps", "0.000000000001,80\n0.000000000002,84\n", "pc", NULL, &info), 0);
    assert_int_equal(info.time_unit, -12);
    assert_int_equal(info.max_ts, 2);
    traza_trace_info_clear(&info);
    /* Columns named in another order. */
    assert_int_equal(iu_import(&w, "order", "pc;ts\n0x10;5\n0x14;7\n", "pc", NULL, &info), 0);
    assert_int_equal(info.min_ts, 5);
    traza_trace_info_clear(&info);
    tu_ws_close(&w);
}

static void test_errors(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    iu_expect_fail(&w, "badhex", "0x10\n0x1g\n", "pc", NULL, "badhex:2: column 1 (address): expected a hexadecimal address", "found '0x1g'", NULL);
    /* The base is decided on the first 2000 lines; a hex digit later is an error. */
    char *dec = malloc(2100 * 4 + 8);
    assert_non_null(dec);
    for (int i = 0; i < 2100; i++)
        memcpy(dec + 4 * i, "100\n", 4);
    strcpy(dec + 2100 * 4, "abc\n");
    iu_expect_fail(&w, "decthenhex", dec, "pc", NULL, "decthenhex:2101", "try base=hex in the map", NULL);
    free(dec);
    iu_expect_fail(&w, "back", "time,address\n5,0x10\n4,0x14\n", "pc", NULL, "back:3: column 1 (time): time goes backwards", NULL);
    iu_expect_fail(&w, "short", "time,address\n5,0x10\n6\n", "pc", NULL, "short:3: column 2", "too few fields", NULL);
    iu_expect_fail(&w, "extra", "time,address\n5,0x10,zz\n", "pc", NULL, "extra:2: column 3", "found 'zz'", NULL);
    iu_expect_fail(&w, "hdr", "time,address,foo\n", "pc", NULL, "hdr:1: column 3: expected a column name", NULL);
    iu_expect_fail(&w, "empty", "", "pc", NULL, "expected at least one instruction", NULL);
    iu_expect_fail(&w, "huge", "0x1234567890abcdef12\n", "pc", NULL, "huge:1", "hexadecimal address (up to 16 digits)", NULL);
    iu_expect_fail(&w, "utf", "time,address,instruction\n1,0x10,\"mov \xc3\x28\"\n", "pc", NULL, "utf:2", "invalid byte", NULL);
    iu_expect_fail(&w, "map", "0x10\n", "pc", "base=oct", "base=hex or base=dec", NULL);
    traza_trace_info *list;
    size_t n;
    assert_int_equal(traza_workspace_list(w.ws, &list, &n, &w.err), 0);
    assert_int_equal(n, 0);
    traza_trace_info_array_free(list, n);
    tu_ws_close(&w);
}

/* A last line cut anywhere (no newline) is an error, never a shorter value. */
static void test_cut_last_line(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    iu_check_cuts(&w, "pc", "time,address,instruction\n1.000000,0x10,nop\n", "78592000.000000,0x14,\"ldr r0, [pc]\"", 1,
                  1000000000, 78592000000000000);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_cut_last_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
