/* The line tokenizer skips literal bytes sixteen at a time with SSE2, and the
 * skeletons it makes are part of the .tzi format: they must be those of the plain
 * byte loop, or files would depend on the machine that wrote them. This test builds
 * the byte loop from the same source (ITF_TOK_SCALAR, renamed) and tokenizes the same
 * lines with both: every line of the Tarmac samples (skipped, visibly, without
 * ../shared/data), and random lines made of the bytes that matter (hex digits, 'x'
 * after '0', letters, spaces, punctuation, 0x01) at every offset of a vector. */
#include "testutil.h"
#include "itf/itf_internal.h"

#define itf_tokenize sc_tokenize
#define itf_tokenize_append sc_tokenize_append
size_t sc_tokenize(const char *s, size_t n, tz_buf *skel, uint64_t *nums);
size_t sc_tokenize_append(const char *s, size_t n, tz_buf *skel, uint64_t *nums);
#define ITF_TOK_SCALAR 1
#include "itf/itf_tokenize.c"
#undef itf_tokenize
#undef itf_tokenize_append

/* Both tokenizers on s[0..n): the same skeleton bytes and numbers. */
static void same(const char *s, size_t n)
{
    tz_buf a, b;
    tz_buf_init(&a), tz_buf_init(&b);
    uint64_t na[ITF_MAX_NUMS], nb[ITF_MAX_NUMS];
    size_t ka = itf_tokenize(s, n, &a, na), kb = sc_tokenize(s, n, &b, nb);
    if (a.len != b.len || memcmp(a.s, b.s, a.len) != 0 || ka != kb || memcmp(na, nb, ka * sizeof *na) != 0)
        fail_msg("tokenizers differ on a line of %zu bytes: %.*s", n, (int)(n < 200 ? n : 200), s);
    tz_buf_free(&a), tz_buf_free(&b);
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* Appending a line's skeleton after another's (the tokenizer thread's batches) gives
 * the skeleton it has alone: a decimal's field of spaces does not reach back into the
 * previous line, which here ends in spaces. */
static void test_append(void **state)
{
    (void)state;
    static const char *const lines[] = {"abc   ", "5 x", "   12 tic 0x1f", "", "\x01 7", "q    "};
    tz_buf all, one;
    tz_buf_init(&all), tz_buf_init(&one);
    for (int r = 0; r < 2; r++) {
        for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
            uint64_t na[ITF_MAX_NUMS], nb[ITF_MAX_NUMS];
            size_t at = all.len, n = strlen(lines[i]);
            size_t ka = (r ? sc_tokenize_append : itf_tokenize_append)(lines[i], n, &all, na);
            size_t kb = itf_tokenize(lines[i], n, &one, nb);
            assert_int_equal(ka, kb);
            assert_int_equal(all.len - at, one.len);
            assert_memory_equal(all.s + at, one.s, one.len);
            assert_memory_equal(na, nb, ka * sizeof *na);
        }
        tz_buf_reset(&all);
    }
    tz_buf_free(&all), tz_buf_free(&one);
}

static void test_random_lines(void **state)
{
    (void)state;
    static const char alpha[] = "0123456789abcdefABCDEFxXgzG  ,:()[]#._-\x01\t";
    uint64_t x = 0x2545F4914F6CDD1Du;
    char line[300];
    for (int r = 0; r < 200000; r++) {
        size_t n = rnd(&x) % sizeof line;
        for (size_t i = 0; i < n; i++) {
            uint64_t v = rnd(&x);
            /* runs: "0x" pairs, long digit runs and spaces are what Tarmac holds */
            if (v % 11 == 0 && i + 1 < n)
                line[i++] = '0', line[i] = (v >> 8) & 1 ? 'x' : 'X';
            else if (v % 13 == 0)
                for (size_t k = (v >> 8) % 20; k && i < n; k--)
                    line[i++] = (v >> 16) & 1 ? ' ' : "0123456789abcdef"[(v >> (20 + k)) & 15];
            if (i < n)
                line[i] = alpha[(v >> 32) % (sizeof alpha - 1)];
        }
        same(line, n);
    }
    /* more than ITF_MAX_NUMS numbers on a line: the rest stays literal */
    tz_buf big;
    tz_buf_init(&big);
    for (int i = 0; i < 400; i++)
        tz_buf_printf(&big, " %d 0x%x", i, i * 7);
    same(big.s, big.len);
    tz_buf_free(&big);
}

/* Hex runs of every width 1..20 (the vector reads 16 digits at once: 16 and more go
 * to the byte loop), at every offset, in both cases and mixed, after "0x" or a space,
 * with the largest digits and a value checked outright. */
static void test_hex_runs(void **state)
{
    (void)state;
    static const char *const digs[] = {"fedcba9876543210fedc", "FEDCBA9876543210FEDC", "ffffffffffffffffffff",
                                       "0000000000000000000a", "aBcDeF0123456789abcd"};
    char line[80];
    for (size_t d = 0; d < sizeof digs / sizeof *digs; d++)
        for (size_t w = 1; w <= 20; w++)
            for (size_t off = 0; off < 20; off++)
                for (int px = 0; px < 2; px++) {
                    size_t n = 0;
                    memset(line, ' ', off), n = off;
                    if (px)
                        line[n++] = '0', line[n++] = 'x';
                    memcpy(line + n, digs[d], w), n += w;
                    memcpy(line + n, " r3, [sp]  ", 11), n += 11;
                    same(line, n);
                }
    /* 16 digits after "0x", all 'f': the whole 64 bits ("X0" is a name, not a number) */
    tz_buf a;
    tz_buf_init(&a);
    uint64_t v[ITF_MAX_NUMS];
    const char *s = "R X0 0xffffffffffffffff then more text";
    assert_int_equal(itf_tokenize(s, strlen(s), &a, v), 1);
    assert_true(v[0] == UINT64_MAX);
    s = "    LD 000ffbb0 ........ ........ 000ffbdc ........    S:00000ffbb0    nGnRnE OSH";
    assert_int_equal(itf_tokenize(s, strlen(s), &a, v), 3);
    assert_true(v[0] == 0xffbb0 && v[1] == 0xffbdc && v[2] == 0xffbb0);
    tz_buf_free(&a);
}

static void test_tarmac_lines(void **state)
{
    (void)state;
    const char *d = tu_data_dir();
    TU_SKIP_NO_DATA(d);
    static const char *const files[] = {"calculator-aarch32-es-ld-st-style.tarmac", "calculator-aarch64-fastmodel.tarmac",
                                        "calculator-aarch64-gem5.tarmac", "quicksort.tarmac"};
    size_t lines = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tarmac/%s", d, files[f]);
        FILE *in = fopen(path, "rb");
        if (!in) {
            print_message("[  SKIPPED ] %s absent\n", path);
            continue;
        }
        char *l = NULL;
        size_t cap = 0;
        ssize_t n;
        while ((n = getline(&l, &cap, in)) > 0) {
            size_t len = (size_t)n - (l[n - 1] == '\n');
            same(l, len);
            lines++;
        }
        free(l);
        fclose(in);
    }
    print_message("%zu Tarmac lines: the same skeletons\n", lines);
    assert_true(lines > 30000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_random_lines),
        cmocka_unit_test(test_hex_runs),
        cmocka_unit_test(test_tarmac_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
