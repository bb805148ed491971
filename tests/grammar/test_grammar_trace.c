/* traza grammar compress --trace: a stored trace as its sequence of event types. */
#include "testutil.h"
#include "traza/grammar.h"

static void test_trace_input(void **state)
{
    (void)state;
    const char *bin = getenv("TRAZA");
    if (!bin) {
        print_message("[  SKIPPED ] TRAZA is not set (run through tests/run.sh)\n");
        skip();
    }
    tu_ws w;
    tu_ws_open(&w);
    traza_writer *wr = traza_writer_begin(w.ws, "t", "test", &w.err);
    assert_non_null(wr);
    int32_t p0 = traza_writer_producer(wr, -1, "cpu0", "Core", &w.err);
    int32_t p1 = traza_writer_producer(wr, -1, "cpu1", "Core", &w.err);
    int32_t ty[4];
    const char *names[4] = {"a", "b", "c", "d"};
    for (int k = 0; k < 4; k++)
        ty[k] = traza_writer_event_type(wr, names[k], TRAZA_PUNCTUAL, &w.err);
    /* cpu0: the paper's cabcabcabcabcad; cpu1: noise */
    const char *seq = "cabcabcabcabcad";
    for (int i = 0; seq[i]; i++) {
        traza_event e = {0};
        e.ts = i * 10;
        e.type = ty[seq[i] - 'a'];
        e.producer = p0;
        assert_int_equal(traza_writer_event(wr, &e, &w.err), 0);
        e.ts = i * 10 + 5;
        e.type = ty[3];
        e.producer = p1;
        assert_int_equal(traza_writer_event(wr, &e, &w.err), 0);
    }
    assert_int_equal(traza_writer_commit(wr, NULL, &w.err), 0);
    char cmd[8192], out[4096];
    snprintf(cmd, sizeof cmd, "%s -w %s grammar compress --trace t --producer cpu0 -o %s/t.tzg --json", bin, w.dir,
             w.dir);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    assert_int_equal(pclose(f), 0);
    if (!strstr(out, "\"size\": 14") || !strstr(out, "\"length\": 15"))
        fail_msg("unexpected: %s", out);
    /* show prints the event type names stored in the .tzg (the trace is not needed) */
    snprintf(cmd, sizeof cmd, "%s grammar show %s/t.tzg", bin, w.dir);
    f = popen(cmd, "r");
    n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    assert_int_equal(pclose(f), 0);
    if (!strstr(out, "-> c a    [2]") || !strstr(out, " d    [15]"))
        fail_msg("unexpected show output: %s", out);
    snprintf(cmd, sizeof cmd, "%s grammar show --json %s/t.tzg", bin, w.dir);
    f = popen(cmd, "r");
    n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    assert_int_equal(pclose(f), 0);
    if (!strstr(out, "\"body\": [\"c\", \"a\"]"))
        fail_msg("unexpected show --json output: %s", out);
    snprintf(cmd, sizeof cmd, "%s -w %s grammar compress --trace t -o %s/u.tzg --json", bin, w.dir, w.dir);
    f = popen(cmd, "r");
    n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    assert_int_equal(pclose(f), 0);
    if (!strstr(out, "\"length\": 30"))
        fail_msg("unexpected: %s", out);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_trace_input)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
