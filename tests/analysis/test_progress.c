/* Progress and cancellation of the analysis tools on a large generated trace: each
 * built-in analysis reports fractions of its work, increasing within each phase, through the context's
 * progress callback, and when the context's stop asks to stop, the run fails with
 * TRAZA_E_CANCELLED at once (no report after the stop) and saves nothing. */
#include "testutil.h"
#include "traza/analysis.h"
#include "traza/gen.h"

typedef struct watch {
    char what[64];     /* the phase reported last (each phase counts from 0) */
    double last;       /* the last fraction reported */
    int nmid;          /* reports strictly between 0 and 1 */
    int increasing;    /* every fraction >= the one before */
    int cancel_at;     /* ask to stop at this intermediate report (0 = never) */
    int after_cancel;  /* reports received after asking to stop */
    int cancelled;
} watch;

static void on_progress(void *user, const char *what, uint64_t done, uint64_t total)
{
    watch *w = user;
    if (w->cancelled) {
        w->after_cancel++;
        return;
    }
    assert_true(total > 0);
    double f = (double)done / (double)total;
    if (strcmp(what, w->what) != 0) {
        snprintf(w->what, sizeof w->what, "%s", what);
        w->last = 0;
    }
    if (f < w->last)
        w->increasing = 0;
    w->last = f;
    if (f > 0 && f < 1)
        w->nmid++;
    if (w->cancel_at && w->nmid >= w->cancel_at)
        w->cancelled = 1;
}

/* The context's stop: from the report that asked to stop on. */
static int on_stop(void *user, int stage)
{
    (void)stage;
    return ((watch *)user)->cancelled;
}

static tu_ws W;

static int setup(void **state)
{
    (void)state;
    tu_ws_open(&W);
    traza_gen_opts o;
    traza_gen_opts_init(&o);
    o.events = 2000000;
    if (traza_gen_parse_types(&o, "punctual=1,state=1", &W.err) < 0)
        return -1;
    traza_trace_info info;
    memset(&info, 0, sizeof info);
    if (traza_gen_store(W.ws, "big", &o, &info, &W.err) < 0)
        return -1;
    traza_trace_info_clear(&info);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_ws_close(&W);
    return 0;
}

typedef struct tool_case {
    const char *tool;
    const char *keys[4], *vals[4];
    size_t n;
    const char *saves; /* the result a complete run saves */
} tool_case;

static const tool_case cases[] = {
    {"anomaly", {"type", "save"}, {"state0", "p-anomaly"}, 2, "p-anomaly"},
    {"correlate", {"series", "rank", "save"}, {"punctual0", "true", "p-rank"}, 3, "p-rank"},
    {"aggregate", {"slices", "save"}, {"8", "p-agg"}, 2, "p-agg"},
    {"seqsearch", {"pattern", "save"}, {"punctual0,state0", "p-seq"}, 2, "p-seq"},
};

static void discard(void *user, const char *text) { (void)user; (void)text; }

static int run(const tool_case *c, watch *w, traza_err *err)
{
    const traza_tool *tool = traza_registry_find(traza_ctx_registry(W.ctx), c->tool);
    assert_non_null(tool);
    traza_tool_args args = {c->n, c->keys, c->vals};
    traza_tool_call call = {W.ctx, W.ws, "big", &args, 1, discard, NULL, discard};
    traza_stop stop = {on_stop, w};
    traza_ctx_set_progress(W.ctx, on_progress, w);
    traza_ctx_set_stop(W.ctx, &stop);
    int rc = traza_tool_run(tool, &call, err);
    traza_ctx_set_progress(W.ctx, NULL, NULL);
    traza_ctx_set_stop(W.ctx, NULL);
    return rc;
}

static int saved(const char *name)
{
    traza_err err;
    traza_err_clear(&err);
    traza_trace *t = traza_trace_open(W.ws, "big", 0, &err);
    assert_non_null(t);
    traza_result_info ri;
    memset(&ri, 0, sizeof ri);
    int found = traza_result_find(t, name, &ri, &err) == 0;
    traza_result_info_clear(&ri);
    traza_trace_close(t);
    return found;
}

/* A cancelled run first (nothing saved), then a complete one (increasing fractions
 * through intermediate values, the result saved). */
static void check_tool(const tool_case *c)
{
    traza_err err;
    traza_err_clear(&err);
    watch stop = {"", 0, 0, 1, 2, 0, 0};
    assert_int_equal(run(c, &stop, &err), -1);
    if (err.code != TRAZA_E_CANCELLED)
        fail_msg("%s: expected cancelled, got %s: %s", c->tool, traza_errcode_name(err.code), err.msg);
    assert_int_equal(stop.cancelled, 1);
    assert_int_equal(stop.after_cancel, 0); /* stopped at the report that asked it to */
    assert_true(stop.last < 1);
    assert_false(saved(c->saves));
    traza_err_clear(&err);
    watch all = {"", 0, 0, 1, 0, 0, 0};
    if (run(c, &all, &err) < 0)
        fail_msg("%s: %s", c->tool, err.msg);
    assert_true(all.increasing);
    assert_true(all.nmid >= 2);
    assert_true(all.last == 1.0);
    assert_true(saved(c->saves));
}

static void test_anomaly(void **state) { (void)state; check_tool(&cases[0]); }
static void test_correlate_rank(void **state) { (void)state; check_tool(&cases[1]); }
static void test_aggregate(void **state) { (void)state; check_tool(&cases[2]); }
static void test_seqsearch(void **state) { (void)state; check_tool(&cases[3]); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_anomaly),
        cmocka_unit_test(test_correlate_rank),
        cmocka_unit_test(test_aggregate),
        cmocka_unit_test(test_seqsearch),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
