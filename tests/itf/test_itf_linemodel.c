/* ITFComp line model (format version 4; the skeleton dictionary of version 6): the
 * width-free number kinds of the tokenizer, the record start and pc slot taken from a
 * skeleton, the front-coded skeleton dictionary, and the record-context predictor:
 * on a loop that repeats, every number and every skeleton is predicted exactly from the
 * fourth iteration on (a loaded counter through the memory map), while the version 3
 * predictor still leaves residuals. */
#include "testutil.h"
#include "itf/itf_internal.h"

/* Tokenizes a line of n bytes and renders it back, from the skeleton and from the
 * skeleton compiled for rendering; returns the number of numbers. */
static size_t tokn(const char *line, size_t n, tz_buf *skel, uint64_t *nums)
{
    size_t nn = itf_tokenize(line, n, skel, nums);
    tz_buf out, prog;
    tz_buf_init(&out), tz_buf_init(&prog);
    assert_int_equal(itf_skel_render(&out, (const uint8_t *)skel->s, skel->len, nums, nn), 0);
    assert_int_equal(out.len, n);
    assert_memory_equal(out.s, line, n);
    size_t room;
    assert_int_equal(itf_skel_compile(&prog, (const uint8_t *)skel->s, skel->len, &room), 0);
    tz_buf_put(&prog, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", ITF_PROG_PAD);
    char *o = malloc(room + ITF_PROG_PAD);
    assert_non_null(o);
    assert_int_equal(itf_prog_render(o, (const uint8_t *)prog.s, nums), n);
    assert_true(n <= room);
    assert_memory_equal(o, line, n);
    free(o);
    tz_buf_free(&out), tz_buf_free(&prog);
    return nn;
}

static size_t tok(const char *line, tz_buf *skel, uint64_t *nums) { return tokn(line, strlen(line), skel, nums); }

/* The compiled skeletons render what the skeletons render: random lines of digits,
 * hex, 0x numbers, letters, spaces and 0x01 bytes, a literal of 70,000 bytes, and
 * every number kind; a malformed skeleton does not compile. */
static void test_compiled_render(void **state)
{
    (void)state;
    tz_buf skel;
    tz_buf_init(&skel);
    uint64_t nums[ITF_MAX_NUMS], seed = 88172645463325252ull;
    static const char *const parts[] = {"0x", "0X", "7", "00", "1234567890", "ff", "ABCDEF", " ", "   ", "x",
                                        ":", "\x01", "tic", "(", ")", "18446744073709551615", "-", "\t", "{pc}+"};
    char line[400];
    for (int i = 0; i < 5000; i++) {
        size_t n = 0;
        int np = 1 + (int)(seed % 40);
        for (int k = 0; k < np; k++) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            const char *p = parts[seed % (sizeof parts / sizeof *parts)];
            size_t pl = strlen(p);
            if (n + pl >= sizeof line)
                break;
            memcpy(line + n, p, pl);
            n += pl;
        }
        size_t nn = itf_tokenize(line, n, &skel, nums);
        if (nn > ITF_MAX_NUMS)
            continue;
        tokn(line, n, &skel, nums);
    }
    char *big = malloc(70001);
    assert_non_null(big);
    memset(big, 'a', 70000);
    memcpy(big + 35000, " 42 0x1f ", 9);
    tokn(big, 70000, &skel, nums);
    free(big);
    tok("     121700 tic ES  (00020ff8:1a00000a) A svc_s:          B        {pc}+0x30 ; 0x21028", &skel, nums);
    /* a placeholder cut short, an unknown kind, a fixed hex width over 16 */
    tz_buf prog;
    tz_buf_init(&prog);
    size_t room;
    const uint8_t cut[] = {'a', 1, NK_HEXL}, kind[] = {'a', 1, 9, 4, 'b'}, wide[] = {1, NK_HEXL, 17};
    assert_int_equal(itf_skel_compile(&prog, cut, sizeof cut, &room), -1);
    assert_int_equal(itf_skel_compile(&prog, kind, sizeof kind, &room), -1);
    assert_int_equal(itf_skel_compile(&prog, wide, sizeof wide, &room), -1);
    tz_buf_free(&prog);
    tz_buf_free(&skel);
}

static void test_width_free(void **state)
{
    (void)state;
    tz_buf a, b;
    tz_buf_init(&a);
    tz_buf_init(&b);
    uint64_t na[ITF_MAX_NUMS], nb[ITF_MAX_NUMS];
    /* a right-aligned tick that grows a digit, a branch target without leading zeros */
    size_t n1 = tok("          0 tic ES  (00020150:e3a00601) A svc_s:          B        {pc}+0x398 ; 0x204f0", &a, na);
    size_t n2 = tok("     121700 tic ES  (00020ff8:1a00000a) A svc_s:          B        {pc}+0x30 ; 0x21028", &b, nb);
    assert_int_equal(n1, 5);
    assert_int_equal(n2, 5);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.s, b.s, a.len); /* one skeleton for both */
    assert_true(na[0] == 0 && nb[0] == 121700);
    assert_true(na[4] == 0x204f0 && nb[4] == 0x21028);
    /* decimals without spaces before them, upper-case 0X numbers, leading zeros kept */
    n1 = tok("7 clk IT (7) 002109d8 97ffff59 O EL3h_s :   BL   0X21073C", &a, na);
    n2 = tok("12345 clk IT (12345) 002109dc 97ffff59 O EL3h_s :   BL   0X2109BC", &b, nb);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.s, b.s, a.len);
    assert_true(nb[0] == 12345 && nb[4] == 0x2109bc);
    n1 = tok("x 0x0 0x00ab 0X0 007", &a, na);
    assert_int_equal(n1, 4);
    /* a number too wide for a field of at most 18 characters keeps literal spaces */
    tok("a                        5 b", &a, na);
    tz_buf_free(&a);
    tz_buf_free(&b);
}

static void test_skeleton_facts(void **state)
{
    (void)state;
    tz_buf s;
    tz_buf_init(&s);
    uint64_t nums[ITF_MAX_NUMS];
    size_t nn = tok("     121700 tic ES  (00020ff8:1a00000a) A svc_s:          CMP      r0,r1", &s, nums);
    assert_int_equal(itf_skel_is_record_start(TRAZA_ITF_TARMAC_ES, (const uint8_t *)s.s, s.len, nn), 1);
    itf_np np;
    itf_np_init(&np, ITF_VERSION);
    assert_int_equal(itf_np_add_skel(&np, (const uint8_t *)s.s, s.len, nn, 1), 0);
    assert_int_equal(np.sk[0].pcslot, 1); /* the tick is slot 0, the pc slot 1 */
    nn = tok("                    R R0 000ffbc0", &s, nums);
    assert_int_equal(itf_skel_is_record_start(TRAZA_ITF_TARMAC_ES, (const uint8_t *)s.s, s.len, nn), 0);
    nn = tok("244750 clk cpu0 IT (885) 00210c84 b9400908 O EL3h_s :   LDR   X8, [X8, #8]", &s, nums);
    assert_int_equal(itf_skel_is_record_start(TRAZA_ITF_TARMAC_GEM5, (const uint8_t *)s.s, s.len, nn), 1);
    assert_int_equal(itf_np_add_skel(&np, (const uint8_t *)s.s, s.len, nn, 1), 1);
    assert_int_equal(np.sk[1].pcslot, 2);
    nn = tok("244750 clk cpu0 R X8 000000000000002a", &s, nums);
    assert_int_equal(itf_skel_is_record_start(TRAZA_ITF_TARMAC_GEM5, (const uint8_t *)s.s, s.len, nn), 0);
    itf_np_free(&np);
    tz_buf_free(&s);
}

/* Codes the lines of `iters` loop iterations with the line model (version 4 or 3) the
 * way the writer does; returns the number of non-zero residuals in iterations >= 3 (the
 * first ones teach the contexts and the choice among the candidates) and
 * counts the skeleton misses there. */
static size_t run_loop(int v4, int iters, size_t *skel_miss)
{
    tz_buf s;
    tz_buf_init(&s);
    itf_kmap skels;
    itf_kmap_init(&skels);
    itf_np np;
    itf_np_init(&np, v4 ? ITF_VERSION : 3);
    itf_np_chunk(&np, 0);
    size_t nonzero = 0;
    *skel_miss = 0;
    char line[200];
    uint32_t sp = 0xffbc0, r0 = 5;
    for (int it = 0; it < iters; it++) {
        /* two loads with one skeleton (the immediates are numbers) at two pcs, the
         * second one of the value stored by the first record */
        for (int j = 0; j < 5; j++) {
            uint32_t pc = 0x8000 + 4 * (uint32_t)j;
            const char *ops[5] = {"ADD      r0,r0,#1", "STR      r0,[sp,#4]", "LDR      r1,[sp,#8]", "LDR      r1,[sp,#4]",
                                  "BNE      {pc}-0x14 ; 0x8000"};
            for (int l = 0; l < (j == 4 ? 1 : 2); l++) {
                if (l == 0)
                    snprintf(line, sizeof line, "%11d tic ES  (%08x:e2800001) A svc_s:          %s", 100 * it, pc, ops[j]);
                else if (j == 0)
                    snprintf(line, sizeof line, "                    R R0 %08x", ++r0);
                else if (j == 1)
                    snprintf(line, sizeof line, "                    ST %08x %08x    S:%010x", sp + 4, r0, sp + 4);
                else if (j == 2)
                    snprintf(line, sizeof line, "                    LD %08x %08x    S:%010x", sp + 8, 0x1234u, sp + 8);
                else /* reads back the counter stored at j == 1: the memory map knows it */
                    snprintf(line, sizeof line, "                    LD %08x %08x    S:%010x", sp + 4, r0, sp + 4);
                uint64_t nums[ITF_MAX_NUMS];
                size_t nn = itf_tokenize(line, strlen(line), &s, nums);
                int isnew;
                long id = itf_kmap_intern(&skels, s.s, s.len, &isnew);
                assert_true(id >= 0);
                if (isnew) {
                    int rs = itf_skel_is_record_start(TRAZA_ITF_TARMAC_ES, (const uint8_t *)s.s, s.len, nn);
                    assert_int_equal(itf_np_add_skel(&np, (const uint8_t *)s.s, s.len, nn, rs), id);
                }
                if (v4) {
                    long pred = itf_np_skel_predict(&np);
                    assert_true(pred >= 0);
                    if (it >= 2 && pred != id)
                        ++*skel_miss;
                }
                assert_int_equal(itf_np_begin(&np, (uint32_t)id), 0);
                for (size_t k = 0; k < nn; k++) {
                    uint64_t p = itf_np_predict(&np, (uint32_t)id, k, nums);
                    /* the tick and the counter r0 change every iteration: strides,
                     * left to the entropy coder */
                    int varying = (l == 0 && k == 0) || (j == 0 && l == 1) || (j == 1 && l == 1 && k == 1);
                    if (it >= 3 && nums[k] != p && !varying)
                        nonzero++;
                    itf_np_update(&np, (uint32_t)id, k, nums);
                }
                itf_np_end(&np, (uint32_t)id, nums);
            }
        }
    }
    itf_np_free(&np);
    itf_kmap_free(&skels);
    tz_buf_free(&s);
    return nonzero;
}

static void test_record_contexts(void **state)
{
    (void)state;
    size_t miss3, miss4;
    size_t nz3 = run_loop(0, 30, &miss3);
    size_t nz4 = run_loop(1, 30, &miss4);
    assert_int_equal(nz4, 0);  /* pc, opcode, addresses, loaded value: all exact */
    assert_int_equal(miss4, 0); /* every skeleton predicted */
    assert_true(nz3 > 50);      /* version 3 cannot tell the four records apart */
}

/* The skeleton dictionary of version 6: front coding gives the plain layout back, each
 * entry takes the longest prefix any earlier skeleton shares (checked against a search
 * of all of them), and corrupt entries are refused with their reason. */
static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

static void test_skel_dict(void **state)
{
    (void)state;
    static const char *const pre[] = {"", "\x01\x05\x0b tic ES  (\x01\x03\x08:\x01\x03\x08) A svc_s:   ",
                                      "\x01\x01\x01 clk R X", "\x01\x01\x01 clk cpu0 IT (", "                    R "};
    uint64_t x = 88172645463325252u;
    for (int round = 0; round < 3; round++) {
        itf_kmap m;
        itf_kmap_init(&m);
        size_t want = round == 0 ? 1 : round == 1 ? 40 : 600;
        char k[200];
        while (m.count < want) {
            const char *p = pre[rnd(&x) % 5];
            size_t n = strlen(p), tail = rnd(&x) % 12;
            memcpy(k, p, n);
            for (size_t i = 0; i < tail; i++)
                k[n + i] = "ab\x01 0x,"[rnd(&x) % 7];
            int isnew;
            assert_true(itf_kmap_intern(&m, k, n + tail, &isnew) >= 0);
        }
        tz_buf front, plain, want_plain;
        tz_buf_init(&front), tz_buf_init(&plain), tz_buf_init(&want_plain);
        assert_int_equal(itf_skels_front(&front, &m), 0);
        for (size_t i = 0; i < m.count; i++) {
            size_t n;
            const uint8_t *key = itf_kmap_key(&m, i, &n);
            itf_put_uv(&want_plain, n);
            tz_buf_put(&want_plain, key, n);
        }
        const char *why = "unset";
        assert_int_equal(itf_skels_unfront((const uint8_t *)front.s, front.len, &plain, &why), 0);
        assert_null(why);
        assert_int_equal(plain.len, want_plain.len);
        assert_memory_equal(plain.s, want_plain.s, plain.len);
        if (round == 2)
            assert_true(front.len * 2 < want_plain.len);
        /* every entry's prefix is the longest any earlier skeleton shares */
        itf_rd d = {(const uint8_t *)front.s, (const uint8_t *)front.s + front.len, 0};
        for (size_t i = 0; i < m.count; i++) {
            uint64_t ref = itf_get_uv(&d), l = ref ? itf_get_uv(&d) : 0, rest = itf_get_uv(&d);
            d.p += rest;
            size_t n, best = 0;
            const uint8_t *key = itf_kmap_key(&m, i, &n);
            for (size_t j = 0; j < i; j++) {
                size_t nj, c = 0;
                const uint8_t *kj = itf_kmap_key(&m, j, &nj);
                while (c < n && c < nj && key[c] == kj[c])
                    c++;
                best = c > best ? c : best;
            }
            assert_int_equal(l, best);
        }
        tz_buf_free(&front), tz_buf_free(&plain), tz_buf_free(&want_plain);
        itf_kmap_free(&m);
    }
    static const struct {
        const char *in;
        size_t n;
        const char *why;
    } bad[] = {
        {"\x01\x02\x00", 3, "skeleton prefix reference out of range"},         /* no earlier skeleton */
        {"\x00\x02" "ab" "\x01\x03\x00", 7, "skeleton prefix reference out of range"}, /* 3 > 2 bytes */
        {"\x00\x01" "a" "\x01\x00\x01" "b", 7, "skeleton prefix reference out of range"}, /* ref, no prefix */
        {"\x00\x05" "ab", 4, "skeleton length"},
        {"\x00\x80", 2, "skeleton entry cut short"},
        {"\x02\x01", 2, "skeleton entry cut short"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tz_buf out;
        tz_buf_init(&out);
        const char *why = NULL;
        assert_int_equal(itf_skels_unfront((const uint8_t *)bad[i].in, bad[i].n, &out, &why), -1);
        assert_non_null(why);
        assert_string_equal(why, bad[i].why);
        tz_buf_free(&out);
    }
    /* a good one: "ab", then "abc" from it, then "" */
    tz_buf out;
    tz_buf_init(&out);
    const char *why;
    assert_int_equal(itf_skels_unfront((const uint8_t *)"\x00\x02" "ab" "\x01\x02\x01" "c" "\x00\x00", 10, &out, &why), 0);
    assert_int_equal(out.len, 3 + 4 + 1);
    assert_memory_equal(out.s, "\x02" "ab" "\x03" "abc" "\x00", 8);
    tz_buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_width_free),
        cmocka_unit_test(test_compiled_render),
        cmocka_unit_test(test_skeleton_facts),
        cmocka_unit_test(test_record_contexts),
        cmocka_unit_test(test_skel_dict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
