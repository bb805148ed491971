/* Damaged .tzi files: the header check (a flipped model, dialect, back end, lossy or
 * chunk-size bit is refused), the chunk frame checks of `itf stats`, and a truncated
 * interrupt record that is reported without a leak (run under ASan). */
#include "testutil.h"
#include "traza/itf.h"
#include "itf/itf_internal.h"

static char *src_path(const char *rel)
{
    const char *root = getenv("TRAZA_SRC");
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", root ? root : ".", rel) > 0);
    return p;
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("%s: cannot open", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *d = malloc((size_t)len);
    assert_non_null(d);
    assert_int_equal(fread(d, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return d;
}

/* Opens the bytes as a .tzi: the reader (NULL on error, the message in err). */
static traza_itf_reader *open_bytes(unsigned char *d, size_t n, FILE **f, traza_err *err)
{
    *f = fmemopen(d, n, "rb");
    assert_non_null(*f);
    traza_itf_reader *r = traza_itf_open(*f, err);
    if (!r) {
        fclose(*f);
        *f = NULL;
    }
    return r;
}

/* A corrupt file whose interrupt stream is one cut varint (its frame CRC made right). */
static void test_interrupts_truncated(void **state)
{
    (void)state;
    char *p = src_path("fuzz/corpus/tzi/irq-int-truncated.tzi");
    traza_err err = {0};
    traza_itf_reader *r = traza_itf_open_path(p, &err);
    if (!r)
        fail_msg("%s", err.msg);
    FILE *out = fopen("/dev/null", "wb");
    assert_non_null(out);
    assert_int_equal(traza_itf_decompress(r, out, &err), -1);
    assert_string_equal(err.msg, "tzi: chunk 0: interrupt records truncated");
    assert_int_equal(traza_itf_extract(r, 0, 1, out, &err), -1);
    assert_string_equal(err.msg, "tzi: chunk 0: interrupt records truncated");
    fclose(out);
    traza_itf_close(r);
    free(p);
}

static void test_header_check(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *in = src_path("tests/itf/data/v4_blocks.itf"), *out = NULL;
    assert_true(asprintf(&out, "%s/b.tzi", dir) > 0);
    traza_itf_opts o;
    traza_itf_opts_init(&o);
    o.chunk = 300;
    traza_err err = {0};
    if (traza_itf_compress(in, out, &o, NULL, &err) < 0)
        fail_msg("%s", err.msg);
    size_t n;
    unsigned char *d = slurp(out, &n);
    assert_int_equal(d[10] | d[11] << 8, itf_header_check(d));
    assert_true(d[10] | d[11]);
    FILE *f;
    traza_itf_reader *r = open_bytes(d, n, &f, &err);
    assert_non_null(r);
    traza_itf_close(r);
    fclose(f);
    /* every bit of the header, magic and version aside */
    for (int byte = 6; byte < 16; byte++)
        for (int bit = 0; bit < 8; bit++) {
            d[byte] ^= (unsigned char)(1u << bit);
            r = open_bytes(d, n, &f, &err);
            if (r)
                fail_msg("header byte %d bit %d flipped: the file still opens", byte, bit);
            if (strcmp(err.msg, "tzi: header checksum mismatch (corrupted header)") != 0)
                fail_msg("header byte %d bit %d: '%s'", byte, bit, err.msg);
            d[byte] ^= (unsigned char)(1u << bit);
        }
    /* a version flipped to another one the reader knows */
    d[4] ^= 2;
    assert_null(open_bytes(d, n, &f, &err));
    assert_string_equal(err.msg, "tzi: header checksum mismatch (corrupted header)");
    d[4] ^= 2;
    free(d);
    free(out);
    free(in);
    tu_rmdir(dir);
}

/* A file written without the header check (bytes 10..11 zero) still reads. */
static void test_header_without_check(void **state)
{
    (void)state;
    char *p = src_path("tests/itf/data/v8_blocks.tzi");
    size_t n;
    unsigned char *d = slurp(p, &n);
    assert_int_equal(d[10] | d[11], 0);
    FILE *f;
    traza_err err = {0};
    traza_itf_reader *r = open_bytes(d, n, &f, &err);
    if (!r)
        fail_msg("%s", err.msg);
    assert_int_equal(traza_itf_check_frames(r, &err), 0);
    assert_int_equal(traza_itf_get_info(r)->dialect, TRAZA_ITF_GEN);
    traza_itf_close(r);
    fclose(f);
    free(d);
    free(p);
}

/* A damaged chunk frame: open reads no chunk frame; the frame check names it. */
static void test_check_frames(void **state)
{
    (void)state;
    char *p = src_path("tests/itf/data/v8_blocks.tzi");
    size_t n;
    unsigned char *d = slurp(p, &n);
    uint32_t len = (uint32_t)d[16] | (uint32_t)d[17] << 8 | (uint32_t)d[18] << 16 | (uint32_t)d[19] << 24;
    d[16 + 8 + len / 2] ^= 0x10;
    FILE *f;
    traza_err err = {0};
    traza_itf_reader *r = open_bytes(d, n, &f, &err);
    if (!r)
        fail_msg("%s", err.msg);
    assert_int_equal(traza_itf_check_frames(r, &err), -1);
    if (strncmp(err.msg, "tzi: checksum mismatch in frame at offset 16 (crc32 ", 52) != 0)
        fail_msg("'%s'", err.msg);
    traza_itf_close(r);
    fclose(f);
    free(d);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interrupts_truncated),
        cmocka_unit_test(test_header_check),
        cmocka_unit_test(test_header_without_check),
        cmocka_unit_test(test_check_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
