/* Whole-buffer I/O (src/util/fdio.c): tz_fwrite_all writes what a stream already
 * holds first, then the buffer, in order, to a file (straight to its descriptor) and to
 * a stream without one (fmemopen); a write error comes back as -1. */
#include "testutil.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

/* The bytes of f, read back from its start. */
static size_t read_back(FILE *f, char *buf, size_t cap)
{
    assert_int_equal(fflush(f), 0);
    rewind(f);
    return fread(buf, 1, cap, f);
}

static void test_file_order(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    /* 10000 bytes: more than stdio's buffer, so a plain fwrite would have split them */
    static char big[10000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (char)('a' + i % 26);
    fputs("head:", f); /* still in the stream's buffer when tz_fwrite_all runs */
    assert_int_equal(tz_fwrite_all(f, big, sizeof big), 0);
    fputs(":tail", f);
    static char got[20000];
    size_t n = read_back(f, got, sizeof got);
    assert_int_equal(n, 5 + sizeof big + 5);
    assert_memory_equal(got, "head:", 5);
    assert_memory_equal(got + 5, big, sizeof big);
    assert_memory_equal(got + 5 + sizeof big, ":tail", 5);
    fclose(f);
}

static void test_no_descriptor(void **state)
{
    (void)state;
    char mem[64] = {0};
    FILE *f = fmemopen(mem, sizeof mem, "w");
    assert_non_null(f);
    assert_true(fileno(f) < 0);
    fputs("ab", f);
    assert_int_equal(tz_fwrite_all(f, "cdef", 4), 0);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(mem, "abcdef");
}

static void test_write_error(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        skip(); /* (no /dev/full here) */
    errno = 0;
    assert_int_equal(tz_fwrite_all(f, "x", 1), -1);
    assert_int_equal(errno, ENOSPC);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_order),
        cmocka_unit_test(test_no_descriptor),
        cmocka_unit_test(test_write_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
