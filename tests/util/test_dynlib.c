/* Optional libraries opened on first use (src/util/dynlib.c): a missing library or
 * symbol is reported with the feature, the file and the package; a present one fills
 * the table with the addresses the dynamic linker gives. */
#include "testutil.h"

#include <dlfcn.h>
#include <zlib.h>

#include "util/dynlib.h"

static void test_missing_library(void **state)
{
    (void)state;
    static const char *const names[] = {"nothing"};
    tz_fn table[1] = {0};
    tz_dynlib l = {"libtraza-no-such-library.so.9", "libnothing9", "Imaginary features", names, 1, table, 0, {0}};
    tz_dynlib_open(&l);
    traza_err err = {0};
    assert_int_equal(tz_dynlib_status(&l, &err), -1);
    assert_int_equal(err.code, TRAZA_E_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "Imaginary features: libtraza-no-such-library.so.9 (Debian package libnothing9) could not be loaded"));
    assert_non_null(strstr(err.msg, "cannot open shared object file"));
    assert_null(table[0]);
}

static void test_missing_symbol(void **state)
{
    (void)state;
    static const char *const names[] = {"zlibVersion", "no_such_function_in_zlib"};
    tz_fn table[2] = {0, 0};
    tz_dynlib l = {"libz.so.1", "zlib1g", "Compression", names, 2, table, 0, {0}};
    tz_dynlib_open(&l);
    traza_err err = {0};
    assert_int_equal(tz_dynlib_status(&l, &err), -1);
    assert_non_null(strstr(err.msg, "libz.so.1: no symbol no_such_function_in_zlib"));
}

/* A table declared the way pg_api.h declares libpq's, over zlib. */
#define TZ_ZT_FUNCS(X) X(zlibVersion) X(crc32)
TZ_DYNLIB_DECLARE(zt, TZ_ZT_FUNCS)
TZ_DYNLIB_DEFINE(zt, TZ_ZT_FUNCS, "libz.so.1", "zlib1g", "The test")

static void test_table(void **state)
{
    (void)state;
    traza_err err = {0};
    assert_int_equal(tz_zt_load(&err), 0);
    const tz_zt_api *z = tz_zt_api_get();
    /* the same functions as the ones linked into this test */
    assert_string_equal(z->zlibVersion(), zlibVersion());
    const unsigned char b[] = "123456789";
    assert_int_equal(z->crc32(0, b, 9), 0xcbf43926u);
    assert_ptr_equal((void *)z, (void *)tz_zt_api_get()); /* loaded once */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_library),
        cmocka_unit_test(test_missing_symbol),
        cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
