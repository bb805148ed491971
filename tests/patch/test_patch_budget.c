/* The overhead budget of `traza patch --budget` (src/patch/patch_budget.c): the overhead of
 * the calls left traced is relative to the untraced run time (the recording's run
 * time less what tracing its calls cost), never to the traced run's. */
#include "testutil.h"

#include "traza/patch.h"

#include <math.h>

/* A recording of 1.9 s holding 36 M traced calls: at 25 ns each, 0.9 s of tracing
 * over a 1 s program (+90 %). */
static const int64_t CALLS[3] = {30000000, 4000000, 2000000};

static void test_relative_to_untraced(void **state)
{
    (void)state;
    traza_err err;
    unsigned char off[3];
    traza_patch_estimate est;
    /* 10 % of 1 s is 4 M calls of 25 ns: the two hottest go, 2 M calls stay (5 %);
     * over the traced 1.9 s, keeping 6 M calls would have looked like 7.9 % */
    assert_int_equal(traza_patch_budget(CALLS, 3, 36e6, 1.9e9, 25, 10, off, &est, &err), 0);
    assert_int_equal(off[0], 1);
    assert_int_equal(off[1], 1);
    assert_int_equal(off[2], 0);
    assert_true(est.base_ns == 1e9);
    assert_true(est.kept_calls == 2e6);
    assert_true(fabs(est.overhead_pct - 5.0) < 1e-9);
    /* calls of functions that are not candidates still cost the recording time:
     * 40 M calls in 2 s leave the same 1 s */
    assert_int_equal(traza_patch_budget(CALLS, 3, 40e6, 2e9, 25, 10, off, &est, &err), 0);
    assert_true(est.base_ns == 1e9);
    assert_int_equal(off[0] + off[1] + off[2], 2);
}

static void test_limits(void **state)
{
    (void)state;
    traza_err err;
    unsigned char off[3];
    traza_patch_estimate est;
    /* everything fits in 100 %: the whole +90 % is estimated */
    assert_int_equal(traza_patch_budget(CALLS, 3, 36e6, 1.9e9, 25, 100, off, &est, &err), 0);
    assert_int_equal(off[0] + off[1] + off[2], 0);
    assert_true(fabs(est.overhead_pct - 90.0) < 1e-9);
    /* just below 90 %: the hottest goes */
    assert_int_equal(traza_patch_budget(CALLS, 3, 36e6, 1.9e9, 25, 89.9, off, &est, &err), 0);
    assert_int_equal(off[0], 1);
    assert_int_equal(off[1] + off[2], 0);
    assert_true(fabs(est.overhead_pct - 15.0) < 1e-9);
    /* 0 %: every called function off */
    assert_int_equal(traza_patch_budget(CALLS, 3, 36e6, 1.9e9, 25, 0, off, &est, &err), 0);
    assert_int_equal(off[0] + off[1] + off[2], 3);
    assert_true(est.overhead_pct == 0);
    /* equal counts: the first listed goes first; a function never called stays */
    static const int64_t tie[3] = {5, 0, 5};
    assert_int_equal(traza_patch_budget(tie, 3, 10, 1000, 10, 10, off, &est, &err), 0);
    assert_int_equal(off[0], 1);
    assert_int_equal(off[1], 0);
    assert_int_equal(off[2], 0);
    assert_true(est.base_ns == 900);
    assert_true(fabs(est.overhead_pct - 50.0 / 9.0) < 1e-9);
    /* no candidates */
    assert_int_equal(traza_patch_budget(NULL, 0, 10, 1000, 10, 10, off, &est, &err), 0);
    assert_true(est.kept_calls == 0);
}

static void test_cost_overestimated(void **state)
{
    (void)state;
    traza_err err;
    unsigned char off[3] = {7, 7, 7};
    traza_patch_estimate est;
    traza_err_clear(&err);
    /* 36 M calls x 60 ns = 2.16 s > 1.9 s: no untraced time left */
    assert_int_equal(traza_patch_budget(CALLS, 3, 36e6, 1.9e9, 60, 10, off, &est, &err), -1);
    assert_int_equal(err.code, TRAZA_E_USAGE);
    assert_string_equal(err.msg, "the recording lasted 1900.000 ms, not more than its 36000000 traced calls x 60 ns: "
                                 "the cost per call is overestimated");
    assert_int_equal(off[0], 7);
    /* exactly equal is not positive either */
    assert_int_equal(traza_patch_budget(CALLS, 3, 19, 1900, 100, 10, off, &est, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relative_to_untraced),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_cost_overestimated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
