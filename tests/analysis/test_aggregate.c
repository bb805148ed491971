/* Aggregation qualities against a direct computation on random inputs: gain and loss
 * are never negative, a single cell has neither, and every quality matches
 * sum v log2(S/v) (gain) and sum v log2(v N / S) (loss) computed cell by cell. */
#include "testutil.h"
#include "traza/analysis.h"

#include <math.h>

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* gain and loss of cells[0..nc) (values of one type each), N cells in all. */
static void direct(const double *const *cells, size_t nc, size_t ntypes, double N, double *g, double *l)
{
    *g = *l = 0;
    for (size_t t = 0; t < ntypes; t++) {
        double S = 0;
        for (size_t c = 0; c < nc; c++)
            S += cells[c][t];
        for (size_t c = 0; c < nc; c++) {
            double v = cells[c][t];
            if (v > 0) {
                *g += v * log2(S / v);
                *l += v * log2(v * N / S);
            }
        }
    }
}

static void check_q(const char *what, double got_g, double got_l, double want_g, double want_l, double mag)
{
    if (got_g < 0 || got_l < 0)
        fail_msg("%s: negative quality (gain %.17g, loss %.17g)", what, got_g, got_l);
    double tol = 1e-9 * (mag + 1);
    if (fabs(got_g - want_g) > tol || fabs(got_l - want_l) > tol)
        fail_msg("%s: (gain, loss) = (%.17g, %.17g), direct (%.17g, %.17g)", what, got_g, got_l, want_g, want_l);
}

/* A value: 0, a small integer, or a large nearly constant one (nanosecond durations). */
static double rand_value(uint64_t *s, int kind)
{
    uint64_t r = rng_next(s);
    if (r % 7 == 0)
        return 0;
    if (kind == 0)
        return (double)(r % 9);
    if (kind == 1)
        return (double)(r % 1000) / 997.0;
    return 5e11 + (double)(r % 1000);
}

static void test_quality_random(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    for (int round = 0; round < 60; round++) {
        size_t n = 1 + rng_next(&seed) % 12, ns = 1 + rng_next(&seed) % 4;
        int kind = round % 3;
        double *vals = malloc(n * ns * sizeof *vals);
        assert_non_null(vals);
        for (size_t i = 0; i < n * ns; i++)
            vals[i] = rand_value(&seed, kind);
        traza_agg_micro m;
        traza_agg_quality q;
        traza_err err = {0};
        assert_int_equal(traza_agg_micro_from(&m, vals, n, ns, &err), 0);
        assert_int_equal(traza_agg_qualities(&m, &q, &err), 0);
        for (size_t i = 0; i < n; i++)
            for (size_t j = i; j < n; j++) {
                /* each series is a type; each slice a cell */
                double g = 0, l = 0, mag = 0;
                for (size_t s = 0; s < ns; s++) {
                    const double *cells[12];
                    for (size_t k = i; k <= j; k++)
                        cells[k - i] = &m.v[s * n + k];
                    double g1, l1, S = 0;
                    direct(cells, j - i + 1, 1, (double)(j - i + 1), &g1, &l1);
                    for (size_t k = i; k <= j; k++)
                        S += m.v[s * n + k];
                    g += g1;
                    l += l1;
                    mag += S * (fabs(log2(S > 0 ? S : 1)) + log2((double)n) + 1);
                }
                char what[96];
                snprintf(what, sizeof what, "round %d (kind %d), slices %zu-%zu", round, kind, i, j);
                check_q(what, q.gain[i * n + j], q.loss[i * n + j], g, l, mag);
            }
        traza_agg_quality_free(&q);
        traza_agg_micro_free(&m);
        free(vals);
    }
}

/* Slices grouped into units: the quality of an interval of units is the one of its
 * slices computed with the slices as units. */
static void test_quality_units(void **state)
{
    (void)state;
    uint64_t seed = 77;
    for (int round = 0; round < 12; round++) {
        size_t n = 20 + rng_next(&seed) % 40, ns = 1 + rng_next(&seed) % 3, K = 3 + rng_next(&seed) % 7;
        double *vals = malloc(n * ns * sizeof *vals);
        assert_non_null(vals);
        for (size_t i = 0; i < n * ns; i++)
            vals[i] = rand_value(&seed, round % 3);
        traza_agg_micro m;
        traza_agg_quality q, qu;
        traza_err err = {0};
        assert_int_equal(traza_agg_micro_from(&m, vals, n, ns, &err), 0);
        assert_int_equal(traza_agg_qualities(&m, &q, &err), 0);
        assert_int_equal(traza_agg_qualities_bounded(&m, K, &qu, &err), 0);
        assert_int_equal(qu.n, K);
        assert_non_null(qu.unit);
        assert_int_equal(qu.unit[0], 0);
        assert_int_equal(qu.unit[K], n);
        for (size_t i = 0; i < K; i++)
            for (size_t j = i; j < K; j++) {
                size_t a = qu.unit[i], z = qu.unit[j + 1] - 1;
                double g = q.gain[a * n + z], l = q.loss[a * n + z];
                double tol = 1e-9 * (fabs(g) + fabs(l) + 1);
                if (fabs(qu.gain[i * K + j] - g) > tol || fabs(qu.loss[i * K + j] - l) > tol)
                    fail_msg("round %d, units %zu-%zu (slices %zu-%zu): (%.17g, %.17g), by slice (%.17g, %.17g)", round, i, j, a,
                             z, qu.gain[i * K + j], qu.loss[i * K + j], g, l);
            }
        traza_agg_quality_free(&qu);
        traza_agg_quality_free(&q);
        traza_agg_micro_free(&m);
        free(vals);
    }
}

/* R -> {A -> {A1, A2}, B}: states on the leaves A1, A2, B, one per (leaf, slice), of
 * nearly equal nanosecond durations (some cells empty). Every part of the best
 * spatio-temporal partition, at several p, is checked against the direct qualities. */
static void test_spatial_random(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    const int64_t W = 1000000000000LL;
    for (int round = 0; round < 6; round++) {
        tu_ws w;
        tu_ws_open(&w);
        traza_writer *wr = traza_writer_begin(w.ws, "st", "gen", &w.err);
        assert_non_null(wr);
        int32_t R = traza_writer_producer(wr, -1, "R", "Node", &w.err);
        int32_t A = traza_writer_producer(wr, R, "A", "Node", &w.err);
        int32_t leaf[3];
        leaf[0] = traza_writer_producer(wr, A, "A1", "Thread", &w.err);
        leaf[1] = traza_writer_producer(wr, A, "A2", "Thread", &w.err);
        leaf[2] = traza_writer_producer(wr, R, "B", "Thread", &w.err);
        int32_t ty = traza_writer_event_type(wr, "run", TRAZA_STATE, &w.err);
        assert_true(R >= 0 && A >= 0 && leaf[0] >= 0 && leaf[1] >= 0 && leaf[2] >= 0 && ty >= 0);
        size_t n = 3 + (size_t)(rng_next(&seed) % 6);
        for (size_t k = 0; k < n; k++)
            for (int c = 0; c < 3; c++) {
                uint64_t r = rng_next(&seed);
                if (r % 5 == 0)
                    continue;
                traza_event e;
                memset(&e, 0, sizeof e);
                e.ts = (int64_t)k * W + c;
                e.end_ts = e.ts + W / 2 + (int64_t)(r % 1000);
                e.has = TRAZA_HAS_END;
                e.type = ty;
                e.producer = leaf[c];
                assert_int_equal(traza_writer_event(wr, &e, &w.err), 0);
            }
        if (traza_writer_commit(wr, NULL, &w.err) < 0)
            fail_msg("commit: %s", w.err.msg);
        traza_trace *t = traza_trace_open(w.ws, "st", TRAZA_OPEN_READ, &w.err);
        assert_non_null(t);
        traza_agg_micro m;
        if (traza_agg_micro_build(t, &(traza_filter){.has_from = 1, .has_to = 1, .from = 0, .to = (int64_t)n * W}, n, TRAZA_AGG_STATE_DURATION, &m, &w.err) < 0)
            fail_msg("micro: %s", w.err.msg);
        /* the cells (leaf, slice) */
        double cell[3][8];
        memset(cell, 0, sizeof cell);
        for (size_t s = 0; s < m.nseries; s++)
            for (int c = 0; c < 3; c++)
                if (m.producer[s] == leaf[c])
                    for (size_t k = 0; k < n; k++)
                        cell[c][k] = m.v[s * n + k];
        static const double ps[] = {0.001, 0.01, 0.05, 0.2, 0.5, 0.9};
        for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++) {
            traza_agg_stpart *pt;
            size_t np;
            double g, l;
            if (traza_agg_spatial(t, &m, ps[pi], &pt, &np, &g, &l, &w.err) < 0)
                fail_msg("spatial: %s", w.err.msg);
            double sg = 0, sl = 0;
            for (size_t i = 0; i < np; i++) {
                int in[3] = {0, 0, 0};
                for (int c = 0; c < 3; c++)
                    in[c] = pt[i].node == leaf[c] || pt[i].node == R || pt[i].node == -1 || (pt[i].node == A && c < 2);
                const double *cells[24];
                size_t nc = 0;
                double S = 0;
                for (int c = 0; c < 3; c++)
                    for (size_t k = pt[i].first; k <= pt[i].last && in[c]; k++) {
                        cells[nc++] = &cell[c][k];
                        S += cell[c][k];
                    }
                double dg, dl;
                direct(cells, nc, 1, (double)nc, &dg, &dl);
                char what[128];
                snprintf(what, sizeof what, "round %d, p = %g, part %zu (node %d, slices %zu-%zu, %zu cells)", round, ps[pi],
                         i, pt[i].node, pt[i].first, pt[i].last, nc);
                check_q(what, pt[i].gain, pt[i].loss, dg, dl, S * (log2(S > 1 ? S : 1) + 8));
                if (nc == 1 && (pt[i].gain != 0 || pt[i].loss != 0))
                    fail_msg("%s: one cell with gain %.17g, loss %.17g", what, pt[i].gain, pt[i].loss);
                sg += pt[i].gain;
                sl += pt[i].loss;
            }
            if (g < 0 || l < 0)
                fail_msg("round %d, p = %g: total gain %.17g, loss %.17g", round, ps[pi], g, l);
            free(pt);
        }
        traza_agg_micro_free(&m);
        traza_trace_close(t);
        tu_ws_close(&w);
    }
}

/* The accumulator the server's sampling shares with traza_agg_micro_build: events
 * added by hand give the build's model; an event of weight 2 counts as two (so the
 * averages do not move); an event of a category the model does not read adds
 * nothing; a variable with negative values is measured from its minimum. */
static void test_acc_weights(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_writer *wr = traza_writer_begin(w.ws, "acc", "gen", &w.err);
    assert_non_null(wr);
    int32_t p = traza_writer_producer(wr, -1, "P", "Thread", &w.err);
    int32_t run = traza_writer_event_type(wr, "run", TRAZA_STATE, &w.err);
    int32_t tick = traza_writer_event_type(wr, "tick", TRAZA_PUNCTUAL, &w.err);
    int32_t temp = traza_writer_event_type(wr, "temp", TRAZA_VARIABLE, &w.err);
    assert_true(p >= 0 && run >= 0 && tick >= 0 && temp >= 0);
    /* states [0,25) [30,70) [90,100], ticks at 5 15 95, temp -4 at 10, 6 at 60 */
    static const int64_t st[3][2] = {{0, 25}, {30, 70}, {90, 100}};
    traza_event e;
    for (int i = 0; i < 3; i++) {
        memset(&e, 0, sizeof e);
        e.ts = st[i][0], e.end_ts = st[i][1], e.has = TRAZA_HAS_END, e.type = run, e.producer = p;
        assert_int_equal(traza_writer_event(wr, &e, &w.err), 0);
    }
    static const int64_t tk[3] = {5, 15, 95};
    for (int i = 0; i < 3; i++) {
        memset(&e, 0, sizeof e);
        e.ts = tk[i], e.type = tick, e.producer = p;
        assert_int_equal(traza_writer_event(wr, &e, &w.err), 0);
    }
    static const int64_t vt[2][2] = {{10, 60}, {60, 100}};
    static const double vv[2] = {-4, 6};
    for (int i = 0; i < 2; i++) {
        memset(&e, 0, sizeof e);
        e.ts = vt[i][0], e.end_ts = vt[i][1], e.has = TRAZA_HAS_END | TRAZA_HAS_VALUE, e.type = temp, e.producer = p, e.value = vv[i];
        assert_int_equal(traza_writer_event(wr, &e, &w.err), 0);
    }
    if (traza_writer_commit(wr, NULL, &w.err) < 0)
        fail_msg("commit: %s", w.err.msg);
    traza_trace *t = traza_trace_open(w.ws, "acc", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    traza_filter f;
    traza_filter_init(&f);
    f.has_from = f.has_to = 1, f.from = 0, f.to = 100;
    for (int model = TRAZA_AGG_OCCURRENCES; model <= TRAZA_AGG_VARIABLE_AVG; model++) {
        traza_agg_micro built, once, twice;
        if (traza_agg_micro_build(t, &f, 4, (traza_agg_model)model, &built, &w.err) < 0)
            fail_msg("build %d: %s", model, w.err.msg);
        traza_agg_acc *a1 = traza_agg_acc_open(t, 0, 100, 4, (traza_agg_model)model, &w.err);
        traza_agg_acc *a2 = traza_agg_acc_open(t, 0, 100, 4, (traza_agg_model)model, &w.err);
        assert_non_null(a1);
        assert_non_null(a2);
        /* every event, all categories: the model keeps its own */
        for (int i = 0; i < 3; i++) {
            assert_int_equal(traza_agg_acc_add(a1, st[i][0], st[i][1], run, p, 0, 1, &w.err), 0);
            assert_int_equal(traza_agg_acc_add(a2, st[i][0], st[i][1], run, p, 0, 2, &w.err), 0);
            assert_int_equal(traza_agg_acc_add(a1, tk[i], tk[i], tick, p, 0, 1, &w.err), 0);
            assert_int_equal(traza_agg_acc_add(a2, tk[i], tk[i], tick, p, 0, 2, &w.err), 0);
        }
        for (int i = 0; i < 2; i++) {
            assert_int_equal(traza_agg_acc_add(a1, vt[i][0], vt[i][1], temp, p, vv[i], 1, &w.err), 0);
            assert_int_equal(traza_agg_acc_add(a2, vt[i][0], vt[i][1], temp, p, vv[i], 2, &w.err), 0);
        }
        assert_int_equal(traza_agg_acc_finish(a1, &once, &w.err), 0);
        assert_int_equal(traza_agg_acc_finish(a2, &twice, &w.err), 0);
        assert_int_equal(once.nseries, built.nseries);
        int avg = model == TRAZA_AGG_STATE_AVG || model == TRAZA_AGG_VARIABLE_AVG;
        for (size_t i = 0; i < built.nseries * 4; i++) {
            assert_true(once.type[i / 4] == built.type[i / 4]);
            assert_true(fabs(once.v[i] - built.v[i]) < 1e-9);
            assert_true(fabs(twice.v[i] - (avg ? 1 : 2) * once.v[i]) < 1e-9);
        }
        /* by hand: occurrences count all three categories' starts per 25 ticks */
        if (model == TRAZA_AGG_OCCURRENCES)
            assert_int_equal(once.nseries, 3);
        if (model == TRAZA_AGG_STATE_DURATION) {
            assert_int_equal(once.nseries, 1);
            static const double want[4] = {25, 20, 20, 10};
            for (int k = 0; k < 4; k++)
                assert_true(fabs(once.v[k] - want[k]) < 1e-9);
        }
        if (model == TRAZA_AGG_VARIABLE_AVG) {
            /* slice averages -4, -4, (-4 x 10 + 6 x 15) / 25 = 2, 6; measured from -4 */
            assert_int_equal(once.nseries, 1);
            static const double want[4] = {0, 0, 6, 10};
            for (int k = 0; k < 4; k++)
                assert_true(fabs(once.v[k] - want[k]) < 1e-9);
        }
        traza_agg_micro_free(&built);
        traza_agg_micro_free(&once);
        traza_agg_micro_free(&twice);
    }
    /* nothing added: the library's message */
    traza_agg_acc *a = traza_agg_acc_open(t, 0, 100, 4, TRAZA_AGG_VARIABLE_AVG, &w.err);
    assert_int_equal(traza_agg_acc_add(a, 0, 10, run, p, 0, 1, &w.err), 0);
    traza_agg_micro m;
    assert_int_equal(traza_agg_acc_finish(a, &m, &w.err), -1);
    assert_string_equal(w.err.msg, "no events to aggregate with the avg-value model in the window");
    assert_null(traza_agg_acc_open(t, 0, 100, 0, TRAZA_AGG_OCCURRENCES, &w.err));
    assert_string_equal(w.err.msg, "the slice count must be between 1 and 100000 (got 0)");
    traza_trace_close(t);
    tu_ws_close(&w);
}

/* The slices' bounds are exact integers (t0 + floor(span * k / n)) even where
 * doubles cannot hold the span, and an event on a bound's tick counts in the slice
 * that starts there, its tick before in the slice before: the server's sampler
 * cuts its windows at traza_agg_acc_slice_start and must find each event where the
 * accumulator counts it. */
static void test_acc_bounds(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_writer *wr = traza_writer_begin(w.ws, "bounds", "gen", &w.err);
    assert_non_null(wr);
    int32_t p = traza_writer_producer(wr, -1, "P", "Thread", &w.err);
    int32_t tick = traza_writer_event_type(wr, "tick", TRAZA_PUNCTUAL, &w.err);
    traza_event e;
    memset(&e, 0, sizeof e);
    e.ts = 1, e.type = tick, e.producer = p;
    assert_int_equal(traza_writer_event(wr, &e, &w.err), 0);
    if (traza_writer_commit(wr, NULL, &w.err) < 0)
        fail_msg("commit: %s", w.err.msg);
    traza_trace *t = traza_trace_open(w.ws, "bounds", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    const int64_t t0 = 5, span = ((int64_t)1 << 60) + 3, t1 = t0 + span;
    const size_t n = 3;
    traza_agg_acc *a = traza_agg_acc_open(t, t0, t1, n, TRAZA_AGG_OCCURRENCES, &w.err);
    assert_non_null(a);
    /* floor((2^60 + 3) k / 3) = 2^60 k / 3 rounded down, plus k */
    const int64_t b1 = t0 + (((int64_t)1 << 60) / 3) + 1, b2 = t0 + (((int64_t)1 << 61) / 3) + 2;
    assert_true(traza_agg_acc_slice_start(a, 0) == t0);
    assert_true(traza_agg_acc_slice_start(a, 1) == b1);
    assert_true(traza_agg_acc_slice_start(a, 2) == b2);
    assert_true(traza_agg_acc_slice_start(a, 3) == t1);
    assert_true(traza_agg_acc_slice_start(a, 99) == t1);
    /* one event on each side of each bound, weights 1 2 4 8 16 32 */
    static const double wt[6] = {1, 2, 4, 8, 16, 32};
    const int64_t at[6] = {t0, b1 - 1, b1, b2 - 1, b2, t1};
    for (int i = 0; i < 6; i++)
        assert_int_equal(traza_agg_acc_add(a, at[i], at[i], tick, p, 0, wt[i], &w.err), 0);
    traza_agg_micro m;
    assert_int_equal(traza_agg_acc_finish(a, &m, &w.err), 0);
    assert_int_equal(m.nseries, 1);
    assert_true(m.v[0] == 3 && m.v[1] == 12 && m.v[2] == 48);
    traza_agg_micro_free(&m);
    traza_trace_close(t);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quality_random),
        cmocka_unit_test(test_quality_units),
        cmocka_unit_test(test_spatial_random),
        cmocka_unit_test(test_acc_weights),
        cmocka_unit_test(test_acc_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
