/* The version 8 block dictionary (itf_blockdict.c): what the texts predict (branches,
 * targets, address counts), the block and variant codes byte for byte, their round
 * trips, and the corrupt codes a reader refuses. */
#include "testutil.h"
#include "itf/itf_internal.h"

static const char *const TX[] = {
    "push {r4, r5, r6, r7, lr}", /* 0 */
    "ldr r3, [r0, #4]",          /* 1 */
    "cmp r3, #0",                /* 2 */
    "bne #0x1000",               /* 3: back to 0 */
    "vpush {d8-d15}",            /* 4 */
    "ldrd r0, r1, [r2]",         /* 5 */
    "bl #0x2000",                /* 6: not an instruction of the trace */
    "pop {r4-r7, pc}",           /* 7: writes pc */
    "add r0, r0, #1",            /* 8 */
    "b #0x1004",                 /* 9: to 1 */
    "ldr r0, [pc, #0x10]",       /* 10: pc-relative, not a branch */
};
#define NT (sizeof TX / sizeof TX[0])

static void build(itf_iclass *c)
{
    const uint8_t *t[NT];
    uint32_t len[NT], pc[NT];
    for (size_t i = 0; i < NT; i++) {
        t[i] = (const uint8_t *)TX[i];
        len[i] = (uint32_t)strlen(TX[i]);
        pc[i] = 0x1000 + 4 * (uint32_t)i;
    }
    assert_int_equal(itf_iclass_build(c, t, len, pc, NT), 0);
}

static void test_classes(void **state)
{
    (void)state;
    itf_iclass c;
    build(&c);
    static const uint8_t br[NT] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 0};
    static const uint8_t na[NT] = {5, 1, 0, 0, 8, 2, 0, 5, 0, 0, 1};
    for (size_t i = 0; i < NT; i++) {
        assert_int_equal(c.br[i], br[i]);
        assert_int_equal(c.na[i], na[i]);
    }
    assert_int_equal(c.tgt[3], 0);
    assert_int_equal(c.tgt[9], 1);
    assert_int_equal(c.tgt[6], ITF_NORANK); /* 0x2000 is no instruction here */
    assert_int_equal(c.tgt[0], ITF_NORANK);
    assert_int_equal(c.nblist, 4);
    assert_int_equal(itf_rank_of((const uint32_t[]){4, 8, 12}, 3, 8), 1);
    assert_int_equal(itf_rank_of((const uint32_t[]){4, 8, 12}, 3, 9), ITF_NORANK);
    itf_iclass_free(&c);
}

/* Puts one block after prev, checks its bytes, reads it back. */
static void block_case(const itf_iclass *c, const uint32_t *rk, size_t n, uint32_t prev, const char *want, size_t wn)
{
    tz_buf b;
    tz_buf_init(&b);
    itf_block_put(&b, c, rk, n, prev);
    assert_int_equal(b.len, wn);
    assert_memory_equal(b.s, want, wn);
    itf_rd d = {(const uint8_t *)b.s, (const uint8_t *)b.s + b.len, 0};
    uint32_t got[ITF_MAX_BLOCK];
    size_t gn = 0;
    assert_int_equal(itf_block_get(&d, c, prev, got, &gn), 0);
    assert_int_equal(gn, n);
    assert_memory_equal(got, rk, n * sizeof *rk);
    assert_true(d.p == d.end);
    tz_buf_free(&b);
}


static void test_blocks(void **state)
{
    (void)state;
    itf_iclass c;
    build(&c);
    /* the first block: rank 0 + zz(0) -> 3; ends at the 1st branch from its start */
    block_case(&c, (const uint32_t[]){0, 1, 2, 3}, 4, ITF_NORANK, "\x03\x01", 2);
    /* after "bne #0x1000": its target */
    block_case(&c, (const uint32_t[]){0, 1, 2, 3}, 4, 3, "\x01\x01", 2);
    /* after it: the fall-through, ending at the 1st and the 2nd branch */
    block_case(&c, (const uint32_t[]){4, 5, 6}, 3, 3, "\x02\x01", 2);
    block_case(&c, (const uint32_t[]){4, 5, 6, 7}, 4, 3, "\x02\x02", 2);
    /* elsewhere: 3 + zz(8 - (6 + 1)) = 5; ends on no branch: listed */
    block_case(&c, (const uint32_t[]){8}, 1, 6, "\x05\x00\x01", 3);
    /* after "b #0x1004", not contiguous: its target, listed, sv(3 - 1 - 1) */
    block_case(&c, (const uint32_t[]){1, 3}, 2, 9, "\x01\x00\x02\x02", 4);
    /* a verbatim line */
    block_case(&c, (const uint32_t[]){ITF_NORANK}, 1, 7, "\x00", 1);
    itf_iclass_free(&c);
}

static int get(const itf_iclass *c, const char *s, size_t n, uint32_t prev)
{
    itf_rd d = {(const uint8_t *)s, (const uint8_t *)s + n, 0};
    uint32_t rk[ITF_MAX_BLOCK];
    size_t k;
    return itf_block_get(&d, c, prev, rk, &k);
}

static void test_corrupt_blocks(void **state)
{
    (void)state;
    itf_iclass c;
    build(&c);
    assert_int_equal(get(&c, "\x01\x01", 2, ITF_NORANK), -1); /* a target with no block before */
    assert_int_equal(get(&c, "\x02\x01", 2, ITF_NORANK), -1);
    assert_int_equal(get(&c, "\x01\x01", 2, 6), -1);          /* bl to no instruction of the trace */
    assert_int_equal(get(&c, "\x02\x01", 2, 10), -1);         /* past the last instruction */
    assert_int_equal(get(&c, "\x15\x01", 2, 1), -1);          /* 3 + zz(9): rank 2 + 9 = 11, past */
    assert_int_equal(get(&c, "\x03\x05", 2, ITF_NORANK), -1); /* a 5th branch from rank 0: 4 exist */
    assert_int_equal(get(&c, "\x05\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11, 6), -1); /* L = 2^64 - 1 */
    assert_int_equal(get(&c, "\x03\x00\x00", 3, ITF_NORANK), -1);     /* a listed block of 0 */
    assert_int_equal(get(&c, "\x03\x00\xd9\x04", 4, ITF_NORANK), -1); /* of 601 */
    assert_int_equal(get(&c, "\x03\x00\x02\x03", 4, ITF_NORANK), -1); /* a rank below 0 */
    assert_int_equal(get(&c, "\x03\x00\x02", 3, ITF_NORANK), -1);     /* cut short */
    assert_int_equal(get(&c, "\x03", 1, ITF_NORANK), -1);
    assert_int_equal(get(&c, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x01", 11, 0), -1);
    itf_iclass_free(&c);
}

static void test_variants(void **state)
{
    (void)state;
    itf_iclass c, r;
    build(&c);
    build(&r);
    tz_buf b;
    tz_buf_init(&b);
    static const uint32_t bids[] = {0, 1, 0, 5, 6, 2};
    for (size_t i = 0; i < 6; i++)
        itf_var_put_block(&b, &c, bids[i]);
    assert_int_equal(b.len, 6);
    assert_memory_equal(b.s, "\x00\x00\x01\x06\x00\x03", 6);
    /* lines: (rank, flags, count) and the bytes each takes */
    static const struct {
        uint32_t rank;
        uint8_t fl;
        uint32_t na;
        const char *want;
        size_t wn;
    } L[] = {
        {0, 0, 5, "\x00\x00", 2},               /* the text's 5 registers */
        {1, LF_CCFAIL, 0, "\x01\x00", 2},       /* failed: 0 */
        {1, 0, 2, "\x00\x02", 2},               /* 1 predicted, zz(+1) */
        {1, 0, 2, "\x00\x00", 2},               /* its last count now */
        {1, LF_CCFAIL, 1, "\x01\x02", 2},       /* a failed one that accessed memory */
        {1, 0, 2, "\x00\x00", 2},               /* (a failed one leaves the last count) */
        {ITF_NORANK, LF_EXC, 0, "\x02\x00", 2}, /* a verbatim line */
        {8, 0, 64, "\x00\x80\x01", 3},          /* zz(64) */
    };
    for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
        size_t at = b.len;
        itf_var_put_line(&b, &c, L[i].rank, L[i].fl, L[i].na);
        assert_int_equal(b.len - at, L[i].wn);
        assert_memory_equal(b.s + at, L[i].want, L[i].wn);
    }
    itf_rd d = {(const uint8_t *)b.s, (const uint8_t *)b.s + b.len, 0};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(itf_var_get_block(&d, &r, 7), (long)bids[i]);
    for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
        uint8_t fl;
        uint32_t na;
        assert_int_equal(itf_var_get_line(&d, &r, L[i].rank, &fl, &na), 0);
        assert_int_equal(fl, L[i].fl);
        assert_int_equal(na, L[i].na);
    }
    assert_true(d.p == d.end);
    tz_buf_free(&b);
    /* refused: a block id past the blocks, a count past 64 or below 0, a cut line */
    uint8_t fl;
    uint32_t na;
    itf_rd e1 = {(const uint8_t *)"\x08", (const uint8_t *)"\x08" + 1, 0};
    assert_int_equal(itf_var_get_block(&e1, &r, 7), -1);
    itf_rd e2 = {(const uint8_t *)"\x00\x82\x01", (const uint8_t *)"\x00\x82\x01" + 3, 0};
    assert_int_equal(itf_var_get_line(&e2, &r, 2, &fl, &na), -1); /* 0 + 65 */
    itf_rd e3 = {(const uint8_t *)"\x01\x01", (const uint8_t *)"\x01\x01" + 2, 0};
    assert_int_equal(itf_var_get_line(&e3, &r, 2, &fl, &na), -1); /* 0 - 1 */
    itf_rd e4 = {(const uint8_t *)"\x00", (const uint8_t *)"\x00" + 1, 0};
    assert_int_equal(itf_var_get_line(&e4, &r, 2, &fl, &na), -1);
    itf_iclass_free(&c);
    itf_iclass_free(&r);
}

/* Address modes: the base register, the offset and what the base becomes. */
static void test_amode(void **state)
{
    (void)state;
    static const struct {
        const char *t;
        uint8_t kind, reg, wb;
        int32_t off, after;
    } A[] = {
        {"push {r4, r5, r6, r7, lr}", 1, 13, 1, -20, 0},
        {"vpush {d8-d15}", 1, 13, 1, -64, 0},
        {"pop {r4-r7, pc}", 1, 13, 2, 0, 20},
        {"ldr r3, [fp, #-8]", 1, 11, 0, -8, 0},
        {"str r2, [r3, #4]!", 1, 3, 1, 4, 0},
        {"ldr r3, [r0], #4", 1, 0, 2, 0, 4},
        {"ldrb r1, [r1]", 1, 1, 0, 0, 0},
        {"ldr r0, [pc, #0x10]", 2, 15, 0, 16, 0},
        {"ldr.w sl, [pc, #0x18]", 2, 15, 0, 24, 0},
        {"vldr d0, [r3, #0x20]", 1, 3, 0, 32, 0},
        {"ldr r1, [r12, #0x40]", 1, 12, 0, 64, 0},
        {"stmdb sp!, {r4, lr}", 1, 13, 1, -8, 0},
        {"ldmia r0!, {r1, r2, r3}", 1, 0, 2, 0, 12},
        {"ldm r0, {r0, r2, sl}", 1, 0, 0, 0, 0},
        {"ldr r0, [r1, r2]", 0, 0, 0, 0, 0}, /* a register offset */
        {"ldr r1, [r16]", 0, 0, 0, 0, 0},
        {"add r0, r0, #1", 0, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof A / sizeof A[0]; i++) {
        itf_am am;
        itf_amode(A[i].t, strlen(A[i].t), 0x1000, &am);
        assert_int_equal(am.pc, 0x1000);
        assert_int_equal(am.kind, A[i].kind);
        if (!am.kind)
            continue;
        assert_int_equal(am.reg, A[i].reg);
        assert_int_equal(am.off, A[i].off);
        if (am.kind == 1) {
            assert_int_equal(am.wb, A[i].wb);
            assert_int_equal(am.after, A[i].after);
        }
    }
}

/* First addresses coded from the predictions, entry by entry, and decoded back. */
static void test_ma0(void **state)
{
    (void)state;
    static const struct {
        const char *t;
        uint32_t pc, a0;
        uint64_t v;
    } G[] = {
        {"push {r4, lr}", 0x1000, 0x7ff8, 2 * 0xfff0},       /* sp unknown: from 0 */
        {"ldr r0, [sp, #4]", 0x1004, 0x7ffc, 0},               /* sp = 0x7ff8 */
        {"ldr r0, [pc, #0x10]", 0x1008, 0x1020, 0},            /* ARM: pc + 8 */
        {"ldr r0, [pc, #0x10]", 0x2002, 0x2014, 2 * 11},       /* Thumb: 6 below ARM's */
        {"ldr r0, [pc, #0x10]", 0x3000, 0x3014, 0},            /* Thumb from now on */
        {"ldr r1, [r5, #8]", 0x3004, 0x9000, 2 * 0xbfd8},      /* r5 unknown: from the previous */
        {"ldr r1, [r5, #12]", 0x3008, 0x500c, 2 * 0x7fe7 + 1}, /* nearer the previous than r5 + 12 */
        {"ldr r2, [r5, #0x10]", 0x300c, 0x5010, 0},            /* r5 = 0x5000 now */
    };
    itf_ma0 m, d;
    memset(&m, 0, sizeof m);
    memset(&d, 0, sizeof d);
    for (size_t i = 0; i < sizeof G / sizeof G[0]; i++) {
        itf_am am;
        itf_amode(G[i].t, strlen(G[i].t), G[i].pc, &am);
        assert_int_equal(itf_ma0_code(&m, &am, G[i].a0), G[i].v);
        assert_int_equal(itf_ma0_decode(&d, &am, G[i].v), G[i].a0);
    }
}

/* Instruction sizes for the address gaps: Thumb's from the text, ARM after a 4-byte
 * step the text did not explain, Thumb again after a 2-byte one. */
static void test_isize(void **state)
{
    (void)state;
    static const struct {
        const char *t;
        uint32_t sz;
    } S[] = {
        {"mov r0, r1", 2}, {"ldr.w r0, [r1]", 4}, {"bl #0x100", 4}, {"blx #\x01", 4}, {"blx r3", 2},
        {"ldrd r0, r1, [r2]", 4}, {"push.w {r4, lr}", 4}, {"push {r4, lr}", 2}, {"movw r0, #0x1234", 4},
    };
    for (size_t i = 0; i < sizeof S / sizeof S[0]; i++)
        assert_int_equal(itf_isize_pred(0, S[i].t, strlen(S[i].t)), S[i].sz);
    uint8_t arm = 0;
    itf_isize_update(&arm, "mov r0, r1", 10, 4); /* 4 where Thumb takes 2: ARM */
    assert_int_equal(arm, 1);
    assert_int_equal(itf_isize_pred(arm, "mov r0, r1", 10), 4);
    itf_isize_update(&arm, "mov r0, r1", 10, 12); /* a hole: no change */
    assert_int_equal(arm, 1);
    itf_isize_update(&arm, "mov r0, r1", 10, 2);
    assert_int_equal(arm, 0);
    itf_isize_update(&arm, "bl #0x100", 9, 4); /* a 32-bit Thumb instruction: still Thumb */
    assert_int_equal(arm, 0);
}

/* The pc-relative offsets version 8 stores apart, and the ones it keeps in the text. */
static void test_literal(void **state)
{
    (void)state;
    uint64_t v = 0;
    size_t at = 0, end = 0;
    const char *t = "ldr r3, [pc, #0x9c]";
    assert_int_equal(itf_text_literal(t, strlen(t), &v, &at, &end), 1);
    assert_int_equal(v, 0x9c);
    assert_int_equal(at, 14);
    assert_int_equal(end, 18);
    t = "ldr.w sl, [pc, #0x0]";
    assert_int_equal(itf_text_literal(t, strlen(t), &v, &at, &end), 1);
    assert_int_equal(v, 0);
    static const char *const KEEP[] = {"ldr r3, [pc, #0x09c]", "ldr r3, [pc, #-0x8]", "ldr r3, [pc, #0x100000000]",
                                       "ldr r3, [pc, #0x9C]", "ldr r3, [pc, #16]", "ldr r3, [pc, #0x10", "ldr r3, [r0, #0x10]",
                                       "ldr r3, [pc, #0x]"};
    for (size_t i = 0; i < sizeof KEEP / sizeof KEEP[0]; i++)
        assert_int_equal(itf_text_literal(KEEP[i], strlen(KEEP[i]), &v, &at, &end), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classes),
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_corrupt_blocks),
        cmocka_unit_test(test_variants),
        cmocka_unit_test(test_amode),
        cmocka_unit_test(test_ma0),
        cmocka_unit_test(test_isize),
        cmocka_unit_test(test_literal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
