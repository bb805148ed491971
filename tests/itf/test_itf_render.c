/* The line model's renderer writes numbers with SSE2 (hexadecimal digits sixteen at a
 * time) and two decimal digits per division; what it writes is the decompressed file,
 * so it must be printf's text on every machine. This test builds the plain loops from
 * the same source (ITF_RENDER_SCALAR, renamed) and checks both against printf. */
#include <stdio.h>
#include "testutil.h"
#include "itf/itf_internal.h"

#define itf_skel_count sc_skel_count
#define itf_skel_render sc_skel_render
#define itf_skel_compile sc_skel_compile
#define itf_prog_append sc_prog_append
#define itf_prog_render sc_prog_render
int sc_skel_count(const uint8_t *k, size_t len, size_t *nnums);
int sc_skel_render(tz_buf *b, const uint8_t *k, size_t len, const uint64_t *nums, size_t nnums);
int sc_skel_compile(tz_buf *prog, const uint8_t *k, size_t len, size_t *maxout);
int sc_prog_append(tz_buf *b, const uint8_t *prog, size_t room, const uint64_t *nums);
size_t sc_prog_render(char *o, const uint8_t *q, const uint64_t *nums);
#define ITF_RENDER_SCALAR 1
#include "itf/itf_render.c"
#undef itf_skel_count
#undef itf_skel_render
#undef itf_skel_compile
#undef itf_prog_append
#undef itf_prog_render

/* Every number kind at every width renders what printf does, three ways (skeleton,
 * compiled, compiled with the plain loops), for the edges of each digit count and
 * random values: decimal padded with zeros or spaces to at most 20, hexadecimal cut to
 * its low w digits (a value too wide for its field, as only a damaged file can give,
 * keeps what fits). The output buffer is exactly the room the renderers promise to
 * need, so ASan sees an overrun. */
static void test_render_kinds(void **state)
{
    (void)state;
    uint64_t vals[200];
    size_t nv = 0;
    vals[nv++] = 0;
    for (uint64_t p = 1, k = 0; k < 20; k++, p *= 10) {
        vals[nv++] = p;
        vals[nv++] = p - 1;
        vals[nv++] = p + 1;
    }
    for (int k = 1; k < 64; k += 3)
        vals[nv++] = (1ull << k) - 1, vals[nv++] = 1ull << k;
    vals[nv++] = UINT64_MAX;
    for (uint64_t x = 88172645463325252ull; nv < sizeof vals / sizeof *vals;) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        vals[nv++] = x >> (x & 63);
    }
    static const int kinds[] = {NK_DEC, NK_DECW, NK_DECR, NK_HEXL, NK_HEXU, NK_HEXV, NK_HEXVU};
    for (size_t ki = 0; ki < sizeof kinds / sizeof *kinds; ki++) {
        int kind = kinds[ki], hexw = kind == NK_HEXL || kind == NK_HEXU;
        for (int w = hexw; w <= (hexw ? 16 : 24); w++) {
            for (size_t i = 0; i < nv; i++) {
                uint64_t v = vals[i];
                char want[64];
                int ww = w < 20 ? w : 20;
                if (kind == NK_DEC)
                    snprintf(want, sizeof want, "<%llu>", (unsigned long long)v);
                else if (kind == NK_DECW)
                    snprintf(want, sizeof want, "<%0*llu>", ww, (unsigned long long)v);
                else if (kind == NK_DECR)
                    snprintf(want, sizeof want, "<%*llu>", ww, (unsigned long long)v);
                else if (hexw)
                    snprintf(want, sizeof want, kind == NK_HEXU ? "<%0*llX>" : "<%0*llx>", w,
                             (unsigned long long)(w == 16 ? v : v & ((1ull << (4 * w)) - 1)));
                else
                    snprintf(want, sizeof want, kind == NK_HEXVU ? "<%llX>" : "<%llx>", (unsigned long long)v);
                const uint8_t skel[] = {'<', 1, (uint8_t)kind, (uint8_t)w, '>'};
                tz_buf out, prog;
                tz_buf_init(&out), tz_buf_init(&prog);
                assert_int_equal(itf_skel_render(&out, skel, sizeof skel, &v, 1), 0);
                assert_string_equal(out.s, want);
                size_t room;
                assert_int_equal(itf_skel_compile(&prog, skel, sizeof skel, &room), 0);
                tz_buf_put(&prog, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", ITF_PROG_PAD);
                char *o = malloc(room + ITF_PROG_PAD);
                assert_non_null(o);
                size_t n = itf_prog_render(o, (const uint8_t *)prog.s, &v);
                assert_int_equal(n, strlen(want));
                assert_memory_equal(o, want, n);
                memset(o, 'z', room + ITF_PROG_PAD);
                n = sc_prog_render(o, (const uint8_t *)prog.s, &v);
                assert_int_equal(n, strlen(want));
                assert_memory_equal(o, want, n);
                free(o);
                tz_buf_free(&out), tz_buf_free(&prog);
            }
        }
    }
}

/* itf_skel_find: literal text only, the numbers before it counted (a placeholder whose
 * width byte is 1 is not a second placeholder; an escaped 0x01 is no number). */
static void test_skel_find(void **state)
{
    (void)state;
    /* "R ", a decimal of width 1, "x: ", an escaped 0x01, " B: ", a hex number, ": " */
    static const uint8_t k[] = {'R', ' ', 1, NK_DEC, 1, 'x', ':', ' ', 1, 0, ' ', 'B', ':', ' ', 1, NK_HEXL, 4, ':', ' '};
    size_t n = sizeof k;
    int slot = -1;
    assert_int_equal(itf_skel_find(k, n, "R ", &slot), 0);
    assert_int_equal(slot, 0);
    assert_int_equal(itf_skel_find(k, n, ": ", &slot), 6);
    assert_int_equal(slot, 1);
    assert_int_equal(itf_skel_find(k, n, "B: ", &slot), 11);
    assert_int_equal(slot, 1);
    assert_int_equal(itf_skel_find(k, n, " B", NULL), 10);
    assert_int_equal(itf_skel_find(k + 14, n - 14, ": ", &slot), 3); /* at the very end, after a number */
    assert_int_equal(slot, 1);
    assert_int_equal(itf_skel_find(k, n, "x:  ", NULL), -1);
    assert_int_equal(itf_skel_find(k, 3, "R  x", NULL), -1); /* longer than the skeleton */
    assert_int_equal(itf_skel_find(k, n, "{pc}", NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_kinds),
        cmocka_unit_test(test_skel_find),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
