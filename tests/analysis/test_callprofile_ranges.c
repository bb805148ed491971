/* A call-stack profile over several time ranges: the ranges of a saved annotations
 * result are sorted and merged (traza_result_time_ranges), and each call counts for its time
 * inside all of them (traza_callprofile_ranges); a call outside them keeps only its place
 * on the stack. */
#include "testutil.h"
#include "traza/gen.h"
#include "traza/callprofile.h"

static traza_trace *open_gen(tu_ws *w)
{
    traza_gen_opts o;
    traza_gen_opts_init(&o);
    o.events = 100;
    traza_trace_info info;
    memset(&info, 0, sizeof info);
    if (traza_gen_store(w->ws, "gen", &o, &info, &w->err) < 0)
        fail_msg("gen: %s", w->err.msg);
    traza_trace_info_clear(&info);
    traza_trace *t = traza_trace_open(w->ws, "gen", TRAZA_OPEN_WRITE, &w->err);
    if (!t)
        fail_msg("open: %s", w->err.msg);
    return t;
}

static const traza_cp_func *func(const traza_callprofile *cp, int32_t type)
{
    for (size_t i = 0; i < cp->nfuncs; i++)
        if (cp->funcs[i].type == type)
            return &cp->funcs[i];
    return NULL;
}

static int64_t edge_time(const traza_callprofile *cp, int32_t caller, int32_t callee)
{
    for (size_t i = 0; i < cp->nedges; i++)
        if (cp->edges[i].caller == caller && cp->edges[i].callee == callee)
            return cp->edges[i].time;
    return -1;
}

static void test_ranges_merged(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace *t = open_gen(&w);
    /* out of order, one overlapping another, one reversed, one without a range */
    traza_annotation a[] = {
        {"p", {.kind = TRAZA_PT_INT}, 1, 40, 55}, {"p", {.kind = TRAZA_PT_INT}, 1, 5, 15},
        {"p", {.kind = TRAZA_PT_INT}, 0, 0, 0},   {"p", {.kind = TRAZA_PT_INT}, 1, 45, 35},
    };
    traza_result_meta meta = {"r", "test", "", 0, NULL};
    int64_t id = traza_result_save_annotations(t, &meta, a, 4, &w.err);
    assert_true(id > 0);
    traza_time_range *r;
    size_t n;
    assert_int_equal(traza_result_time_ranges(t, id, &r, &n, &w.err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(r[0].from, 5);
    assert_int_equal(r[0].to, 15);
    assert_int_equal(r[1].from, 35);
    assert_int_equal(r[1].to, 55);

    /* A [0,100] > B [10,40] > D [20,30], and A > C [50,60] */
    traza_cp_call calls[] = {{0, 100, 1, 0, 0}, {10, 40, 2, 0, 1}, {20, 30, 4, 0, 2}, {50, 60, 3, 0, 1}};
    traza_callprofile cp;
    memset(&cp, 0, sizeof cp);
    cp.calls = calls;
    cp.ncalls = 4;
    assert_int_equal(traza_callprofile_ranges(t, &cp, r, n), 0);
    assert_int_equal(cp.nfuncs, 3); /* D lies between the ranges */
    assert_null(func(&cp, 4));
    assert_int_equal(func(&cp, 1)->inclusive, 10 + 20);
    assert_int_equal(func(&cp, 2)->inclusive, 5 + 5);
    assert_int_equal(func(&cp, 3)->inclusive, 5);
    assert_int_equal(func(&cp, 1)->exclusive, 30 - 10 - 5);
    assert_int_equal(func(&cp, 2)->exclusive, 10);
    assert_int_equal(edge_time(&cp, -1, 1), 30);
    assert_int_equal(edge_time(&cp, 1, 2), 10);
    assert_int_equal(edge_time(&cp, 1, 3), 5);
    assert_int_equal(edge_time(&cp, 2, 4), -1);
    free(cp.funcs);
    free(cp.edges);
    free(r);
    traza_trace_close(t);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges_merged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
