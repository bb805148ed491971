/* trace-cmd importer: a damaged .dat gets an error naming the byte and changes
 * nothing in the workspace; the sample recordings import with their records' exact
 * timestamps. (t_tracecmd.sh compares whole files with `trace-cmd report`.) */
#include "imputil.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    char *b = malloc((size_t)n);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static char *sample(const char *rel, size_t *len)
{
    const char *d = tu_data_dir();
    if (!d)
        return NULL;
    char *p = NULL;
    assert_true(asprintf(&p, "%s/trace-cmd/%s", d, rel) > 0);
    char *b = access(p, R_OK) == 0 ? slurp(p, len) : NULL;
    free(p);
    return b;
}

static void test_damaged(void **state)
{
    (void)state;
    size_t len;
    char *dat = sample("wsdias-LabSisOp/sched_other_trace.dat", &len);
    TU_SKIP_NO_DATA(dat);
    tu_ws w;
    tu_ws_open(&w);
    assert_int_equal(len, 1224704);
    iu_expect_fail_msg(&w, "t_magic", "\x17\x08\x44traxing6", 11, "trace-cmd",
                       "t_magic: byte 6: expected the trace-cmd magic \"\\x17\\x08Dtracing\", found other bytes");
    iu_expect_fail_msg(&w, "t_ver", "\x17\x08\x44tracing9\0", 12, "trace-cmd",
                       "t_ver: byte 10: trace-cmd file version 9, expected 6 or 7");
    iu_expect_fail_msg(&w, "t_cut1", dat, 20, "trace-cmd",
                       "t_cut1: byte 18: expected the section name 'header_page' (12 bytes), found the end of the file (20 bytes)");
    iu_expect_fail_msg(&w, "t_cut2", dat, 5000, "trace-cmd",
                       "t_cut2: byte 4312: an ftrace event format of 694 bytes runs past the end of the file (5000 bytes)");
    /* cut inside the CPU data: libtracecmd itself would crash on this one */
    iu_expect_fail_msg(&w, "t_cut3", dat, 1000000, "trace-cmd",
                       "t_cut3: byte 914840: the data of CPU 0 (bytes 917504..1224704) runs past the end of the file (1000000 bytes)");
    char *bad = malloc(len);
    assert_non_null(bad);
    memcpy(bad, dat, len);
    memcpy(bad + 914830, "flyrecorX", 9);
    iu_expect_fail_msg(&w, "t_sect", bad, len, "trace-cmd",
                       "t_sect: byte 914830: expected the section name 'options', 'latency' or 'flyrecord', found other bytes");
    /* a page header counting more event bytes than the page holds: libtracecmd fails
     * to load it and then crashes closing the file */
    memcpy(bad, dat, len);
    memcpy(bad + 917504 + 8, "\xff\xff\xff\x00", 4);
    iu_expect_fail_msg(&w, "t_page", bad, len, "trace-cmd",
                       "t_page: byte 917512: page 0 of CPU 0 counts 16777215 bytes of events, more than the 4084 it holds");
    free(bad);
    free(dat);
    tu_ws_close(&w);
}

static void test_samples(void **state)
{
    (void)state;
    size_t len;
    char *dat = sample("TGVM-tutorial3LabSisop/trace.dat", &len);
    TU_SKIP_NO_DATA(dat);
    tu_ws w;
    tu_ws_open(&w);
    traza_trace_info info;
    /* detected by its magic */
    assert_int_equal(iu_import_n(&w, "sw", dat, len, NULL, NULL, &info), 0);
    assert_string_equal(info.format, "trace-cmd");
    assert_int_equal(info.events, 102);
    assert_int_equal(info.categories[TRAZA_STATE], 102);
    assert_int_equal(info.time_unit, -9);
    /* trace-cmd report -t: the first switch at 585.229563745, the last record at 595.143089974 */
    assert_int_equal(info.min_ts, 585229563745);
    assert_int_equal(info.max_ts, 595143089974);
    traza_trace_info_clear(&info);
    traza_trace *t = iu_open(&w, "sw");
    traza_event e;
    char v[64];
    /* "trace-cmd:90 [120] S ==> trace-cmd:91 [120]": 91 runs until the next switch */
    iu_event_at(t, 0, &e, v, sizeof v, "comm");
    assert_string_equal(v, "trace-cmd");
    assert_int_equal(e.ts, 585229563745);
    assert_int_equal(e.end_ts, 585231358235);
    assert_int_equal(e.cpu, 0);
    iu_event_at(t, 0, &e, v, sizeof v, "pid");
    assert_string_equal(v, "91");
    iu_event_at(t, 0, &e, v, sizeof v, "prev_pid");
    assert_string_equal(v, "90");
    traza_trace_close(t);
    free(dat);

    dat = sample("wsdias-LabSisOp/sched_other_trace.dat", &len);
    assert_non_null(dat);
    assert_int_equal(iu_import_n(&w, "fn", dat, len, NULL, NULL, &info), 0);
    assert_int_equal(info.events, 15127);
    assert_int_equal(info.categories[TRAZA_PUNCTUAL], 15127);
    traza_trace_info_clear(&info);
    t = iu_open(&w, "fn");
    /* "sh-79 [000] 48.242462021: function: switch_mm_irqs_off <-- __schedule" */
    iu_event_at(t, 0, &e, v, sizeof v, "func");
    assert_string_equal(v, "switch_mm_irqs_off");
    assert_int_equal(e.ts, 48242462021);
    iu_event_at(t, 0, &e, v, sizeof v, "parent");
    assert_string_equal(v, "__schedule");
    iu_event_at(t, 0, &e, v, sizeof v, "parent_ip");
    assert_string_equal(v, "0xc699a65a");
    assert_string_equal(traza_trace_producer(t, e.producer)->name, "sh (79)");
    traza_trace_close(t);
    free(dat);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_damaged),
        cmocka_unit_test(test_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
