/* Grammar compression: the paper's example, the three grammar properties on random and
 * real inputs, exact round trips, random access, .tzg, and a 10^10-symbol grammar. */
#include "testutil.h"
#include "huge_grammar.h"
#include "traza/grammar.h"
#include "grammar/gram_internal.h"
#include "util/lines_hex.h"
#include "util/util.h"
#include <zlib.h>

/* The shared test grammars, failing the test if one cannot be built. */
static traza_grammar *must(traza_grammar *(*make)(traza_err *))
{
    traza_err err;
    traza_err_clear(&err);
    traza_grammar *g = make(&err);
    if (!g)
        fail_msg("building a test grammar: %s", err.msg[0] ? err.msg : "out of memory");
    return g;
}

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static traza_grammar *build_str(const char *w, traza_galgo a, const uint64_t *loop_header)
{
    uint64_t seq[256];
    size_t n = 0;
    for (const char *p = w; *p; p++)
        seq[n++] = (uint64_t)(unsigned char)*p;
    traza_err err;
    traza_grammar *g = traza_grammar_build(seq, n, a, loop_header, &err);
    if (!g)
        fail_msg("build: %s", err.msg);
    return g;
}

/* rule r's body as text: terminals as chars, rules as R<n>, ^k for repeats */
static void body(const traza_grammar *g, uint32_t r, char *out)
{
    out[0] = 0;
    for (uint64_t k = g->off[r]; k < g->off[r + 1]; k++) {
        const traza_gsym *s = &g->syms[k];
        char t[32];
        if (s->is_rule)
            snprintf(t, sizeof t, "%sR%llu", k > g->off[r] ? " " : "", (unsigned long long)s->value);
        else
            snprintf(t, sizeof t, "%s%c", k > g->off[r] ? " " : "", (char)s->value);
        strcat(out, t);
        if (s->rep > 1) {
            snprintf(t, sizeof t, "^%llu", (unsigned long long)s->rep);
            strcat(out, t);
        }
    }
}

static void test_paper_example(void **state)
{
    (void)state;
    const char *w = "cabcabcabcabcad";
    traza_err err;
    traza_gstats st;
    char b[256];
    /* Sequitur: S -> AABd, A -> CC, B -> ca, C -> Bb: Size 14 */
    traza_grammar *g = build_str(w, TRAZA_G_SEQUITUR, NULL);
    assert_int_equal(traza_grammar_stats(g, &st, &err), 0);
    assert_int_equal(st.size, 14);
    assert_int_equal(st.rules, 4);
    assert_int_equal(st.length, 15);
    body(g, 0, b);
    assert_string_equal(b, "R1 R1 R2 d");
    body(g, 1, b);
    assert_string_equal(b, "R3 R3");
    body(g, 2, b);
    assert_string_equal(b, "c a");
    body(g, 3, b);
    assert_string_equal(b, "R2 b");
    traza_grammar_free(g);
    /* Cyclitur, loop_header = a: S -> c A^4 B, A -> abc, B -> ad: Size 11 */
    uint64_t loop_header = 'a';
    g = build_str(w, TRAZA_G_CYCLITUR, &loop_header);
    assert_int_equal(traza_grammar_stats(g, &st, &err), 0);
    assert_int_equal(st.size, 11);
    assert_int_equal(st.rules, 3);
    assert_int_equal(st.cycles, 6);
    assert_int_equal(st.distinct_cycles, 3);
    assert_true(st.comp > 0.733 && st.comp < 0.734);
    body(g, 0, b);
    assert_string_equal(b, "c R1^4 R2");
    body(g, 1, b);
    assert_string_equal(b, "a b c");
    body(g, 2, b);
    assert_string_equal(b, "a d");
    assert_true(g->is_cycle[1] && g->is_cycle[2]);
    traza_grammar_free(g);
}

typedef struct collect {
    uint64_t *v;
    size_t n, cap;
} collect;

static int col(void *u, uint64_t s)
{
    collect *c = u;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 1024;
        c->v = realloc(c->v, c->cap * sizeof *c->v);
        assert_non_null(c->v);
    }
    c->v[c->n++] = s;
    return 0;
}

/* properties + exact round trip + random access + .tzg round trip */
static void check_all(const uint64_t *seq, size_t n, traza_galgo a, const uint64_t *loop_header, int tzg)
{
    traza_err err;
    traza_grammar *g = traza_grammar_build(seq, n, a, loop_header, &err);
    if (!g)
        fail_msg("build: %s", err.msg);
    if (traza_grammar_check(g, a != TRAZA_G_SEQUITUR, &err) < 0)
        fail_msg("%s on %zu symbols: %s", traza_galgo_name(a), n, err.msg);
    assert_int_equal(g->len[0], n);
    collect c = {0};
    assert_int_equal(traza_grammar_extract(g, 0, n, col, &c, &err), 0);
    assert_int_equal(c.n, n);
    if (n)
        assert_memory_equal(c.v, seq, n * sizeof *seq);
    for (int t = 0; t < 8 && n; t++) {
        uint64_t i = rnd() % n, j = i + rnd() % (n - i + 1), v;
        assert_int_equal(traza_grammar_at(g, i, &v, &err), 0);
        assert_true(v == seq[i]);
        c.n = 0;
        assert_int_equal(traza_grammar_extract(g, i, j, col, &c, &err), 0);
        assert_int_equal(c.n, j - i);
        if (j > i)
            assert_memory_equal(c.v, seq + i, (j - i) * sizeof *seq);
        traza_gsym *cov;
        size_t nc;
        assert_int_equal(traza_grammar_cover(g, i, j, &cov, &nc, &err), 0);
        uint64_t tot = 0;
        for (size_t k = 0; k < nc; k++)
            tot += cov[k].rep * (cov[k].is_rule ? g->len[cov[k].value] : 1);
        assert_true(tot == j - i);
        free(cov);
    }
    free(c.v);
    if (loop_header) { /* the cycle grammar expands to the run-length-encoded cycle sequence */
        traza_gcycle *tab;
        size_t nt, nr;
        traza_gcrun *runs;
        traza_grammar *cg;
        uint64_t *wlen;
        assert_int_equal(traza_grammar_cycles(g, *loop_header, &tab, &nt, &err), 0);
        assert_int_equal(traza_grammar_cycle_runs(g, *loop_header, tab, nt, &runs, &nr, &err), 0);
        if (traza_grammar_cycle_grammar(g, *loop_header, tab, nt, &cg, &wlen, &err) < 0)
            fail_msg("cycle grammar: %s", err.msg);
        assert_true(wlen[0] == n);
        collect e = {0};
        assert_int_equal(traza_grammar_extract(cg, 0, cg->len[0], col, &e, &err), 0);
        size_t at = 0;
        for (size_t r = 0; r < nr; r++)
            for (uint64_t t = 0; t < runs[r].rep; t++, at++)
                assert_true(at < e.n && e.v[at] == runs[r].cycle);
        assert_int_equal(at, e.n);
        traza_ganomaly *an;
        size_t na;
        traza_ganomaly_info info;
        assert_int_equal(traza_grammar_anomalies(cg, wlen, tab, nt, 0.05, 1000000, &an, &na, &info, &err), 0);
        assert_true(info.cycles == e.n && !info.truncated);
        for (size_t k = 0; k < na; k++)
            assert_true(an[k].start < an[k].end && an[k].end <= n && an[k].from_k < an[k].to_k + 1 &&
                        an[k].to_k < e.n);
        free(an);
        free(e.v);
        free(wlen);
        traza_grammar_free(cg);
        free(runs);
        free(tab);
    }
    if (tzg) {
        for (int be = TRAZA_TZG_ZSTD; be <= TRAZA_TZG_XZ; be++) {
            unsigned char *d;
            size_t dn;
            assert_int_equal(traza_tzg_encode(g, be, &d, &dn, &err), 0);
            traza_grammar *h = traza_tzg_decode(d, dn, &err);
            if (!h)
                fail_msg("decode: %s", err.msg);
            assert_int_equal(h->nrules, g->nrules);
            assert_true(h->off[h->nrules] == g->off[g->nrules]);
            for (uint64_t k = 0; k < g->off[g->nrules]; k++)
                assert_true(h->syms[k].value == g->syms[k].value && h->syms[k].rep == g->syms[k].rep &&
                            h->syms[k].is_rule == g->syms[k].is_rule);
            assert_memory_equal(h->is_cycle, g->is_cycle, g->nrules);
            assert_int_equal(h->has_loop_header, g->has_loop_header);
            traza_grammar_free(h);
            free(d);
        }
    }
    traza_grammar_free(g);
}

static void test_properties_random(void **state)
{
    (void)state;
    uint64_t *seq = malloc(4000 * sizeof *seq);
    assert_non_null(seq);
    for (int round = 0; round < 300; round++) {
        size_t n = rnd() % 3000;
        unsigned alpha = 1 + (unsigned)(rnd() % 6);
        int kind = round % 3;
        if (kind == 0) { /* uniform random over a tiny alphabet */
            for (size_t i = 0; i < n; i++)
                seq[i] = rnd() % alpha;
        } else { /* repeated random blocks, with runs: program-like */
            size_t i = 0;
            uint64_t blocks[4][12];
            size_t bl[4];
            for (int b = 0; b < 4; b++) {
                bl[b] = 1 + rnd() % 12;
                for (size_t k = 0; k < bl[b]; k++)
                    blocks[b][k] = (kind == 2 ? UINT64_C(0xffffffff00000000) : 0x1000) + rnd() % (alpha + 3);
            }
            while (i < n) {
                int b = (int)(rnd() % 4);
                size_t times = 1 + rnd() % 5;
                for (size_t t = 0; t < times && i < n; t++)
                    for (size_t k = 0; k < bl[b] && i < n; k++)
                        seq[i++] = blocks[b][k];
            }
        }
        uint64_t loop_header = seq[n ? rnd() % n : 0];
        for (int a = 0; a <= TRAZA_G_CYCLITUR; a++)
            check_all(seq, n, (traza_galgo)a, a == TRAZA_G_CYCLITUR ? &loop_header : NULL, round % 10 == 0);
    }
    free(seq);
}

/* traza_grammar_diff: on random stretches over a small alphabet, the script turns A
 * into B and has exactly |A| + |B| - 2 LCS(A, B) edits (the fewest possible). */
static void test_diff_random(void **state)
{
    (void)state;
    uint64_t rng = 12345;
    for (int round = 0; round < 200; round++) {
        uint64_t seq[120];
        size_t n = 0;
        for (; n < 120; n++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            seq[n] = (rng >> 33) % 4;
        }
        traza_err err;
        traza_grammar *g = traza_grammar_build(seq, n, TRAZA_G_SEQUITUR, NULL, &err);
        assert_non_null(g);
        uint64_t a = (uint64_t)(round % 30), la = 20 + (uint64_t)(round % 17), b = 55 + (uint64_t)(round % 13), lb = 25 + (uint64_t)(round % 11);
        traza_gedit *ed = NULL;
        size_t ne = 0;
        assert_int_equal(traza_grammar_diff(g, a, la, b, lb, 1000, &ed, &ne, &err), 0);
        /* LCS by dynamic programming */
        static uint32_t T[64][64];
        for (size_t x = la + 1; x-- > 0;)
            for (size_t y = lb + 1; y-- > 0;)
                T[x][y] = x == la || y == lb ? 0
                          : seq[a + x] == seq[b + y] ? T[x + 1][y + 1] + 1
                          : (T[x + 1][y] > T[x][y + 1] ? T[x + 1][y] : T[x][y + 1]);
        assert_int_equal(ne, la + lb - 2 * T[0][0]);
        /* apply the script to A */
        uint64_t outv[128];
        size_t no = 0, x = 0, k = 0;
        while (x < la || k < ne) {
            if (k < ne && ed[k].op == '-' && ed[k].off_a == x) {
                assert_int_equal(ed[k].value, seq[a + x]);
                x++, k++;
            } else if (k < ne && ed[k].op == '+' && ed[k].off_a == x) {
                assert_int_equal(ed[k].off_b, no);
                outv[no++] = ed[k++].value;
            } else {
                assert_true(x < la);
                outv[no++] = seq[a + x++];
            }
        }
        assert_int_equal(no, lb);
        assert_memory_equal(outv, seq + b, lb * sizeof *outv);
        free(ed);
        traza_grammar_free(g);
    }
    /* a stretch past the end is refused; too many edits are said */
    traza_grammar *g = build_str("abcabcabd", TRAZA_G_SEQUITUR, NULL);
    traza_gedit *ed = NULL;
    size_t ne = 0;
    traza_err err;
    assert_int_equal(traza_grammar_diff(g, 5, 5, 0, 3, 10, &ed, &ne, &err), -1);
    assert_string_equal(err.msg, "stretch past the end of the sequence (9 symbols)");
    assert_int_equal(traza_grammar_diff(g, 0, 3, 6, 3, 1, &ed, &ne, &err), -1);
    assert_string_equal(err.msg, "the stretches differ by more than 1 edits");
    assert_int_equal(traza_grammar_diff(g, 0, 3, 6, 3, 2, &ed, &ne, &err), 0);
    assert_int_equal(ne, 2);
    free(ed);
    traza_grammar_free(g);
}

static void test_wide_symbols(void **state)
{
    (void)state;
    uint64_t seq[600];
    for (size_t i = 0; i < 600; i++)
        seq[i] = UINT64_MAX - (i % 7) * UINT64_C(0x100000001) - (i % 13 == 0);
    for (int a = 0; a <= TRAZA_G_CYCLITUR; a++)
        check_all(seq, 600, (traza_galgo)a, a == TRAZA_G_CYCLITUR ? &seq[0] : NULL, 1);
}

/* ---- real traces ------------------------------------------------------------------ */

/* ---- reading PC lists: the 8-digit fast path and the general parser agree ------- */

static void test_read_lines(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    /* every form the reader accepts, mixed with the bare 8-digit lines of the fast path */
    char *p = tu_write(dir, "mixed.pc",
                       "000103b8\n000103BC\n0x000103c0\n0X0001AbCd\n"
                       "ffffffffffffffff\n7\n  00001234  \n# comment\n\n"
                       "deadbeef\r\n0x1000 nop\n\t0000abcd\n00000000\nFFFFFFFF");
    static const uint64_t want[] = {0x103b8, 0x103bc, 0x103c0, 0x1abcd, UINT64_MAX, 7, 0x1234,
                                    0xdeadbeef, 0x1000, 0xabcd, 0, 0xffffffff};
    collect c = {0};
    traza_err err;
    if (traza_grammar_read(p, TRAZA_GIN_TEXT, col, &c, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(c.n, sizeof want / sizeof *want);
    assert_memory_equal(c.v, want, sizeof want);
    free(p);
    free(c.v);
    /* a bad digit in an 8-character line: the error names the line */
    p = tu_write(dir, "bad.pc", "000103b8\n000103bc\n0001g3c0\n000103c4\n");
    c = (collect){0};
    assert_int_equal(traza_grammar_read(p, TRAZA_GIN_TEXT, col, &c, &err), -1);
    assert_non_null(strstr(err.msg, "bad.pc:3: expected a hexadecimal address, found '0001g3c0'"));
    free(p);
    free(c.v);
    /* more than one reader buffer (1 MiB): lines cut by the buffer's end */
    size_t n = 300000;
    char *big = malloc(n * 9 + 1);
    assert_non_null(big);
    for (size_t i = 0; i < n; i++)
        snprintf(big + 9 * i, 10, "%08zx\n", i * 2654435761u % 0xffffffffu);
    p = tu_write(dir, "big.pc", big);
    c = (collect){0};
    if (traza_grammar_read(p, TRAZA_GIN_TEXT, col, &c, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(c.n, n);
    for (size_t i = 0; i < n; i++)
        assert_true(c.v[i] == i * 2654435761u % 0xffffffffu);
    free(big);
    free(p);
    free(c.v);
    tu_rmdir(dir);
}

/* The one-word conversion of 8-character lines against the general parser, on random
 * strings mixing hexadecimal digits with their neighbours in ASCII and high bytes. */
static void test_hex_fast_random(void **state)
{
    (void)state;
    static const char other[] = "gGxX/:@`\x7f\x80\xff \t,.-";
    long ok = 0;
    for (int it = 0; it < 200000; it++) {
        char buf[9];
        for (int k = 0; k < 8; k++)
            buf[k] = rnd() % 5 ? "0123456789abcdefABCDEF"[rnd() % 22] : other[rnd() % (sizeof other - 1)];
        buf[8] = '\n';
        tz_lines lr;
        memset(&lr, 0, sizeof lr);
        lr.buf = buf;
        lr.end = sizeof buf;
        uint64_t v = 0, want = 0;
        int got = tz_lines_hex_fast(&lr, &v);
        int exp = tz_parse_u64_hex(buf, 8, &want) == 0;
        assert_int_equal(got, exp);
        if (got) {
            assert_true(v == want);
            assert_int_equal(lr.start, 9);
            assert_int_equal(lr.lineno, 1);
            ok++;
        } else {
            assert_int_equal(lr.start, 0);
        }
    }
    assert_true(ok > 1000);
}

static void test_reference_size_mcu(void **state)
{
    (void)state;
    const char *d = tu_data_dir();
    TU_SKIP_NO_DATA(d);
    char path[4096];
    snprintf(path, sizeof path, "%s/gen/pc/mcu/freertos_blinky_icount5.pc.xz", d);
    collect c = {0};
    traza_err err;
    if (traza_grammar_read(path, TRAZA_GIN_TEXT, col, &c, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(c.n, 1000000);
    traza_grammar *g = traza_grammar_build(c.v, c.n, TRAZA_G_SEQUITUR, NULL, &err);
    assert_non_null(g);
    traza_gstats st;
    assert_int_equal(traza_grammar_stats(g, &st, &err), 0);
    /* SEQUITUR-REFERENCE.md: Size(G) 2,992, 434 rules */
    assert_int_equal(st.size, 2992);
    assert_int_equal(st.rules, 434);
    if (traza_grammar_check(g, 0, &err) < 0)
        fail_msg("%s", err.msg);
    uint64_t seqsize = st.size;
    traza_grammar_free(g);
    uint64_t loop_header = 0x6a4;
    g = traza_grammar_build(c.v, c.n, TRAZA_G_CYCLITUR, &loop_header, &err);
    assert_non_null(g);
    assert_int_equal(traza_grammar_stats(g, &st, &err), 0);
    if (traza_grammar_check(g, 1, &err) < 0)
        fail_msg("%s", err.msg);
    assert_true(st.size * 100 <= seqsize * 88); /* at least 12% smaller */
    assert_int_equal(st.size, 1779);             /* bench/RESULTS.md, row Cyclitur */
    /* README: 0x6a4 occurs 116,625 times, first at line 65,713: one start-up cycle more */
    assert_int_equal(st.cycles, 116626);
    collect e = {0};
    assert_int_equal(traza_grammar_extract(g, 0, c.n, col, &e, &err), 0);
    assert_memory_equal(e.v, c.v, c.n * sizeof *c.v);
    traza_gcycle *tab;
    size_t n;
    assert_int_equal(traza_grammar_cycles(g, loop_header, &tab, &n, &err), 0);
    uint64_t covered = 0;
    for (size_t k = 0; k < n; k++)
        covered += tab[k].count * tab[k].length;
    assert_true(covered == c.n);
    free(tab);
    free(e.v);
    free(c.v);
    traza_grammar_free(g);
}

/* ---- Cyclitur memory follows the grammar, not the number of cycle changes ------- */

static void test_cyclitur_memory(void **state)
{
    (void)state;
    /* cycles A B A C repeated: every cycle changes, 4 symbols per cycle on average */
    const uint64_t loop_header = 0x100;
    static const uint64_t cyc[3][5] = {{0x100, 1, 2, 3, 0}, {0x100, 4, 0, 0, 0}, {0x100, 5, 6, 7, 8}};
    static const size_t clen[3] = {4, 2, 5};
    static const int pat[4] = {0, 1, 0, 2};
    traza_err err;
    traza_gbuilder *b = traza_gbuilder_new(TRAZA_G_CYCLITUR, &loop_header, &err);
    assert_non_null(b);
    const size_t ncyc = 200000;
    size_t at10 = 0, n = 0;
    for (size_t k = 0; k < ncyc; k++) {
        const int c = pat[k % 4];
        for (size_t i = 0; i < clen[c]; i++, n++)
            assert_int_equal(traza_gbuilder_push(b, cyc[c][i], &err), 0);
        if (k == ncyc / 10)
            at10 = tzg_builder_nodes(b);
    }
    size_t at100 = tzg_builder_nodes(b);
    /* ReSequitur on the cycle sequence: A B A C -> X, X^n; nothing grows with n */
    assert_true(at100 < 100);
    assert_true(at100 <= at10 + 4);
    traza_grammar *g = traza_gbuilder_finish(b, &err);
    assert_non_null(g);
    assert_true(g->len[0] == n);
    if (traza_grammar_check(g, 1, &err) < 0)
        fail_msg("%s", err.msg);
    traza_gstats st;
    assert_int_equal(traza_grammar_stats(g, &st, &err), 0);
    assert_true(st.cycles == ncyc);
    assert_int_equal(st.distinct_cycles, 3);
    /* S -> X^50000; X -> A B A C; A, B, C: 4 + 2 + 5 r-pairs; 5 rules */
    assert_int_equal(st.size, 1 + 4 + 4 + 2 + 5 + 5);
    uint64_t v;
    assert_int_equal(traza_grammar_at(g, n - 1, &v, &err), 0);
    assert_true(v == 8);
    traza_grammar_free(g);
}


static void test_huge_expansion(void **state)
{
    (void)state;
    traza_grammar *g = must(huge_grammar);
    traza_err err;
    const uint64_t half = UINT64_C(5000000000);
    assert_true(g->len[0] == 2 * half + 2);
    traza_gstats st;
    assert_int_equal(traza_grammar_stats(g, &st, &err), 0);
    assert_true(st.cycles == 2000000001ULL);
    assert_int_equal(st.distinct_cycles, 2);
    uint64_t v;
    assert_int_equal(traza_grammar_at(g, 0, &v, &err), 0);
    assert_true(v == 0x100);
    assert_int_equal(traza_grammar_at(g, half + 1, &v, &err), 0);
    assert_true(v == 9);
    assert_int_equal(traza_grammar_at(g, half + 5, &v, &err), 0);
    assert_true(v == 3);
    assert_int_equal(traza_grammar_at(g, 2 * half + 1, &v, &err), 0);
    assert_true(v == 4);
    assert_int_equal(traza_grammar_at(g, 2 * half + 2, &v, &err), -1);
    assert_err_contains(err, "past the end");
    collect c = {0};
    assert_int_equal(traza_grammar_extract(g, half - 3, half + 4, col, &c, &err), 0);
    uint64_t want[] = {2, 3, 4, 0x100, 9, 0x100, 1};
    assert_int_equal(c.n, 7);
    assert_memory_equal(c.v, want, sizeof want);
    free(c.v);
    traza_gcycle *tab;
    size_t n;
    assert_int_equal(traza_grammar_cycles(g, g->loop_header, &tab, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_true(tab[0].count == 2000000000ULL && tab[0].length == 5 && tab[0].first == 0);
    assert_true(tab[1].count == 1 && tab[1].length == 2 && tab[1].first == half);
    uint64_t *pos;
    size_t np;
    assert_int_equal(traza_grammar_cycle_positions(g, g->loop_header, tab[1].hash, tab[1].length, &pos, &np, &err), 0);
    assert_int_equal(np, 1);
    assert_true(pos[0] == half);
    free(pos);
    traza_gcrun *runs;
    size_t nr;
    assert_int_equal(traza_grammar_cycle_runs(g, g->loop_header, tab, n, &runs, &nr, &err), 0);
    assert_int_equal(nr, 3);
    assert_true(runs[0].cycle == 0 && runs[0].rep == 1000000000ULL && runs[0].pos == 0);
    assert_true(runs[1].cycle == 1 && runs[1].rep == 1 && runs[1].pos == half);
    assert_true(runs[2].cycle == 0 && runs[2].rep == 1000000000ULL && runs[2].pos == half + 2);
    free(runs);
    free(tab);
    /* survives .tzg */
    unsigned char *d;
    size_t dn;
    assert_int_equal(traza_tzg_encode(g, TRAZA_TZG_ZSTD, &d, &dn, &err), 0);
    traza_grammar *h = traza_tzg_decode(d, dn, &err);
    assert_non_null(h);
    assert_true(h->len[0] == g->len[0]);
    traza_grammar_free(h);
    free(d);
    traza_grammar_free(g);
}

/* ---- anomalies on a 3*10^10-symbol grammar with 8*10^9 cycles, nearly all changes - */

static void test_anomalies_huge(void **state)
{
    (void)state;
    traza_grammar *g = must(alt_grammar);
    traza_err err;
    const uint64_t half = UINT64_C(15000000000), hk = UINT64_C(4000000000);
    assert_true(g->len[0] == 2 * half + 20);
    traza_gcycle *tab;
    size_t n;
    assert_int_equal(traza_grammar_cycles(g, g->loop_header, &tab, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_true(tab[0].length == 5 && tab[0].count == hk + 2); /* C1 = A */
    assert_true(tab[1].length == 2 && tab[1].count == hk / 2 + 2);     /* C2 = B */
    assert_true(tab[2].length == 3 && tab[2].count == hk / 2 + 2);     /* C3 = C */
    /* the cycle sequence keeps the rule structure: a few rules, not 8*10^9 entries */
    traza_grammar *cg;
    uint64_t *wlen;
    assert_int_equal(traza_grammar_cycle_grammar(g, g->loop_header, tab, n, &cg, &wlen, &err), 0);
    assert_true(cg->len[0] == 2 * hk + 6);
    assert_true(wlen[0] == g->len[0]);
    assert_true(cg->nrules == 6 && cg->off[cg->nrules] == 18); /* O(|G|): 20 r-pairs in g */
    uint64_t v;
    assert_int_equal(traza_grammar_at(cg, hk - 1, &v, &err), 0);
    assert_true(v == 2); /* C */
    collect c = {0};
    assert_int_equal(traza_grammar_extract(cg, hk - 2, hk + 8, col, &c, &err), 0);
    uint64_t want[] = {0, 2, 0, 0, 1, 1, 2, 2, 0, 1};
    assert_int_equal(c.n, 10);
    assert_memory_equal(c.v, want, sizeof want);
    free(c.v);
    /* anomalies: exactly the paper's A A B B C C, at its exact position */
    traza_ganomaly *an;
    size_t na;
    traza_ganomaly_info info;
    assert_int_equal(traza_grammar_anomalies(cg, wlen, tab, n, 0.05, 1000, &an, &na, &info, &err), 0);
    assert_true(info.cycles == 2 * hk + 6);
    assert_true(info.rare_transitions == 4); /* A^2, B^2, B -> C, C^2 */
    assert_true(info.scanned == 4 && !info.truncated);
    assert_int_equal(na, 1);
    assert_true(an[0].start == half && an[0].end == half + 20);
    assert_true(an[0].from_k == hk && an[0].to_k == hk + 5);
    assert_true(an[0].score > 4 * 29); /* four transitions, each P < 2^-30 */
    free(an);
    /* a tiny scan limit: truncated, the counts still cover the whole sequence */
    assert_int_equal(traza_grammar_anomalies(cg, wlen, tab, n, 0.05, 2, &an, &na, &info, &err), 0);
    assert_true(info.truncated && info.scanned == 2 && info.rare_transitions == 4);
    free(an);
    free(wlen);
    traza_grammar_free(cg);
    free(tab);
    traza_grammar_free(g);
}

/* ---- .tzg corruption -------------------------------------------------------------- */

static void test_tzg_corrupt(void **state)
{
    (void)state;
    uint64_t loop_header = 'a';
    traza_grammar *g = build_str("cabcabcabcabcadcabcabxyzcab", TRAZA_G_CYCLITUR, &loop_header);
    traza_err err;
    for (int be = TRAZA_TZG_ZSTD; be <= TRAZA_TZG_XZ; be++) {
        unsigned char *d;
        size_t n;
        assert_int_equal(traza_tzg_encode(g, be, &d, &n, &err), 0);
        for (size_t k = 0; k < n; k++) { /* every truncation is rejected */
            traza_grammar *h = traza_tzg_decode(d, k, &err);
            assert_null(h);
            assert_true(err.code == TRAZA_E_FORMAT);
        }
        assert_null(traza_tzg_decode(d, 10, &err));
        assert_err_contains(err, "truncated");
        for (size_t k = 0; k < n; k++) { /* every flipped byte is rejected */
            d[k] ^= 0x40;
            traza_grammar *h = traza_tzg_decode(d, n, &err);
            if (h)
                fail_msg("byte %zu flipped and still accepted", k);
            d[k] ^= 0x40;
        }
        d[0] = 'X';
        assert_null(traza_tzg_decode(d, n, &err));
        assert_err_contains(err, "magic");
        free(d);
    }
    traza_grammar_free(g);
}

/* ---- symbol names (.tzg v2) and reading v1 files ---------------------------------- */

static void put32(unsigned char *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (unsigned char)(v >> (8 * k));
}

static void test_tzg_names(void **state)
{
    (void)state;
    traza_grammar *g = build_str("cabcabcabcabcad", TRAZA_G_SEQUITUR, NULL);
    traza_err err;
    const uint64_t vals[] = {'d', 'a', UINT64_MAX, 'b'};
    const char *const names[] = {"irq_exit", "sched_switch", "last", "write"};
    assert_int_equal(traza_grammar_set_names(g, vals, names, 4, &err), 0);
    assert_string_equal(traza_grammar_name(g, 'a'), "sched_switch");
    assert_string_equal(traza_grammar_name(g, UINT64_MAX), "last");
    assert_null(traza_grammar_name(g, 'c'));
    const uint64_t dup[] = {1, 1};
    assert_int_equal(traza_grammar_set_names(g, dup, names, 2, &err), -1);
    assert_err_contains(err, "named twice");
    assert_int_equal(g->nnames, 4); /* unchanged */
    unsigned char *d;
    size_t n;
    assert_int_equal(traza_tzg_encode(g, TRAZA_TZG_XZ, &d, &n, &err), 0);
    assert_int_equal(d[8], 2);  /* version 2 */
    assert_int_equal(d[12], 2); /* flags: names */
    traza_grammar *h = traza_tzg_decode(d, n, &err);
    if (!h)
        fail_msg("%s", err.msg);
    assert_int_equal(h->nnames, 4);
    assert_string_equal(traza_grammar_name(h, 'd'), "irq_exit");
    assert_string_equal(traza_grammar_name(h, 'b'), "write");
    assert_string_equal(traza_grammar_name(h, UINT64_MAX), "last");
    traza_grammar_free(h);
    /* a v1 file cannot carry names: flag bit 1 is rejected there */
    d[8] = 1;
    put32(d + 36, (uint32_t)crc32(0, d, 36));
    assert_null(traza_tzg_decode(d, n, &err));
    assert_err_contains(err, "bad header fields");
    free(d);
    /* a grammar without names, written as version 1 (the old layout), is still read */
    traza_grammar *plain = build_str("cabcabcabcabcad", TRAZA_G_SEQUITUR, NULL);
    assert_int_equal(traza_tzg_encode(plain, TRAZA_TZG_ZSTD, &d, &n, &err), 0);
    assert_int_equal(d[12], 0);
    d[8] = 1;
    put32(d + 36, (uint32_t)crc32(0, d, 36));
    h = traza_tzg_decode(d, n, &err);
    if (!h)
        fail_msg("v1: %s", err.msg);
    assert_true(h->len[0] == 15 && h->nnames == 0);
    traza_grammar_free(h);
    d[8] = 3;
    put32(d + 36, (uint32_t)crc32(0, d, 36));
    assert_null(traza_tzg_decode(d, n, &err));
    assert_err_contains(err, "unsupported version 3");
    free(d);
    traza_grammar_free(plain);
    traza_grammar_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_example),
        cmocka_unit_test(test_properties_random),
        cmocka_unit_test(test_diff_random),
        cmocka_unit_test(test_wide_symbols),
        cmocka_unit_test(test_read_lines),
        cmocka_unit_test(test_hex_fast_random),
        cmocka_unit_test(test_reference_size_mcu),
        cmocka_unit_test(test_cyclitur_memory),
        cmocka_unit_test(test_huge_expansion),
        cmocka_unit_test(test_anomalies_huge),
        cmocka_unit_test(test_tzg_corrupt),
        cmocka_unit_test(test_tzg_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
