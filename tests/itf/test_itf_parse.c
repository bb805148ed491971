/* ITFComp gen-line parsing: the one-word hexadecimal conversion of the pc and the
 * addresses against a per-byte reference on random and edge-case strings, and the
 * parse/render round trip of a line. */
#include "testutil.h"
#include "itf/itf_internal.h"

static int ref_hex8(const char *s, uint32_t *v)
{
    uint32_t x = 0;
    for (int i = 0; i < 8; i++) {
        char c = s[i];
        int h;
        if (c >= '0' && c <= '9')
            h = c - '0';
        else if (c >= 'a' && c <= 'f')
            h = c - 'a' + 10;
        else
            return -1; /* upper case is not canonical: the renderer writes lower case */
        x = x << 4 | (uint32_t)h;
    }
    *v = x;
    return 0;
}

static uint64_t rng = 88172645463325252ULL;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

static void test_hex_word(void **state)
{
    (void)state;
    static const char odd[] = "0123456789abcdefABCDEFgG/:`@ x\x80\xff\x00";
    char b[10] = {'0', 'x'};
    for (int it = 0; it < 300000; it++) {
        int mode = (int)(next() % 4);
        for (int i = 0; i < 8; i++) {
            uint32_t r = next();
            b[2 + i] = mode == 0   ? (char)(r & 255)
                       : mode == 1 ? odd[r % (sizeof odd - 1)]
                                   : "0123456789abcdef"[r % 16];
        }
        if (mode == 3) /* one byte off by one around the ranges */
            b[2 + next() % 8] = "/:`gAF@G"[next() % 8];
        uint32_t a = 0, c = 0;
        int ra = itf_gen_pc(b, 10, &a), rc = ref_hex8(b + 2, &c);
        if ((ra < 0) != (rc < 0) || (ra == 0 && a != c))
            fail_msg("'%.8s': got %d/%08x, expected %d/%08x", b + 2, ra, a, rc, c);
    }
    uint32_t v;
    assert_int_equal(itf_gen_pc("0xffffffff", 10, &v), 0);
    assert_int_equal(v, 0xffffffffu);
    assert_int_equal(itf_gen_pc("0x00000000", 10, &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(itf_gen_pc("0x0001000A", 10, &v), -1);
    assert_int_equal(itf_gen_pc("0x0001000", 9, &v), -1);
}

static void test_parse_render(void **state)
{
    (void)state;
    const char *line = "0x000103c0 pop {r1, r2} mem=0x40800910 mem=0x4080091c CCFAIL";
    itf_genline g;
    uint32_t mems[8];
    assert_int_equal(itf_gen_parse(line, strlen(line), &g, mems, 8), 1);
    assert_int_equal(g.pc, 0x103c0);
    assert_int_equal(g.nmem, 2);
    assert_int_equal(mems[0], 0x40800910u);
    assert_int_equal(mems[1], 0x4080091cu);
    assert_int_equal(g.ccfail, 1);
    tz_buf b;
    tz_buf_init(&b);
    itf_gen_render(&b, g.pc, g.text, g.textlen, mems, g.nmem, g.ccfail);
    assert_string_equal(b.s, line);
    tz_buf_free(&b);
    const char *upper = "0x000103C0 pop {r1}";
    assert_int_equal(itf_gen_parse(upper, strlen(upper), &g, mems, 8), 0);
    const char *badmem = "0x000103c0 pop {r1} mem=0x4080091G";
    assert_int_equal(itf_gen_parse(badmem, strlen(badmem), &g, mems, 8), 1); /* kept in the text */
    assert_int_equal(g.nmem, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hex_word),
        cmocka_unit_test(test_parse_render),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
