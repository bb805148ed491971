/* tz_input (src/util/input.c): plain, xz, zstd and gzip files read back to the same
 * bytes in reads of any size; a plain file is mapped only when nothing was read past
 * the first buffer, which holds just the first 4 KiB (RAW_FIRST). A zstd input used
 * to fail ("truncated") once its frame had ended in a read that also returned text. */
#include "testutil.h"
#include "util/input.h"

/* A file of n pseudo-random text bytes under dir; its contents in *data. */
static char *make_file(const char *dir, const char *name, size_t n, char **data)
{
    char *path = malloc(strlen(dir) + strlen(name) + 2);
    assert_non_null(path);
    sprintf(path, "%s/%s", dir, name);
    char *d = malloc(n + 1);
    assert_non_null(d);
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        d[i] = i % 61 == 60 ? '\n' : "0123456789abcdef clk R X0"[x % 25];
    }
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(d, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    *data = d;
    return path;
}

/* Reads the whole input in reads of `step` bytes and compares with want[0..n). */
static void read_all(const char *path, size_t step, const char *want, size_t n)
{
    traza_err err;
    tz_input *in = tz_input_open(path, &err);
    assert_non_null(in);
    char *got = malloc(n + step);
    assert_non_null(got);
    size_t len = 0;
    long k;
    while ((k = tz_input_read(in, got + len, step, &err)) > 0) {
        len += (size_t)k;
        assert_true(len <= n);
    }
    if (k < 0)
        fail_msg("%s: %s", path, err.msg);
    assert_int_equal(len, n);
    assert_memory_equal(got, want, n);
    free(got);
    tz_input_close(in);
}

static void test_plain_reads(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    static const size_t sizes[] = {0, 1, 4095, 4096, 4097, 131072, 300001};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        char *data, *path = make_file(dir, "p.txt", sizes[s], &data);
        for (size_t step = 1; step <= 1u << 20; step *= 37)
            if (sizes[s] < 20000 || step > 100)
                read_all(path, step, data, sizes[s]);
        free(data);
        free(path);
    }
    tu_rmdir(dir);
}

static void test_map(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *data, *path = make_file(dir, "m.txt", 200000, &data);
    traza_err err;
    /* opened and not read: mapped, the whole file */
    tz_input *in = tz_input_open(path, &err);
    assert_non_null(in);
    size_t len = 0;
    const char *m = tz_input_map(in, &len);
    assert_non_null(m);
    assert_int_equal(len, 200000);
    assert_memory_equal(m, data, len);
    tz_input_unmap(m, len);
    tz_input_close(in);
    /* read within the first buffer (4 KiB): still mapped */
    in = tz_input_open(path, &err);
    char buf[5000];
    assert_int_equal(tz_input_read(in, buf, 4096, &err), 4096);
    assert_memory_equal(buf, data, 4096);
    assert_int_equal(tz_input_raw_pos(in), 4096);
    tz_input_close(in);
    /* read past it: not mapped (the reader goes on from where it is) */
    in = tz_input_open(path, &err);
    assert_int_equal(tz_input_read(in, buf, 4096, &err), 4096);
    assert_int_equal(tz_input_read(in, buf, 5000, &err), 5000);
    assert_memory_equal(buf, data + 4096, 5000);
    assert_null(tz_input_map(in, &len));
    tz_input_close(in);
    free(data);
    free(path);
    tu_rmdir(dir);
}

static void test_compressed(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *data, *path = make_file(dir, "c.txt", 400000, &data);
    static const char *const tools[][2] = {{"xz", "xz -kc"}, {"zst", "zstd -qkc"}, {"gz", "gzip -kc"}};
    for (size_t t = 0; t < 3; t++) {
        char cmd[9000], out[4096];
        snprintf(out, sizeof out, "%s.%s", path, tools[t][0]);
        snprintf(cmd, sizeof cmd, "%s '%s' > '%s'", tools[t][1], path, out);
        if (system(cmd) != 0) {
            print_message("[  SKIPPED ] %s absent\n", tools[t][1]);
            continue;
        }
        read_all(out, 1000, data, 400000);
        read_all(out, 1 << 20, data, 400000);
        traza_err err;
        tz_input *in = tz_input_open(out, &err);
        size_t len;
        assert_null(tz_input_map(in, &len)); /* a compressed file is never mapped */
        tz_input_close(in);
    }
    free(data);
    free(path);
    tu_rmdir(dir);
}

/* Two zstd frames one after the other read as their two texts; a frame cut short is an
 * error that says so. */
static void test_zstd_frames(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *a, *pa = make_file(dir, "a.txt", 150000, &a);
    char *b, *pb = make_file(dir, "b.txt", 5000, &b);
    char cmd[30000], cat[4096], cut[4096];
    snprintf(cat, sizeof cat, "%s/ab.zst", dir);
    snprintf(cut, sizeof cut, "%s/cut.zst", dir);
    snprintf(cmd, sizeof cmd, "zstd -qc '%s' > '%s' && zstd -qc '%s' >> '%s' && head -c 20000 '%s' > '%s'", pa, cat, pb,
             cat, cat, cut);
    if (system(cmd) != 0) {
        print_message("[  SKIPPED ] zstd absent\n");
    } else {
        char *ab = malloc(155000);
        assert_non_null(ab);
        memcpy(ab, a, 150000);
        memcpy(ab + 150000, b, 5000);
        for (size_t step = 7; step <= 1u << 20; step *= 13)
            read_all(cat, step, ab, 155000);
        free(ab);
        traza_err err;
        tz_input *in = tz_input_open(cut, &err);
        assert_non_null(in);
        char buf[65536];
        long k;
        while ((k = tz_input_read(in, buf, sizeof buf, &err)) > 0)
            ;
        assert_int_equal(k, -1);
        assert_non_null(strstr(err.msg, "zstd data is truncated"));
        tz_input_close(in);
    }
    free(a), free(b), free(pa), free(pb);
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_reads),
        cmocka_unit_test(test_map),
        cmocka_unit_test(test_compressed),
        cmocka_unit_test(test_zstd_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
