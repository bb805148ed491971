/* The statistics, density, filter-tool and export tests of test_stats.c on the
 * PostgreSQL backend. Needs TRAZA_PG_URI (set by tests/run.sh); skips visibly without. */
#define TU_NO_MAIN
#include "test_stats.c"

static void test_pg_unavailable(void **state)
{
    (void)state;
    print_message("[  SKIPPED ] PostgreSQL stats tests: TRAZA_PG_URI is not set\n");
    skip();
}

int main(void)
{
    if (!tu_pg_init()) {
        const struct CMUnitTest none[] = {cmocka_unit_test(test_pg_unavailable)};
        return cmocka_run_group_tests(none, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_density),
        cmocka_unit_test(test_filter_tools),
        cmocka_unit_test(test_export_csv),
        cmocka_unit_test(test_svg),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
