/* The line model's number predictor has an SSE2 form of its two hot steps (argmin of
 * the candidates' costs, the candidates' charges) and a plain C one. Both must code
 * every number identically, or files would depend on the machine that wrote them.
 * This test builds the plain C predictor from the same sources (itf_npred.c and
 * itf_npline.c with ITF_NP_SCALAR, their functions renamed) and codes the same lines with both: residual streams byte for
 * byte, then a decode back to the numbers. The values mix repeats, strides and
 * residuals on both sides of 2^52, where the SSE2 charges switch to the exact count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include "itf/itf_internal.h"

#define itf_np_init sc_np_init
#define itf_np_dialect sc_np_dialect
#define itf_np_free sc_np_free
#define itf_skel_is_record_start sc_skel_is_record_start
#define itf_skel_is_record_start_b sc_skel_is_record_start_b
#define itf_np_reserve sc_np_reserve
#define itf_np_add_skel sc_np_add_skel
#define itf_np_chunk sc_np_chunk
#define itf_np_hint sc_np_hint
#define itf_np_skel_predict sc_np_skel_predict
#define itf_np_begin sc_np_begin
#define itf_np_predict sc_np_predict
#define itf_np_update sc_np_update
#define itf_np_end sc_np_end
#define itf_np_encode_line sc_np_encode_line
#define itf_np_decode_line sc_np_decode_line
#define itf_np_ctx_find sc_np_ctx_find
#define itf_np_ctx_grow sc_np_ctx_grow
#define itf_np_mem_grow sc_np_mem_grow
#define itf_np_slot_grow sc_np_slot_grow
#define itf_sem_line sc_sem_line
#define itf_sem_end sc_sem_end
void sc_np_init(itf_np *np, int version);
int sc_np_dialect(itf_np *np, int dialect);
void sc_np_free(itf_np *np);
int sc_skel_is_record_start(int dialect, const uint8_t *k, size_t len, size_t nn);
int sc_skel_is_record_start_b(tz_buf *b, int dialect, const uint8_t *k, size_t len, size_t nn);
int sc_np_reserve(itf_np *np, size_t nskel, size_t nslots);
long sc_np_add_skel(itf_np *np, const uint8_t *k, size_t len, size_t nn, int rs);
void sc_np_chunk(itf_np *np, uint64_t chunkno);
int sc_np_hint(itf_np *np, uint64_t lines);
long sc_np_skel_predict(itf_np *np);
int sc_np_begin(itf_np *np, uint32_t id);
uint64_t sc_np_predict(itf_np *np, uint32_t id, size_t k, const uint64_t *cur);
void sc_np_update(itf_np *np, uint32_t id, size_t k, const uint64_t *cur);
void sc_np_end(itf_np *np, uint32_t id, const uint64_t *cur);
void sc_np_encode_line(itf_np *np, uint32_t id, const uint64_t *nums, tz_buf *const out[4]);
int sc_np_decode_line(itf_np *np, uint32_t id, uint64_t *nums, itf_zrun_reader *nu);
itf_npl *sc_np_ctx_find(itf_np *np, uint64_t key);
int sc_np_ctx_grow(itf_np *np, size_t need);
int sc_np_mem_grow(itf_np *np, size_t more);
int sc_np_slot_grow(itf_np *np, size_t need);
uint32_t sc_sem_line(const itf_sem *s, uint32_t id, uint64_t *v, uint32_t *all);
void sc_sem_end(itf_sem *s, uint32_t id, const uint64_t *nums, size_t nn, uint32_t all, const uint64_t *v);
#define ITF_NP_SCALAR 1
#include "itf/itf_npred.c"
#include "itf/itf_npline.c"
#undef itf_np_init
#undef itf_np_dialect
#undef itf_np_free
#undef itf_skel_is_record_start
#undef itf_skel_is_record_start_b
#undef itf_np_reserve
#undef itf_np_add_skel
#undef itf_np_chunk
#undef itf_np_hint
#undef itf_np_skel_predict
#undef itf_np_begin
#undef itf_np_predict
#undef itf_np_update
#undef itf_np_end
#undef itf_np_encode_line
#undef itf_np_decode_line
#undef itf_np_ctx_find
#undef itf_np_ctx_grow
#undef itf_np_mem_grow
#undef itf_np_slot_grow
#undef itf_sem_line
#undef itf_sem_end

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A value for a register line: mostly what a predictor can find, sometimes far. */
static uint64_t pick(uint64_t *s, uint64_t last, int it)
{
    switch (rng(s) % 8) {
    case 0: return rng(s);                                 /* anything: residuals up to 2^64 */
    case 1: return last + ((uint64_t)1 << 51) + rng(s) % 3; /* zig-zag just above 2^52 */
    case 2: return last - ((uint64_t)1 << 51) + rng(s) % 3; /* and around it, negative */
    case 3: return last + ((uint64_t)1 << 50);              /* just below */
    case 4: return (uint64_t)it * 8;                        /* a stride */
    case 5: return UINT64_MAX - rng(s) % 5;                 /* near the top */
    default: return last;                                   /* a repeat */
    }
}

/* Codes the lines with a predictor of format `version` both ways; returns a hash of the
 * residual streams. */
static uint64_t code_lines(int version)
{
    int v4 = version >= 4;
    itf_np a, b;
    itf_np_init(&a, version);
    sc_np_init(&b, version);
    /* version 9: the semantic predictor of ES lines (candidate 7, its head start and
     * its charge), right three times in four on the pcs and on R0 */
    assert_int_equal(itf_np_dialect(&a, TRAZA_ITF_TARMAC_ES), 0);
    assert_int_equal(sc_np_dialect(&b, TRAZA_ITF_TARMAC_ES), 0);
    itf_np_chunk(&a, 0);
    sc_np_chunk(&b, 0);
    itf_kmap skels;
    itf_kmap_init(&skels);
    tz_buf s, oa[4], ob[4];
    tz_buf_init(&s);
    for (int k = 0; k < 4; k++)
        tz_buf_init(&oa[k]), tz_buf_init(&ob[k]);
    tz_buf *pa[4] = {&oa[0], &oa[1], &oa[2], &oa[3]}, *pb[4] = {&ob[0], &ob[1], &ob[2], &ob[3]};
    uint64_t seed = 0x9E3779B97F4A7C15ull, last = 0, r0 = 0;
    uint32_t pc = 0x8000;
    char line[256];
    /* the skeleton ids of the lines, in order, for the decode below */
    uint32_t ids[3000];
    uint64_t want[3000][8];
    size_t nids = 0, nsem = 0;
    for (int it = 0; it < 600; it++) {
        for (int l = 0; l < 5 && nids < 3000; l++) {
            if (l == 0)
                pc = version >= 9 && rng(&seed) % 4 ? pc + 4 : 0x8000 + 4 * (uint32_t)(rng(&seed) % 4);
            uint64_t x = pick(&seed, last, it), y = pick(&seed, x, it);
            last = y;
            if (l == 0)
                snprintf(line, sizeof line, "%11d tic ES  (%08x:e2800001) A svc_s:          ADD      r0,r0,#1", 10 * it,
                         pc);
            else if (l == 1 && version >= 9) {
                r0 = (rng(&seed) % 4 ? r0 + 1 : x) & 0xFFFFFFFFu;
                snprintf(line, sizeof line, "                    R R0 %08llx", (unsigned long long)r0);
            } else if (l == 1)
                snprintf(line, sizeof line, "                    R X0 %016llx", (unsigned long long)x);
            else if (l == 2)
                snprintf(line, sizeof line, "                    ST %08x %016llx    S:%010x", 0xffbc0u + 8 * (it % 3),
                         (unsigned long long)x, 0xffbc0u);
            else if (l == 3)
                snprintf(line, sizeof line, "                    LD %08x %016llx    S:%010x", 0xffbc0u + 8 * (it % 3),
                         (unsigned long long)y, 0xffbc0u);
            else
                snprintf(line, sizeof line, "                    R X1 %016llx X2 %016llx", (unsigned long long)x,
                         (unsigned long long)y);
            uint64_t nums[ITF_MAX_NUMS];
            size_t nn = itf_tokenize(line, strlen(line), &s, nums);
            assert_true(nn <= 8);
            int isnew;
            long id = itf_kmap_intern(&skels, s.s, s.len, &isnew);
            assert_true(id >= 0);
            if (isnew) {
                int rs = itf_skel_is_record_start(TRAZA_ITF_TARMAC_ES, (const uint8_t *)s.s, s.len, nn);
                assert_int_equal(itf_np_add_skel(&a, (const uint8_t *)s.s, s.len, nn, rs), id);
                assert_int_equal(sc_np_add_skel(&b, (const uint8_t *)s.s, s.len, nn, rs), id);
            }
            if (v4)
                assert_int_equal(itf_np_skel_predict(&a), sc_np_skel_predict(&b));
            assert_int_equal(itf_np_begin(&a, (uint32_t)id), 0);
            assert_int_equal(sc_np_begin(&b, (uint32_t)id), 0);
            uint64_t sv[32];
            uint32_t sall;
            if (version >= 9 && itf_sem_line(&a.sem, (uint32_t)id, sv, &sall))
                nsem++;
            itf_np_encode_line(&a, (uint32_t)id, nums, pa);
            sc_np_encode_line(&b, (uint32_t)id, nums, pb);
            ids[nids] = (uint32_t)id;
            memcpy(want[nids], nums, nn * sizeof *nums);
            nids++;
        }
    }
    for (int k = 0; k < 4; k++) {
        assert_false(oa[k].oom);
        assert_int_equal(oa[k].len, ob[k].len);
        assert_memory_equal(oa[k].s, ob[k].s, oa[k].len);
    }
    assert_true(oa[0].len > 3000); /* far values: the streams are not all zeros */
    if (version >= 9) /* the semantic candidate was in play on most pc and R0 lines */
        assert_true(nsem > 800);
    /* the plain C predictor decodes the SSE2 one's residuals back to the numbers */
    itf_np c;
    sc_np_init(&c, version);
    assert_int_equal(sc_np_dialect(&c, TRAZA_ITF_TARMAC_ES), 0);
    for (size_t i = 0; i < skels.count; i++) {
        size_t len;
        const uint8_t *key = itf_kmap_key(&skels, i, &len);
        size_t nn;
        assert_int_equal(itf_skel_count(key, len, &nn), 0);
        int rs = sc_skel_is_record_start(TRAZA_ITF_TARMAC_ES, key, len, nn);
        assert_int_equal(sc_np_add_skel(&c, key, len, nn, rs), (long)i);
    }
    sc_np_chunk(&c, 0);
    itf_zrun_reader nu[4];
    for (int k = 0; k < 4; k++)
        itf_zrun_reader_start(&nu[k], (const uint8_t *)oa[k].s, oa[k].len, 0);
    for (size_t i = 0; i < nids; i++) {
        uint64_t nums[ITF_MAX_NUMS];
        if (v4)
            assert_true(sc_np_skel_predict(&c) >= 0);
        assert_int_equal(sc_np_decode_line(&c, ids[i], nums, nu), 0);
        assert_memory_equal(nums, want[i], c.sk[ids[i]].nn * sizeof *nums);
    }
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a over the streams */
    for (int k = 0; k < 4; k++)
        for (size_t i = 0; i < oa[k].len; i++)
            h = (h ^ (uint8_t)oa[k].s[i]) * 0x100000001b3ull;
    sc_np_free(&c);
    itf_np_free(&a);
    sc_np_free(&b);
    itf_kmap_free(&skels);
    tz_buf_free(&s);
    for (int k = 0; k < 4; k++)
        tz_buf_free(&oa[k]), tz_buf_free(&ob[k]);
    return h;
}

/* Version 7 charges a hit apart and decays the costs at other rates: its streams are
 * not version 6's (the test would otherwise not see the hit path at all). */
static void test_v7_same_code(void **state)
{
    (void)state;
    assert_true(code_lines(7) != code_lines(6));
}

/* Version 9's semantic predictions change the streams, and code the same both ways. */
static void test_v9_same_code(void **state)
{
    (void)state;
    assert_true(code_lines(9) != code_lines(7));
}

/* Version 10 codes a right semantic prediction as 0 and leaves the costs alone (the
 * R0 lines are right three times in four, far values the fourth): other streams than
 * version 9's, coded and decoded the same both ways. */
static void test_v10_same_code(void **state)
{
    (void)state;
    assert_true(code_lines(10) != code_lines(9));
}

/* Version 10's code of a missed semantic prediction: never 0 (the hit), back to the
 * residual, at the ends of the range too. */
static void test_sem_miss_code(void **state)
{
    (void)state;
    const uint64_t zs[] = {0, 1, 2, 1000, (uint64_t)1 << 63, UINT64_MAX - 1, UINT64_MAX};
    for (size_t i = 0; i < sizeof zs / sizeof zs[0]; i++) {
        const uint64_t zr[] = {0, 1, 2, zs[i] - 1, zs[i] + 1, UINT64_MAX - 1, UINT64_MAX};
        for (size_t j = 0; j < sizeof zr / sizeof zr[0]; j++) {
            if (zr[j] == zs[i]) /* the semantic value's own residual: a hit, never a miss */
                continue;
            uint64_t c = sem_miss_code(zr[j], zs[i]);
            assert_true(c != 0);
            assert_true(sem_miss_uncode(c, zs[i]) == zr[j]);
        }
    }
    assert_true(sem_miss_code(4, 1000) == 5 && sem_miss_code(1001, 1000) == 1001);
    assert_true(sem_miss_code(UINT64_MAX, 0) == UINT64_MAX && sem_miss_code(UINT64_MAX - 1, UINT64_MAX) == UINT64_MAX);
}

static void test_v4_same_code(void **state)
{
    (void)state;
    code_lines(6);
}

static void test_v3_same_code(void **state)
{
    (void)state;
    code_lines(3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v10_same_code),
        cmocka_unit_test(test_sem_miss_code),
        cmocka_unit_test(test_v9_same_code),
        cmocka_unit_test(test_v7_same_code),
        cmocka_unit_test(test_v4_same_code),
        cmocka_unit_test(test_v3_same_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
