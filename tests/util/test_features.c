/* The optional features (src/util/features.c): their list, and the error a feature
 * left out of a build gives (the test programs are built with every library, so every
 * feature is built in here; tests/cli/t_build_flags.sh checks a build without them). */
#include "testutil.h"

#include "util/features.h"

static void test_list(void **state)
{
    (void)state;
    static const char *const names[] = {"postgresql", "ctf", "etm", "trace-cmd"};
    traza_feature f;
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(traza_feature_get(i, &f), 0);
        assert_string_equal(f.name, names[i]);
        assert_int_equal(f.built, 1);
    }
    assert_int_equal(traza_feature_get(4, &f), -1);
    assert_int_equal(traza_feature_get((size_t)-1, &f), -1);
}

static void test_missing_message(void **state)
{
    (void)state;
    traza_err err = {0};
    assert_int_equal(tz_feature_missing_at(&err, "snap/TC2", TZ_FEATURE_ETM), -1);
    assert_int_equal(err.code, TRAZA_E_UNSUPPORTED);
    assert_string_equal(err.msg, "snap/TC2: CoreSight ETM traces: this build of traza was made without OpenCSD (Debian package libopencsd-dev)");
    assert_int_equal(tz_feature_missing_at(&err, NULL, TZ_FEATURE_PG), -1);
    assert_string_equal(err.msg, "PostgreSQL workspaces: this build of traza was made without libpq (Debian package libpq-dev)");
    assert_int_equal(tz_feature_missing_at(&err, "x.dat", TZ_FEATURE_TRACECMD), -1);
    assert_string_equal(err.msg, "x.dat: trace-cmd .dat files: this build of traza was made without libtracecmd and libtraceevent "
                                 "(Debian packages libtracecmd-dev libtraceevent-dev libtracefs-dev)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_missing_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
