/* The .tzg payload reader bounds every count by the bytes that must hold it (a crafted
 * count fails at once, before any allocation sized by it); a grammar without cycles
 * has an empty cycle table. */
#include "testutil.h"
#include "traza/grammar.h"
#include "grammar/gram_internal.h"

static void expect_error(const unsigned char *p, size_t n, int flags, const char *msg)
{
    traza_err err = {0};
    traza_grammar *g = tzg_decode_payload(p, n, flags, &err);
    if (g)
        fail_msg("accepted; expected '%s'", msg);
    assert_int_equal(err.code, TRAZA_E_FORMAT);
    assert_string_equal(err.msg, msg);
}

static void test_rule_count(void **state)
{
    (void)state;
    /* 5 rules need at least 1 + 4 x 3 bytes; 10 are left */
    const unsigned char p[] = {5, 2, 0, 2, 2, 0, 4, 2, 0, 6, 0};
    expect_error(p, sizeof p, 0, "tzg: payload byte 1: rule count 5 does not fit in the 10 bytes left");
    /* nothing after the count */
    const unsigned char q[] = {1};
    expect_error(q, sizeof q, 0, "tzg: payload byte 1: rule count 1 does not fit in the 0 bytes left");
    /* 4 rules in 13 bytes fit the bound, and read */
    const unsigned char ok[] = {4, 2, 1, 3, 2, 0, 2, 2, 1, 1, 2, 1, 2};
    traza_err err = {0};
    traza_grammar *g = tzg_decode_payload(ok, sizeof ok, 0, &err);
    if (!g)
        fail_msg("%s", err.msg);
    assert_int_equal(g->nrules, 4);
    assert_int_equal(g->len[0], 1);
    traza_grammar_free(g);
}

static void test_body_length(void **state)
{
    (void)state;
    /* rule 0 claims 4 symbols (2 bytes each at least); 6 bytes are left */
    const unsigned char p[] = {1, 8, 0, 2, 0, 2, 0, 2};
    expect_error(p, sizeof p, 0, "tzg: payload byte 2: rule 0 claims 4 symbols, 6 bytes left hold 3");
}

/* An empty start rule with a loop header: no cycle at all (the table was sorted from a
 * null pointer). */
static void test_no_cycle(void **state)
{
    (void)state;
    const unsigned char p[] = {5, 1, 0}; /* loop header 5, 1 rule, rule 0 empty */
    traza_err err = {0};
    traza_grammar *g = tzg_decode_payload(p, sizeof p, 1, &err);
    if (!g)
        fail_msg("%s", err.msg);
    assert_int_equal(g->len[0], 0);
    traza_gcycle *tab = NULL;
    size_t n = 7;
    assert_int_equal(traza_grammar_cycles(g, g->loop_header, &tab, &n, &err), 0);
    assert_int_equal(n, 0);
    assert_null(tab);
    traza_grammar_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_count),
        cmocka_unit_test(test_body_length),
        cmocka_unit_test(test_no_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
