/* Stoppable analyses (traza_stop): a stop callback cuts the reading or the
 * computing short; what was done is returned and flagged, and equals the matching
 * part of the complete answer. The stops here count calls (no clock), so every
 * assertion is deterministic. */
#include "testutil.h"
#include "traza/analysis.h"
#include "traza/gen.h"
#include "traza/callprofile.h"

typedef struct counter {
    int stage;     /* the stage that may stop */
    int after;     /* stop at the after-th call of that stage (1 = the first) */
    int calls[2];
} counter;

static int count_stop(void *ctx, int stage)
{
    counter *c = ctx;
    assert_true(stage == TRAZA_STAGE_READ || stage == TRAZA_STAGE_COMPUTE);
    c->calls[stage]++;
    return stage == c->stage && c->calls[stage] >= c->after;
}

static traza_trace *open_gen(tu_ws *w)
{
    traza_gen_opts o;
    traza_gen_opts_init(&o);
    o.events = 40000;
    /* few types: series of several scan batches */
    if (traza_gen_parse_types(&o, "punctual=2,state=1,link=1", &w->err) < 0)
        fail_msg("types: %s", w->err.msg);
    traza_trace_info info;
    memset(&info, 0, sizeof info);
    if (traza_gen_store(w->ws, "gen", &o, &info, &w->err) < 0)
        fail_msg("gen: %s", w->err.msg);
    traza_trace_info_clear(&info);
    traza_trace *t = traza_trace_open(w->ws, "gen", 0, &w->err);
    if (!t)
        fail_msg("open: %s", w->err.msg);
    return t;
}

static const traza_rank_entry *find(const traza_rank_entry *r, size_t n, int32_t type, int32_t prod)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].type == type && r[i].producer == prod)
            return &r[i];
    return NULL;
}

static void test_series_stop(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace *t = open_gen(&w);
    traza_series full, part;
    traza_partial pi;
    assert_int_equal(traza_series_load(t, "state0", 1, 0, NULL, &pi, &full, &w.err), 0);
    assert_int_equal(pi.partial, 0);
    assert_int_equal(pi.read_all, 1);
    assert_true(full.n > 1000);
    assert_int_equal(pi.covered_to, full.ts[full.n - 1]);
    counter c = {TRAZA_STAGE_READ, 1, {0, 0}};
    traza_stop st = {count_stop, &c};
    assert_int_equal(traza_series_load(t, "state0", 1, 0, &st, &pi, &part, &w.err), 0);
    assert_int_equal(pi.partial, 1);
    assert_int_equal(pi.read_all, 0);
    assert_int_equal(c.calls[TRAZA_STAGE_READ], 1);
    assert_true(part.n > 0 && part.n < full.n);
    assert_int_equal(pi.covered_to, part.ts[part.n - 1]);
    for (size_t i = 0; i < part.n; i++) { /* the first events, in order */
        assert_int_equal(part.id[i], full.id[i]);
        assert_int_equal(part.ts[i], full.ts[i]);
    }
    traza_series_free(&part);
    traza_series_free(&full);
    traza_trace_close(t);
    tu_ws_close(&w);
}

static void test_rank_stop(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace *t = open_gen(&w);
    traza_series s;
    assert_int_equal(traza_series_load(t, "state0", 1, 0, NULL, NULL, &s, &w.err), 0);
    for (int m = 0; m < 2; m++) {
        traza_rank_entry *full, *r;
        size_t nfull, n;
        traza_partial pi;
        assert_int_equal(traza_correlate_rank(t, &s, &(traza_corr_opts){.method = (traza_corr_method)m, .delta = 0}, NULL, NULL, &full, &nfull, NULL, &w.err), 0);
        assert_true(nfull > 20);
        /* no stop: the same answer as the plain call */
        assert_int_equal(traza_correlate_rank(t, &s, &(traza_corr_opts){.method = (traza_corr_method)m, .delta = 0}, NULL, &pi, &r, &n, NULL, &w.err), 0);
        assert_int_equal(pi.partial, 0);
        assert_int_equal(pi.read_all, 1);
        assert_int_equal(n, nfull);
        assert_int_equal(pi.done, nfull);
        assert_int_equal(pi.total, nfull);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(r[i].type, full[i].type);
            assert_int_equal(r[i].producer, full[i].producer);
            assert_true(r[i].r == full[i].r);
        }
        free(r);
        /* stopped while correlating: the first 5 candidates, each exactly as in the full ranking */
        counter c = {TRAZA_STAGE_COMPUTE, 5, {0, 0}};
        traza_stop st = {count_stop, &c};
        assert_int_equal(traza_correlate_rank(t, &s, &(traza_corr_opts){.method = (traza_corr_method)m, .delta = 0}, &st, &pi, &r, &n, NULL, &w.err), 0);
        assert_int_equal(pi.partial, 1);
        assert_int_equal(pi.read_all, 1);
        assert_int_equal(n, 5);
        assert_int_equal(pi.done, 5);
        assert_int_equal(pi.total, nfull);
        for (size_t i = 0; i < n; i++) {
            const traza_rank_entry *e = find(full, nfull, r[i].type, r[i].producer);
            assert_non_null(e);
            assert_true(e->r == r[i].r);
            assert_int_equal(e->n, r[i].n);
            if (i)
                assert_true(r[i - 1].r >= r[i].r);
        }
        free(r);
        /* a stop asked before the first candidate still ranks one */
        c = (counter){TRAZA_STAGE_COMPUTE, 1, {0, 0}};
        assert_int_equal(traza_correlate_rank(t, &s, &(traza_corr_opts){.method = (traza_corr_method)m, .delta = 0}, &st, &pi, &r, &n, NULL, &w.err), 0);
        assert_int_equal(n, 1);
        assert_int_equal(pi.partial, 1);
        free(r);
        /* stopped while reading: a ranking of the part read, flagged */
        c = (counter){TRAZA_STAGE_READ, 2, {0, 0}};
        assert_int_equal(traza_correlate_rank(t, &s, &(traza_corr_opts){.method = (traza_corr_method)m, .delta = 0}, &st, &pi, &r, &n, NULL, &w.err), 0);
        assert_int_equal(pi.partial, 1);
        assert_int_equal(pi.read_all, 0);
        assert_int_equal(c.calls[TRAZA_STAGE_READ], 2);
        assert_true(pi.covered_to >= s.ts[0] && pi.covered_to < s.ts[s.n - 1]);
        assert_true(n > 0 && n == pi.done && pi.done == pi.total);
        for (size_t i = 0; i < n; i++) {
            const traza_rank_entry *e = find(full, nfull, r[i].type, r[i].producer);
            assert_non_null(e);
            assert_true(r[i].n <= e->n); /* only the events read */
            assert_true(r[i].r >= -1 && r[i].r <= 1);
        }
        free(r);
        free(full);
    }
    /* a target whose events all come after the part read: nothing to rank */
    int64_t late = traza_trace_info_of(t)->max_ts;
    traza_series one;
    assert_int_equal(traza_series_from(&one, "late", &late, NULL, 1, &w.err), 0);
    counter c = {TRAZA_STAGE_READ, 1, {0, 0}};
    traza_stop st = {count_stop, &c};
    traza_rank_entry *r;
    size_t n;
    assert_int_equal(traza_correlate_rank(t, &one, &(traza_corr_opts){.method = TRAZA_CORR_REGULAR, .delta = 0}, &st, NULL, &r, &n, NULL, &w.err), -1);
    assert_int_equal(w.err.code, TRAZA_E_CANCELLED);
    assert_err_contains(w.err, "stopped before any event of series 'late'");
    traza_series_free(&one);
    traza_series_free(&s);
    traza_trace_close(t);
    tu_ws_close(&w);
}

static void test_callprofile_stop(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace *t = open_gen(&w);
    traza_callprofile full, part;
    traza_partial pi;
    assert_int_equal(traza_callprofile_build(t, &full, NULL, NULL, &pi, &w.err), 0);
    assert_int_equal(pi.partial, 0);
    assert_true(full.ncalls > 4096);
    counter c = {TRAZA_STAGE_READ, 1, {0, 0}};
    traza_stop st = {count_stop, &c};
    assert_int_equal(traza_callprofile_build(t, &part, NULL, &st, &pi, &w.err), 0);
    assert_int_equal(pi.partial, 1);
    /* the store consults the stop while it looks for the next call: the build stops
     * before its own check after the first 4096 calls */
    assert_true(part.ncalls < 4096);
    assert_true(c.calls[TRAZA_STAGE_READ] >= 1);
    assert_true(pi.covered_to < full.max_ts);
    traza_callprofile_free(&part);
    traza_callprofile_free(&full);
    traza_trace_close(t);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_series_stop),
        cmocka_unit_test(test_rank_stop),
        cmocka_unit_test(test_callprofile_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
