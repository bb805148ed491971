/* Times as people give them (traza_time_parse_in): with a unit from the trace's
 * start, raw ticks and "@" values absolute, --absolute (the `absolute` flag) for
 * times with a unit. */
#include "testutil.h"

static void check(const traza_trace_info *info, const char *text, int absolute, int64_t want)
{
    traza_err err;
    traza_err_clear(&err);
    int64_t v = -1;
    if (traza_time_parse_in(info, text, absolute, &v, &err) < 0)
        fail_msg("'%s': %s", text, err.msg);
    if (v != want)
        fail_msg("'%s' (absolute %d): %lld, expected %lld", text, absolute, (long long)v, (long long)want);
}

static void test_relative_and_absolute(void **state)
{
    (void)state;
    traza_trace_info info = {0};
    info.time_unit = -9;
    info.min_ts = 1571261795523067504LL; /* an LTTng trace's start, epoch ns */
    check(&info, "1s", 0, 1571261796523067504LL);
    check(&info, "+1.5ms", 0, 1571261795524567504LL);
    check(&info, "-10us", 0, 1571261795523057504LL);
    check(&info, "0s", 0, 1571261795523067504LL);
    check(&info, "1571261796553000000", 0, 1571261796553000000LL); /* raw ticks */
    check(&info, "@1571261796.553s", 0, 1571261796553000000LL);
    check(&info, "@42", 0, 42);
    check(&info, "2s", 1, 2000000000LL); /* --absolute */
    info.min_ts = 0;
    check(&info, "1s", 0, 1000000000LL);
}

static void test_errors(void **state)
{
    (void)state;
    traza_trace_info info = {0};
    info.time_unit = -9;
    info.min_ts = INT64_MAX - 10;
    traza_err err;
    traza_err_clear(&err);
    int64_t v;
    assert_int_equal(traza_time_parse_in(&info, "1s", 0, &v, &err), -1);
    assert_err_contains(err, "out of range from the trace's start");
    assert_int_equal(traza_time_parse_in(&info, "@1parsec", 0, &v, &err), -1);
    assert_err_contains(err, "unknown unit 'parsec'");
    assert_int_equal(traza_time_parse_in(&info, "ms", 0, &v, &err), -1);
    assert_err_contains(err, "expected a number");
}

static void test_format_exact(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(traza_time_format_exact(1571261795523067504LL, -9, b, sizeof b), "1571261795.523067504 s");
    assert_string_equal(traza_time_format_exact(-1500, -3, b, sizeof b), "-1.500 s");
    assert_string_equal(traza_time_format_exact(7, -6, b, sizeof b), "0.000007 s");
    assert_string_equal(traza_time_format_exact(INT64_MIN, -9, b, sizeof b), "-9223372036.854775808 s");
    assert_string_equal(traza_time_format_exact(42, 0, b, sizeof b), "42 s");
    assert_string_equal(traza_time_format_exact(42, 3, b, sizeof b), "42000 s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relative_and_absolute),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_format_exact),
    };
    return cmocka_run_group_tests_name("time", tests, NULL, NULL);
}
