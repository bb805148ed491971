/* ITFComp stream packing (format version 4): mostly-zero varint streams are stored in
 * zero-run form (method bit 0x80) and come back byte for byte; streams that are not
 * canonical varints are stored as they are; a corrupt zero-run form is refused. */
#include "testutil.h"
#include "itf/itf_internal.h"

/* Packs in[0..n) with the backend, checks the zero-run bit, unpacks, compares. */
static void round_trip(int backend, const uint8_t *in, size_t n, int want_zrun)
{
    tz_buf out;
    tz_buf_init(&out);
    traza_err err;
    assert_true(itf_pack_stream(backend, in, n, &out, &err) > 0);
    assert_int_equal(((uint8_t)out.s[0] & 0x80) != 0, want_zrun);
    itf_rd r = {(const uint8_t *)out.s, (const uint8_t *)out.s + out.len, 0};
    uint8_t *back = NULL;
    size_t bn = 0;
    assert_int_equal(itf_unpack_stream(&r, 1, &back, &bn, NULL, &err), 0);
    assert_int_equal(bn, n);
    if (n)
        assert_memory_equal(back, in, n);
    assert_true(r.p == r.end);
    free(back);
    /* a version 3 reader does not know the bit */
    if (want_zrun) {
        r.p = (const uint8_t *)out.s;
        assert_int_equal(itf_unpack_stream(&r, 0, &back, &bn, NULL, &err), -1);
        assert_non_null(strstr(err.msg, "unknown stream method"));
    }
    tz_buf_free(&out);
}

static void test_zero_runs(void **state)
{
    (void)state;
    tz_buf s;
    tz_buf_init(&s);
    for (int i = 0; i < 5000; i++) /* mostly zeros, a few values, a long one at the end */
        itf_put_uv(&s, i % 97 == 5 ? (uint64_t)i * 1000003u : i % 300 == 7 ? 1 : 0);
    itf_put_uv(&s, UINT64_MAX);
    for (int b = 0; b < 3; b++)
        round_trip(b, (const uint8_t *)s.s, s.len, 1);
    /* only zeros; a single zero */
    tz_buf_reset(&s);
    for (int i = 0; i < 100000; i++)
        itf_put_uv(&s, 0);
    round_trip(TRAZA_ITF_XZ, (const uint8_t *)s.s, s.len, 1);
    round_trip(TRAZA_ITF_NONE, (const uint8_t *)"\0", 1, 1);
    /* mostly non-zero: stored plainly */
    tz_buf_reset(&s);
    for (int i = 0; i < 1000; i++)
        itf_put_uv(&s, (uint64_t)i % 5 ? (uint64_t)i : 0);
    round_trip(TRAZA_ITF_XZ, (const uint8_t *)s.s, s.len, 0);
    tz_buf_free(&s);
}

static void test_not_varints(void **state)
{
    (void)state;
    /* 0x80 0x00 is a non-canonical 0: the zero-run form would give 0x00 back */
    const uint8_t nc[] = {0, 0, 0, 0x80, 0x00, 0, 0, 0};
    round_trip(TRAZA_ITF_NONE, nc, sizeof nc, 0);
    /* a ten-byte varint whose last byte has more than the 64th bit */
    const uint8_t big[] = {0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    round_trip(TRAZA_ITF_NONE, big, sizeof big, 0);
    /* a last byte with the continuation bit */
    const uint8_t open[] = {0, 0, 0, 0, 0x81};
    round_trip(TRAZA_ITF_NONE, open, sizeof open, 0);
    round_trip(TRAZA_ITF_XZ, (const uint8_t *)"", 0, 0);
}

static void test_corrupt_zero_runs(void **state)
{
    (void)state;
    traza_err err;
    /* stored (method 0) with the bit: raw 3, length 3, then the form */
    const uint8_t bad_zero[] = {0x80, 3, 3, 5, 0, 2}; /* a value 0 where a nonzero one belongs */
    const uint8_t bad_open[] = {0x80, 2, 2, 5, 0x80}; /* a truncated varint */
    const uint8_t too_big[] = {0x80, 5, 5, 0xff, 0xff, 0xff, 0xff, 0x7f}; /* a run beyond the limit */
    const uint8_t *cases[] = {bad_zero, bad_open, too_big};
    size_t lens[] = {sizeof bad_zero, sizeof bad_open, sizeof too_big};
    for (int i = 0; i < 3; i++) {
        itf_rd r = {cases[i], cases[i] + lens[i], 0};
        uint8_t *out = NULL;
        size_t n = 0;
        assert_int_equal(itf_unpack_stream(&r, 1, &out, &n, NULL, &err), -1);
        assert_null(out);
        assert_non_null(strstr(err.msg, "corrupt zero-run stream"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_runs),
        cmocka_unit_test(test_not_varints),
        cmocka_unit_test(test_corrupt_zero_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
