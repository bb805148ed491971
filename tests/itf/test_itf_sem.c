/* The semantic predictor of Tarmac lines (format version 9, itf_sem.c): scripts of
 * lines in the three dialects, each line with the slots that must be predicted, and
 * predicted right: next pc (sequential, branch, return, condition), counters, register
 * values, flags, access addresses (A64 bytes, A32 bus lines) and store data, the
 * operands of gem5's bare STP from its opcode; and the hold-back of a kind of
 * prediction the trace does not follow. */
#include "testutil.h"
#include "itf/itf_internal.h"

typedef struct step {
    const char *line;
    const char *slots; /* the slots predicted exactly, as digits */
} step;

typedef struct rig {
    itf_np np;
    itf_kmap skels;
    tz_buf s;
    int dialect;
} rig;

static void rig_init(rig *r, int dialect)
{
    itf_np_init(&r->np, ITF_VERSION);
    assert_int_equal(itf_np_dialect(&r->np, dialect), 0);
    itf_np_chunk(&r->np, 0);
    itf_kmap_init(&r->skels);
    tz_buf_init(&r->s);
    r->dialect = dialect;
}

static void rig_free(rig *r)
{
    itf_np_free(&r->np);
    itf_kmap_free(&r->skels);
    tz_buf_free(&r->s);
}

/* One line: its predictions (mask), checked against want, then the state moves on. */
static uint32_t feed(rig *r, const char *line, const char *want)
{
    uint64_t nums[ITF_MAX_NUMS], v[32];
    size_t nn = itf_tokenize(line, strlen(line), &r->s, nums);
    int isnew;
    long id = itf_kmap_intern(&r->skels, r->s.s, r->s.len, &isnew);
    assert_true(id >= 0);
    if (isnew) {
        int rs = itf_skel_is_record_start(r->dialect, (const uint8_t *)r->s.s, r->s.len, nn);
        assert_int_equal(itf_np_add_skel(&r->np, (const uint8_t *)r->s.s, r->s.len, nn, rs), id);
    }
    uint32_t all, m = itf_sem_line(&r->np.sem, (uint32_t)id, v, &all);
    for (const char *p = want; *p; p++) {
        int k = *p - '0';
        if (!(m >> k & 1) || v[k] != nums[k])
            fail_msg("%s\n  slot %d: predicted %d, value %llx, number %llx", line, k, (int)(m >> k & 1),
                     (unsigned long long)v[k], (unsigned long long)nums[k]);
    }
    itf_sem_end(&r->np.sem, (uint32_t)id, nums, nn, all, v);
    return m;
}

static void feed_all(rig *r, const step *st, size_t n)
{
    for (size_t i = 0; i < n; i++)
        feed(r, st[i].line, st[i].slots);
}

static void run(int dialect, const step *st, size_t n)
{
    rig r;
    rig_init(&r, dialect);
    feed_all(&r, st, n);
    rig_free(&r);
}

/* Fast Models A64: slots of an IT line are tick 0, count 1, pc 2; of R lines the value
 * 1; of MW8 lines the address 1 and the data halves 3, 4. */
static void test_fastmodels(void **state)
{
    (void)state;
    static const step st[] = {
        {"0 clk R cpsr 000003cd", ""},
        {"1 clk IT (1) 002105d4 d2a00200 O EL3h_s : MOV      x0,#0x100000", ""},
        {"1 clk R X0 0000000000100000", "1"},
        {"2 clk IT (2) 002105d8 9100001f O EL3h_s : MOV      sp,x0", "012"},
        {"2 clk R SP_EL3 0000000000100000", "1"},
        {"3 clk IT (3) 002105dc 940000f8 O EL3h_s : BL       {pc}+0x3e0 ; 0x2109bc", "012"},
        {"3 clk R X30 00000000002105E0", "1"},
        {"4 clk IT (4) 002109bc a9be7bfd O EL3h_s : STP      x29,x30,[sp,#-0x20]!", "012"},
        {"4 clk MW8 000fffe0:0000000fffe0 00000000_00000000", "134"},
        {"4 clk MW8 000fffe8:0000000fffe8 00000000_002105e0", "134"},
        {"4 clk R SP_EL3 00000000000FFFE0", "1"},
        {"5 clk IT (5) 002109c0 f1000c1f O EL3h_s : CMP      x0,#3", "012"},
        {"5 clk R cpsr 200003cd", "1"},
        {"6 clk IT (6) 002109c4 54000040 O EL3h_s : B.EQ     {pc}+8 ; 0x2109cc", "012"},
        {"7 clk IT (7) 002109c8 d1000400 O EL3h_s : SUB      x0,x0,#1", "012"},
        {"7 clk R X0 00000000000FFFFF", "1"},
        {"8 clk IT (8) 002109cc 91002001 O EL3h_s : ADD      x1,x0,#8", "012"},
        {"8 clk R X1 0000000000100007", "1"},
        {"9 clk IT (9) 002109d0 b9400422 O EL3h_s : LDR      w2,[x1,#4]", "012"},
        {"9 clk MR4 0010000b:00000010000b 00000007", "1"},
        {"9 clk R X2 0000000000000007", ""},
        {"10 clk IT (10) 002109d4 d65f03c0 O EL3h_s : RET      ", "012"},
        {"11 clk IT (11) 002105e0 d503201f O EL3h_s : NOP      ", "012"},
    };
    run(TRAZA_ITF_TARMAC_FM, st, sizeof st / sizeof *st);
}

/* gem5: decimal immediates, MOVZ with its shift, MADD's addend first, CSINC, a TBZ bit
 * given as a mask, STP without operands (read from the opcode, a9be7bfd = STP
 * x29, x30, [sp, #-32]!), and a stack pointer the trace never prints. */
static void test_gem5(void **state)
{
    (void)state;
    static const step st[] = {
        {"0 clk cpu0 IT (1) 002105d4 d2a00200 O EL3h_s :   MOVZ   X0, #16, #16", ""},
        {"0 clk cpu0 R X0 0000000000100000", "1"},
        {"250 clk cpu0 IT (2) 002105d8 9100001f O EL3h_s :   ADD   SP, X0, #0", "12"},
        {"500 clk cpu0 IT (3) 002105dc a9be7bfd O EL3h_s : STP        ", "012"},
        {"500 clk cpu0 MW8 000fffe0:0000000fffe0 0000000000000000", "13"},
        {"500 clk cpu0 MW8 000fffe8:0000000fffe8 0000000000000000", "13"},
        {"750 clk cpu0 IT (4) 002105e0 528000e8 O EL3h_s :   MOVZ   W8, #7, #0", "012"},
        {"750 clk cpu0 R W8 00000007", "1"},
        {"1000 clk cpu0 IT (5) 002105e4 1b087d09 O EL3h_s :   MADD   W9, WZR, W8, W8", "012"},
        {"1000 clk cpu0 R W9 00000031", "1"},
        {"1250 clk cpu0 IT (6) 002105e8 1a9f17ea O EL3h_s :   CSINC   W10, WZR, WZR, NE", "012"},
        {"1250 clk cpu0 R W10 00000000", "1"},
        {"1500 clk cpu0 IT (7) 002105ec 36000009 O EL3h_s :   TBZ   W9, #0X1, 0X210000", "012"},
        {"1750 clk cpu0 IT (8) 002105f0 f9000be9 O EL3h_s :   STR   X9, [SP, #16]", "012"},
        {"1750 clk cpu0 MW8 000ffff0:0000000ffff0 0000000000000031", "13"},
        {"2000 clk cpu0 IT (9) 002105f4 90ffff80 O EL3h_s :   ADRP   X0, #18446744073709486080", "012"},
        {"2000 clk cpu0 R X0 0000000000200000", "1"},
        {"2250 clk cpu0 IT (10) 002105f8 14000002 O EL3h_s :   B   0X210600", "012"},
        {"2500 clk cpu0 IT (11) 00210600 d503201f O EL3h_s :   NOP   ", "012"},
    };
    run(TRAZA_ITF_TARMAC_GEM5, st, sizeof st / sizeof *st);
}

/* ES (A32): a record's tick is slot 0 and its pc slot 1; R, LD, ST and BR lines have
 * their value, address or target in slot 0; LD/ST addresses are 16-byte bus lines. */
static void test_es(void **state)
{
    (void)state;
    static const step st[] = {
        {"Tarmac Text Rev 3t", ""},
        {"          0 tic ES  (00020150:e3a00601) A svc_s:          MOV      r0,#0x100000", ""},
        {"                    R R0 00100000", "0"},
        {"                    R CPSR 000001d3", ""},
        {"          0 tic ES  (00020154:e1a0d000) A svc_s:          MOV      sp,r0", "01"},
        {"                    R SP_SVC 00100000", "0"},
        {"          0 tic ES  (00020158:e92d4830) A svc_s:          PUSH     {r4,r5,r11,lr}", "01"},
        {"                    ST 000ffff0 00000000 00000000 00000000 00000000    S:00000ffff0    nGnRnE OSH", "0"},
        {"                    R SP_SVC 000ffff0", "0"},
        {"          0 tic ES  (0002015c:eb0000e4) A svc_s:          BL       {pc}+0x398 ; 0x204f4", "01"},
        {"                    R LR_SVC 00020160", "0"},
        {"                    BR (000204f4) A", "0"},
        {"          0 tic ES  (000204f4:e5d0102b) A svc_s:          LDRB     r1,[r0,#0x2b]", "01"},
        {"                    LD 00100020 ........ 3a...... ........ ........    S:0000100020    nGnRnE OSH", "0"},
        {"                    R R1 0000003a", ""},
        {"          0 tic ES  (000204f8:e3510000) A svc_s:          CMP      r1,#0", "01"},
        {"                    R CPSR 200001d3", "0"},
        {"          0 tic ES  (000204fc:0a000006) A svc_s:   CCFAIL BEQ      {pc}+0x20 ; 0x2051c", "01"},
        {"          0 tic ES  (00020500:e8bd8800) A svc_s:          POP      {r11,pc}", "01"},
        {"                    LD 000ffff0 00000000 00000000 ........ ........    S:00000ffff0    nGnRnE OSH", "0"},
        {"                    R SP_SVC 000ffff8", "0"},
        {"                    BR (00020160) A", ""},
        {"          0 tic ES  (00020160:e1a00000) A svc_s:          MOV      r0,r0", "01"},
    };
    run(TRAZA_ITF_TARMAC_ES, st, sizeof st / sizeof *st);
}

/* A text that says ADD r0,r0,#1 while R0 jumps: the register kind is held back after
 * its misses, the pc kind stays offered; a new chunk trusts every kind again. */
static void test_hold_back(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, TRAZA_ITF_TARMAC_ES);
    char line[200];
    uint32_t x = 12345;
    uint32_t m = 0;
    for (int it = 0; it < 40; it++) {
        snprintf(line, sizeof line, "%11d tic ES  (%08x:e2800001) A svc_s:          ADD      r0,r0,#1", it,
                 0x8000 + 4 * it);
        m = feed(&r, line, it ? "1" : "");
        x = x * 69069u + 1;
        snprintf(line, sizeof line, "                    R R0 %08x", x);
        m = feed(&r, line, "");
    }
    assert_int_equal(m, 0); /* the register value: held back */
    snprintf(line, sizeof line, "%11d tic ES  (%08x:e2800001) A svc_s:          ADD      r0,r0,#1", 40, 0x8000 + 160);
    feed(&r, line, "01");
    itf_np_chunk(&r.np, 1);
    feed(&r, line, "");
    assert_int_equal(feed(&r, "                    R R0 00000001", "0"), 1); /* 0 + 1 */
    rig_free(&r);
}

/* Text the model does not read is no error: no prediction but the next pc. */
static void test_unknown_text(void **state)
{
    (void)state;
    static const step st[] = {
        {"1 clk IT (1) 00001000 deadbeef O EL3h_s : FROB     x0,[[[,#0x", ""},
        {"1 clk R X0 0000000000000001", ""},
        {"2 clk IT (2) 00001004 deadbeef O EL3h_s : ADD      x0,x0", "012"},
        {"3 clk IT (3) 00001008 deadbeef O EL3h_s : LDR      x0,[x1,x2,FOO #3]", "012"},
        {"4 clk IT (4) 0000100c 14000000 O EL3h_s : B        {pc}", "012"},
        {"5 clk IT (5) 0000100c 14000000 O EL3h_s : B        {pc}", "012"},
    };
    run(TRAZA_ITF_TARMAC_FM, st, sizeof st / sizeof *st);
}

/* An instruction is decoded once per text, not once per pc, unless its text has
 * "{pc}": a pc-relative branch at two pcs has two targets. The decode cache holds
 * the two B and one ADD for two pcs. */
static void test_text_cache(void **state)
{
    (void)state;
    static const step st[] = {
        {"1 clk IT (1) 00210000 14000004 O EL3h_s : B        {pc}+0x10", ""},
        {"2 clk IT (2) 00210010 14000004 O EL3h_s : B        {pc}+0x10", "012"},
        {"3 clk IT (3) 00210020 91002001 O EL3h_s : ADD      x1,x0,#8", "012"},
        {"3 clk R X1 0000000000000008", "1"},
        {"4 clk IT (4) 00210024 91002001 O EL3h_s : ADD      x1,x0,#8", "012"},
        {"4 clk R X1 0000000000000008", "1"},
    };
    rig r;
    rig_init(&r, TRAZA_ITF_TARMAC_FM);
    feed_all(&r, st, sizeof st / sizeof *st);
    assert_int_equal(r.np.sem.ncent, 3);
    rig_free(&r);
}

/* gem5's bare STP: the same text at two pcs, each read from its own opcode (the first
 * STP x29, x30, [sp, #-32]!, the second STP x1, x2, [sp, #16]): their addresses. */
static void test_bare_stp_per_pc(void **state)
{
    (void)state;
    static const step st[] = {
        {"0 clk cpu0 IT (1) 002105d4 d2a00200 O EL3h_s :   MOVZ   X0, #16, #16", ""},
        {"0 clk cpu0 R X0 0000000000100000", "1"},
        {"250 clk cpu0 IT (2) 002105d8 9100001f O EL3h_s :   ADD   SP, X0, #0", "12"},
        {"500 clk cpu0 IT (3) 002105dc a9be7bfd O EL3h_s : STP        ", "012"},
        {"500 clk cpu0 MW8 000fffe0:0000000fffe0 0000000000000000", "13"},
        {"500 clk cpu0 MW8 000fffe8:0000000fffe8 0000000000000000", "13"},
        {"750 clk cpu0 IT (4) 002105e0 a9010be1 O EL3h_s : STP        ", "012"},
        {"750 clk cpu0 MW8 000ffff0:0000000ffff0 0000000000000000", "13"},
        {"750 clk cpu0 MW8 000ffff8:0000000ffff8 0000000000000000", "13"},
    };
    run(TRAZA_ITF_TARMAC_GEM5, st, sizeof st / sizeof *st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fastmodels), cmocka_unit_test(test_gem5),        cmocka_unit_test(test_es),
        cmocka_unit_test(test_hold_back),  cmocka_unit_test(test_unknown_text), cmocka_unit_test(test_text_cache),
        cmocka_unit_test(test_bare_stp_per_pc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
