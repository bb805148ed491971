/* Choosing a loop header (traza_grammar_rank_loop_headers) on PC sequences shaped as
 * firmware runs: a start-up loop that fills the first 200 000 PCs before the main
 * loop, and a main loop that calls a function placed below it. */
#include "testutil.h"
#include "traza/grammar.h"
#include "util/util.h"

typedef struct pcs {
    uint64_t *v;
    size_t n, cap;
} pcs;

static void put(pcs *p, const uint64_t *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(TZ_GROW(p->v, p->cap, p->n + 1), 0);
        p->v[p->n++] = a[i];
    }
}

/* start-up: 80 000 iterations of a 3-instruction loop at 0x100 (240 000 PCs); main:
 * 50 000 iterations of a loop at 0x200 that calls 0x80 (a hook below it) and, every
 * 10th time, 0x300 (its own 2-instruction loop, twice) */
static pcs firmware(void)
{
    static const uint64_t reset[] = {0x40, 0x42, 0x44};
    static const uint64_t startup[] = {0x100, 0x102, 0x104};
    static const uint64_t entry[] = {0x106, 0x1fc, 0x1fe};
    static const uint64_t iter[] = {0x200, 0x202, 0x80, 0x82, 0x206, 0x208, 0x20a};
    static const uint64_t work[] = {0x20c, 0x300, 0x302, 0x304, 0x302, 0x304, 0x306, 0x210, 0x212};
    static const uint64_t end[] = {0x214, 0x46};
    pcs p = {0};
    put(&p, reset, 3);
    for (int i = 0; i < 80000; i++)
        put(&p, startup, 3);
    put(&p, entry, 3);
    for (int k = 0; k < 50000; k++) {
        put(&p, iter, 7);
        if (k % 10 == 0)
            put(&p, work, 9);
    }
    put(&p, end, 2);
    return p;
}

static const traza_gheader *find(const traza_gheader *h, size_t n, uint64_t sym)
{
    for (size_t i = 0; i < n; i++)
        if (h[i].symbol == sym)
            return &h[i];
    fail_msg("0x%llx is not a candidate", (unsigned long long)sym);
    return NULL;
}

static void test_whole_sequence(void **state)
{
    (void)state;
    pcs p = firmware();
    traza_err err;
    traza_err_clear(&err);
    traza_grammar *g = traza_grammar_build(p.v, p.n, TRAZA_G_SEQUITUR, NULL, &err);
    assert_non_null(g);
    traza_gheader *h;
    size_t n;
    assert_int_equal(traza_grammar_rank_loop_headers(g, 1, TRAZA_GHEADER_CANDIDATES, &h, &n, &err), 0);
    /* the main loop's header: the target of its backward jump (0x20a -> 0x200) */
    assert_int_equal(h[0].symbol, 0x200);
    assert_int_equal(h[0].cycles, 50001);
    assert_int_equal(h[0].occurrences, 50000);
    assert_int_equal(h[0].back_entries, 49999);
    assert_int_equal(h[0].distinct_cycles, 4); /* the start-up, two iterations, the end */
    assert_int_equal(h[0].first, 3 + 240000 + 3);
    assert_false(h[0].in_call);
    double main_share = (double)(50000 * 7 + 5000 * 9 - 16) / (double)p.n;
    assert_true(h[0].regular > main_share - 1e-9 && h[0].regular < main_share + 1e-4);
    /* the start-up loop: as many backward entries, but the main loop is its last cycle */
    const traza_gheader *s = find(h, n, 0x100);
    assert_int_equal(s->cycles, 80001);
    assert_true(s->regular < 0.38 && s->largest > 0.62);
    /* the hook the loop calls: as regular, inside a call, ranked after the loop */
    const traza_gheader *k = find(h, n, 0x80);
    assert_true(k->in_call);
    assert_true(k->regular > h[0].regular - 0.01);
    assert_true(k > &h[0]);
    /* the loop of the function called every 10th time: inside a call too */
    assert_true(find(h, n, 0x302)->in_call);
    free(h);
    traza_grammar_free(g);

    /* traza_grammar_pick_loop_header: the same over the whole sequence; on its first
     * 200 000 symbols only (the start-up loop), the start-up loop */
    uint64_t lh = 0;
    char why[1024];
    assert_int_equal(traza_grammar_pick_loop_header(p.v, p.n, 0, &lh, why, sizeof why, &err), 0);
    assert_int_equal(lh, 0x200);
    assert_non_null(strstr(why, "0x200 (50001 cycles, 4 distinct"));
    assert_int_equal(traza_grammar_pick_loop_header(p.v, p.n, 200000, &lh, NULL, 0, &err), 0);
    assert_int_equal(lh, 0x100);
    free(p.v);
}

/* Symbols that are not addresses: the most frequent ones, no call test. */
static void test_symbols(void **state)
{
    (void)state;
    uint64_t seq[3000];
    for (size_t i = 0; i < 3000; i++)
        seq[i] = (uint64_t[]){7, 1, 2}[i % 3];
    traza_err err;
    traza_err_clear(&err);
    traza_grammar *g = traza_grammar_build(seq, 3000, TRAZA_G_SEQUITUR, NULL, &err);
    assert_non_null(g);
    traza_gheader *h;
    size_t n;
    assert_int_equal(traza_grammar_rank_loop_headers(g, 0, 8, &h, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(h[0].symbol, 7); /* all as regular, one distinct cycle: the first */
    assert_int_equal(h[0].cycles, 1000);
    assert_int_equal(h[0].distinct_cycles, 1);
    free(h);
    traza_grammar_free(g);
    uint64_t once[] = {1, 2, 3};
    g = traza_grammar_build(once, 3, TRAZA_G_SEQUITUR, NULL, &err);
    assert_non_null(g);
    assert_int_equal(traza_grammar_rank_loop_headers(g, 1, 8, &h, &n, &err), -1);
    assert_string_equal(err.msg, "loop header: no symbol occurs twice: the sequence has no loop");
    traza_grammar_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_sequence),
        cmocka_unit_test(test_symbols),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
