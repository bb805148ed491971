/* tz_input (src/util/input.c): plain, xz, zstd, gzip and bzip2 files read back to the same
 * bytes in reads of any size; a plain file is mapped only when nothing was read past
 * the first buffer, which holds just the first 4 KiB (RAW_FIRST); a stream may end
 * (a zstd frame, a gzip member) in a read that also returns text, or with a read. */
#include <zlib.h>

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

/* A file compressed by `tool` (a shell command writing to stdout) reads back as the
 * text; the test is skipped, and says so, when the program is absent. */
static void check_compressed(const char *ext, const char *tool)
{
    char *dir = tu_tmpdir();
    char *data, *path = make_file(dir, "c.txt", 400000, &data);
    char cmd[9000], out[4096];
    snprintf(out, sizeof out, "%s.%s", path, ext);
    snprintf(cmd, sizeof cmd, "%s '%s' > '%s' 2>/dev/null", tool, path, out);
    if (system(cmd) != 0) {
        tu_rmdir(dir);
        free(data);
        free(path);
        print_message("%s is not installed\n", tool);
        skip();
    }
    read_all(out, 1000, data, 400000);
    read_all(out, 1 << 20, data, 400000);
    traza_err err;
    tz_input *in = tz_input_open(out, &err);
    size_t len;
    assert_null(tz_input_map(in, &len)); /* a compressed file is never mapped */
    tz_input_close(in);
    free(data);
    free(path);
    tu_rmdir(dir);
}

static void test_xz(void **state) { (void)state; check_compressed("xz", "xz -kc"); }
static void test_zstd(void **state) { (void)state; check_compressed("zst", "zstd -qkc"); }
static void test_gzip(void **state) { (void)state; check_compressed("gz", "gzip -kc"); }
static void test_bzip2(void **state) { (void)state; check_compressed("bz2", "bzip2 -kc"); }

/* A gzip file that ends exactly where a read of its compressed bytes does (the first
 * read takes 4 KiB, the next ones 128 KiB) ends there: the reader then has a finished
 * member and no more input, which is the end, not an error. Stored (level 0) deflate
 * blocks let the file's size be chosen to the byte. */
static void test_gzip_ends_at_a_read(void **state)
{
    (void)state;
    enum { TARGET = 4096 + (1 << 17) };
    char *dir = tu_tmpdir();
    char *data, *text = make_file(dir, "g.txt", TARGET, &data);
    char path[4096];
    snprintf(path, sizeof path, "%s/g.gz", dir);
    unsigned char *z = malloc(2 * TARGET);
    assert_non_null(z);
    size_t len = TARGET - 100, zlen = 0;
    for (int tries = 0; tries < 8; tries++) {
        z_stream s;
        memset(&s, 0, sizeof s);
        assert_int_equal(deflateInit2(&s, 0, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
        s.next_in = (unsigned char *)data;
        s.avail_in = (uInt)len;
        s.next_out = z;
        s.avail_out = 2 * TARGET;
        assert_int_equal(deflate(&s, Z_FINISH), Z_STREAM_END);
        zlen = s.total_out;
        deflateEnd(&s);
        if (zlen == TARGET)
            break;
        /* stored blocks: a byte more of text is a byte more of file */
        len = (size_t)((long)len + (long)TARGET - (long)zlen);
    }
    assert_int_equal(zlen, TARGET);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(z, 1, zlen, f), zlen);
    assert_int_equal(fclose(f), 0);
    read_all(path, 65536, data, len);
    free(z);
    free(data);
    free(text);
    tu_rmdir(dir);
}

/* Input read to its end: the error it ends with must contain `what`. */
static void read_fails(const char *path, const char *what)
{
    traza_err err;
    tz_input *in = tz_input_open(path, &err);
    assert_non_null(in);
    char buf[65536];
    long k;
    while ((k = tz_input_read(in, buf, sizeof buf, &err)) > 0)
        ;
    assert_int_equal(k, -1);
    if (!strstr(err.msg, what))
        fail_msg("%s: expected '%s', got '%s'", path, what, err.msg);
    tz_input_close(in);
}

/* Two streams of `tool` (a command compressing a file to stdout) one after the other
 * (zstd frames, bzip2 streams as pbzip2 writes them) read as their two texts; cut
 * short, or with a byte changed, they are an error that says which. */
static void check_streams(const char *ext, const char *tool, const char *name)
{
    char *dir = tu_tmpdir();
    char *a, *pa = make_file(dir, "a.txt", 150000, &a);
    char *b, *pb = make_file(dir, "b.txt", 5000, &b);
    char cmd[30000], cat[4096], cut[4096], bad[4096], want[256];
    snprintf(cat, sizeof cat, "%s/ab.%s", dir, ext);
    snprintf(cut, sizeof cut, "%s/cut.%s", dir, ext);
    snprintf(bad, sizeof bad, "%s/bad.%s", dir, ext);
    snprintf(cmd, sizeof cmd,
             "%s '%s' > '%s' && %s '%s' >> '%s' && head -c 20000 '%s' > '%s' && "
             "{ head -c 3000 '%s'; printf 'X'; tail -c +3002 '%s'; } > '%s'",
             tool, pa, cat, tool, pb, cat, cat, cut, cat, cat, bad);
    if (system(cmd) != 0) {
        free(a), free(b), free(pa), free(pb);
        tu_rmdir(dir);
        print_message("%s is not installed\n", tool);
        skip();
    }
    char *ab = malloc(155000);
    assert_non_null(ab);
    memcpy(ab, a, 150000);
    memcpy(ab + 150000, b, 5000);
    for (size_t step = 7; step <= 1u << 20; step *= 13)
        read_all(cat, step, ab, 155000);
    free(ab);
    snprintf(want, sizeof want, "%s data is truncated", name);
    read_fails(cut, want);
    snprintf(want, sizeof want, "%s data is corrupt", name);
    read_fails(bad, want);
    free(a), free(b), free(pa), free(pb);
    tu_rmdir(dir);
}

static void test_zstd_frames(void **state) { (void)state; check_streams("zst", "zstd -qc", "zstd"); }
static void test_bzip2_streams(void **state) { (void)state; check_streams("bz2", "bzip2 -c", "bzip2"); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_reads),
        cmocka_unit_test(test_map),
        cmocka_unit_test(test_xz),
        cmocka_unit_test(test_zstd),
        cmocka_unit_test(test_gzip),
        cmocka_unit_test(test_bzip2),
        cmocka_unit_test(test_zstd_frames),
        cmocka_unit_test(test_bzip2_streams),
        cmocka_unit_test(test_gzip_ends_at_a_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
