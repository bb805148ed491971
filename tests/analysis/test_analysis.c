/* Analyses: exact small cases (the FrameSoC aggregation example, hand-computed
 * correlations and anomaly intervals), sequence search, and cause ranking on a
 * generated trace with an injected cause. */
#include "testutil.h"
#include "traza/analysis.h"
#include "synth.h"

#include <math.h>

/* ---- aggregation: the paper's example ---------------------------------------- */

static const double paper[5 * 3] = {3, 6, 7, 5, 3, 5, 6, 2, 9, 1, 2, 7, 0, 9, 3};

static void check_parts(const int *got, const int *want, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (got[k] != want[k])
            fail_msg("slice %zu: part %d, expected %d", k, got[k], want[k]);
}

static void test_agg_paper(void **state)
{
    (void)state;
    traza_err err;
    traza_agg_micro m;
    traza_agg_quality q;
    assert_int_equal(traza_agg_micro_from(&m, paper, 5, 3, &err), 0);
    assert_int_equal(traza_agg_qualities(&m, &q, &err), 0);
    /* gain/loss of the whole: S log S - sum v log v per series. */
    assert_true(fabs(q.gain[0 * 5 + 4] - 141.42582776735549) < 1e-9);
    assert_true(fabs(q.loss[0 * 5 + 4] - 16.46528268498517) < 1e-9);
    traza_agg_pentry *l;
    size_t n, prop;
    assert_int_equal(traza_agg_plist(&q, 0.001, &l, &n, &prop, &err), 0);
    assert_int_equal(n, 5);
    static const int want[5][5] = {{0, 1, 2, 3, 4}, {0, 1, 1, 2, 3}, {0, 0, 0, 1, 2}, {0, 0, 0, 0, 1}, {0, 0, 0, 0, 0}};
    static const double wp[5] = {0.0, 0.035, 0.052, 0.078, 0.223};
    for (size_t i = 0; i < 5; i++) {
        check_parts(l[i].parts, want[i], 5);
        if (fabs(l[i].p - wp[i]) > 0.0015)
            fail_msg("entry %zu: p = %g, expected about %g", i, l[i].p, wp[i]);
    }
    assert_true(fabs(l[1].gain - 28.953088719908695) < 1e-9 && fabs(l[1].loss - 1.0469112800913016) < 1e-9);
    assert_true(prop > 0 && prop < 4);
    int parts[5];
    double g, lo;
    assert_int_equal(traza_agg_best(&q, 0.06, parts, &g, &lo), 3);
    check_parts(parts, want[2], 5);
    traza_agg_plist_free(l, n);
    traza_agg_quality_free(&q);
    traza_agg_micro_free(&m);
}

/* ---- correlation -------------------------------------------------------------- */

static void test_corr_regular(void **state)
{
    (void)state;
    traza_err err;
    const int64_t a[] = {0, 10, 20, 30, 35}, b[] = {5, 25, 26, 39};
    traza_corr c;
    assert_int_equal(traza_correlate(a, 5, b, 4, TRAZA_CORR_REGULAR, 0, &c, &err), 0);
    /* N = floor(sqrt(9)) = 3 slices of [0, 39]: counts (2,1,2) and (1,1,2); r = 0.5. */
    assert_int_equal(c.nbins, 3);
    assert_true(c.a[0] == 2 && c.a[1] == 1 && c.a[2] == 2);
    assert_true(c.b[0] == 1 && c.b[1] == 1 && c.b[2] == 2);
    assert_true(fabs(c.r - 0.5) < 1e-12);
    assert_int_equal(c.strong, 1);
    traza_corr_free(&c);
    assert_true(fabs(traza_correlate_r(a, 5, a, 5, TRAZA_CORR_REGULAR, 0, &err) - 1.0) < 1e-12);
    assert_true(traza_correlate_r(a, 0, b, 4, TRAZA_CORR_REGULAR, 0, &err) < -1.5);
    assert_err_contains(err, "two non-empty series");
}

static void test_corr_irregular(void **state)
{
    (void)state;
    traza_err err;
    const int64_t a[] = {100, 500}, b[] = {95, 102, 105, 300, 498, 700};
    traza_corr c;
    assert_int_equal(traza_correlate(b, 6, a, 2, TRAZA_CORR_IRREGULAR, 10, &c, &err), 0);
    /* E1 = a (smaller, second argument): near [95,111) [490,511), rest [111,490)
     * [511,701); densities = counts / length. */
    assert_int_equal(c.swapped, 1);
    assert_int_equal(c.nbins, 4);
    assert_true(c.near[0] && !c.near[1] && c.near[2] && !c.near[3]);
    assert_int_equal(c.from[1], 111);
    assert_int_equal(c.to[1], 490);
    assert_true(fabs(c.b[0] - 1.0 / 16) < 1e-15 && c.b[1] == 0);
    assert_true(fabs(c.a[0] - 3.0 / 16) < 1e-15 && fabs(c.a[1] - 1.0 / 379) < 1e-15);
    assert_true(fabs(c.r - 0.8639951826476546) < 1e-12);
    traza_corr_free(&c);
    /* Default delta: 1% of the span. */
    assert_int_equal(traza_correlate(a, 2, b, 6, TRAZA_CORR_IRREGULAR, 0, &c, &err), 0);
    assert_int_equal(c.delta, 6);
    traza_corr_free(&c);
}

/* ---- anomalies ------------------------------------------------------------------- */

static void detect(const traza_series *s, traza_metric m, traza_rule r, double k, size_t nwant, const size_t *want)
{
    traza_err err;
    traza_anomalies a;
    assert_int_equal(traza_anomaly_detect(s, m, r, k, &a, &err), 0);
    if (a.n != nwant)
        fail_msg("rule %s k=%g: %zu anomalies, expected %zu (interval %g..%g)", traza_rule_name(r), k, a.n, nwant, a.lo, a.hi);
    for (size_t i = 0; i < nwant; i++)
        assert_int_equal(a.index[i], want[i]);
    traza_anomalies_free(&a);
}

static void test_anomaly_rules(void **state)
{
    (void)state;
    traza_err err;
    const int64_t ts[] = {0, 100, 200, 300, 400, 500, 600, 700};
    const int64_t dur[] = {10, 12, 11, 13, 12, 40, 11, 12};
    int64_t end[8];
    for (int i = 0; i < 8; i++)
        end[i] = ts[i] + dur[i];
    traza_series s;
    assert_int_equal(traza_series_from(&s, "x", ts, end, 8, &err), 0);
    double v[8], lo, hi, c, sp;
    for (int i = 0; i < 8; i++)
        v[i] = (double)dur[i];
    /* mean 15.125, sigma 9.4397762: ci99 = mean +- 3 sigma / sqrt(8). */
    assert_int_equal(traza_anomaly_interval(v, 8, TRAZA_RULE_CI99, 0, &lo, &hi, &c, &sp, &err), 0);
    assert_true(fabs(lo - 5.112605337632759) < 1e-9 && fabs(hi - 25.137394662367242) < 1e-9);
    assert_int_equal(traza_anomaly_interval(v, 8, TRAZA_RULE_MAD, 3, &lo, &hi, &c, &sp, &err), 0);
    assert_true(c == 12 && sp == 1 && lo == 9 && hi == 15);
    const size_t five[] = {5}, many[] = {0, 2, 3, 5, 6};
    detect(&s, TRAZA_METRIC_DURATION, TRAZA_RULE_CI99, 0, 1, five);
    detect(&s, TRAZA_METRIC_DURATION, TRAZA_RULE_SIGMA, 3, 0, NULL); /* [-13.2, 43.4] */
    detect(&s, TRAZA_METRIC_DURATION, TRAZA_RULE_SIGMA, 2, 1, five); /* [-3.75, 34.0] */
    detect(&s, TRAZA_METRIC_DURATION, TRAZA_RULE_MAD, 3, 1, five);
    detect(&s, TRAZA_METRIC_DURATION, TRAZA_RULE_MAD, 0.5, 5, many);
    traza_series_free(&s);
    /* Period: 10,10,10,70,10 -> mean 22, sigma 24, ci99 [-10.2, 54.2]. */
    const int64_t pts[] = {0, 10, 20, 30, 100, 110};
    assert_int_equal(traza_series_from(&s, "p", pts, NULL, 6, &err), 0);
    const size_t four[] = {4};
    detect(&s, TRAZA_METRIC_PERIOD, TRAZA_RULE_CI99, 0, 1, four);
    traza_series_free(&s);
    assert_int_equal(traza_anomaly_interval(v, 0, TRAZA_RULE_SIGMA, 3, &lo, &hi, &c, &sp, &err), -1);
    assert_err_contains(err, "no metric values");
}

/* ---- sequence search ---------------------------------------------------------------- */

static void test_seqsearch(void **state)
{
    (void)state;
    traza_err err;
    /* Types: 1 = A, 2 = B, 3 = C, 9 = other. Producers 0 and 1. */
    const int64_t id[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const int64_t ts[] = {0, 5, 10, 12, 20, 21, 30, 100, 105, 200};
    const int32_t ty[] = {1, 9, 2, 1, 1, 2, 2, 1, 2, 2};
    const int32_t pr[] = {0, 0, 0, 1, 0, 0, 1, 0, 0, 0};
    const int32_t pat[] = {1, 2};
    traza_seq_result r;
    assert_int_equal(traza_seqsearch_arrays(id, ts, ty, pr, 10, pat, 2, 0, 0, &r, &err), 0);
    /* Global: (1,3) then A4 is replaced by A5 -> (5,6); B7 exception; (8,9); B10 exception. */
    assert_int_equal(r.ninstances, 3);
    const int64_t wi[] = {1, 3, 5, 6, 8, 9};
    for (int i = 0; i < 6; i++)
        assert_int_equal(r.inst[i], wi[i]);
    assert_int_equal(r.nexceptions, 3);
    assert_int_equal(r.exceptions[0], 4);
    assert_int_equal(r.exceptions[1], 7);
    assert_int_equal(r.exceptions[2], 10);
    traza_seq_result_free(&r);
    /* Per producer, in order of completion: (1,3) (5,6) on 0, (4,7) on 1, (8,9) on 0;
     * B10 exception. */
    assert_int_equal(traza_seqsearch_arrays(id, ts, ty, pr, 10, pat, 2, 1, 0, &r, &err), 0);
    assert_int_equal(r.ninstances, 4);
    assert_int_equal(r.inst[4], 4);
    assert_int_equal(r.inst[5], 7);
    assert_int_equal(r.nexceptions, 1);
    traza_seq_result_free(&r);
    /* Max gap 6: (1,3)? gap 10 > 6 -> A1 exception, B3 exception; (5,6); (8,9) gap 5. */
    assert_int_equal(traza_seqsearch_arrays(id, ts, ty, pr, 10, pat, 2, 1, 6, &r, &err), 0);
    assert_int_equal(r.ninstances, 2);
    assert_int_equal(r.inst[0], 5);
    assert_int_equal(r.inst[2], 8);
    assert_int_equal(r.nexceptions, 5); /* 1, 3, 4, 7, 10 */
    traza_seq_result_free(&r);
}

/* ---- a generated trace with an injected cause ------------------------------------------ */

static void test_rank_flush(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace_info info;
    if (synth_flush(w.ws, "flush", 120, 0, 42, &info, &w.err) < 0)
        fail_msg("synth: %s", w.err.msg);
    traza_trace_info_clear(&info);
    traza_trace *t = traza_trace_open(w.ws, "flush", TRAZA_OPEN_WRITE, &w.err);
    assert_non_null(t);
    traza_series s;
    if (traza_series_load(t, "read@net", 0, 0, NULL, NULL, &s, &w.err) < 0)
        fail_msg("%s", w.err.msg);
    assert_int_equal(s.n, 11606); /* every 10 to 10.1 ms, blocked 30 ms during the flushes */
    traza_anomalies a;
    assert_int_equal(traza_anomaly_detect(&s, TRAZA_METRIC_DURATION, TRAZA_RULE_MAD, 3, &a, &w.err), 0);
    /* 24 flushes x 7 stalled reads (each 30 ms read delays the next one). */
    assert_int_equal(a.n, 24 * 7);
    assert_int_equal(a.warn.n, 0);
    int64_t *ids = malloc(a.n * sizeof *ids);
    for (size_t i = 0; i < a.n; i++)
        ids[i] = s.id[a.index[i]];
    traza_result_meta meta = {"slow-reads", "anomaly", "", 1, NULL};
    assert_true(traza_result_save_events(t, &meta, ids, a.n, &w.err) > 0);
    free(ids);
    traza_anomalies_free(&a);
    traza_series_free(&s);
    traza_series an;
    if (traza_series_load(t, "slow-reads", 0, 0, NULL, NULL, &an, &w.err) < 0)
        fail_msg("%s", w.err.msg);
    assert_int_equal(an.n, 168);
    for (int m = 0; m < 2; m++) {
        traza_rank_entry *r;
        size_t n;
        assert_int_equal(traza_correlate_rank(t, &an, &(traza_corr_opts){.method = (traza_corr_method)m, .delta = 0}, NULL, NULL, &r, &n, NULL, &w.err), 0);
        assert_int_equal(n, 5); /* every series but read@net */
        const traza_event_type *ft = traza_trace_event_type_by_name(t, "flush");
        if (r[0].type != ft->id)
            fail_msg("method %d: first is type %d (r=%g), flush is %d", m, r[0].type, r[0].r, ft->id);
        assert_true(r[0].r > 0.9);
        assert_true(r[1].r < 0.5);
        free(r);
    }
    traza_series_free(&an);
    assert_int_equal(traza_series_load(t, "nope", 0, 0, NULL, NULL, &an, &w.err), -1);
    assert_err_contains(w.err, "not an event type");
    assert_int_equal(traza_series_load(t, "read@nowhere", 0, 0, NULL, NULL, &an, &w.err), -1);
    assert_err_contains(w.err, "no producer 'nowhere'");
    traza_trace_close(t);
    tu_ws_close(&w);
}

/* ---- spatio-temporal aggregation: a hand-computed hierarchy ---------------------
 * R with children A and B, one type, 2 slices of 100 ticks: A = (2, 2), B = (4, 0).
 * Qualities (gain, loss), loss = S log2(cells x slices) - gain:
 *   A[0,1]: (8 - 4, 4 - 4) = (4, 0);  B[0,1]: (8 - 8, 4 - 0) = (0, 4);
 *   R[0,0]: (6 log2 6 - 10, 6 - gain) = (6 log2 3 - 4, 10 - 6 log2 3);
 *   R[1,1]: (2 - 2, 2 - 0) = (0, 2);  R[0,1]: (24 - 12, 16 - 12) = (12, 4);
 *   one cell over one slice: (0, 0).
 * Best at p (value p g - (1 - p) l): R[0,1] as a whole 16p - 4, its children 4p
 * (A whole, B cut), cut in time max(0, 6p - 0.490225) + 0. Hence:
 *   p < 0.2451: A[0,1], B[0,0], B[1,1]           total (4, 0)
 *   0.2451 < p < 0.35098: R[0,0], A[1,1], B[1,1]  total (6 log2 3 - 4, 10 - 6 log2 3)
 *   p > 0.35098: R[0,1]                           total (12, 4) */
static void test_agg_spatial(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_writer *wr = traza_writer_begin(w.ws, "tree", "gen", &w.err);
    assert_non_null(wr);
    int32_t R = traza_writer_producer(wr, -1, "R", "Node", &w.err);
    int32_t A = traza_writer_producer(wr, R, "A", "Thread", &w.err);
    int32_t B = traza_writer_producer(wr, R, "B", "Thread", &w.err);
    int32_t ty = traza_writer_event_type(wr, "x", TRAZA_PUNCTUAL, &w.err);
    assert_true(R >= 0 && A >= 0 && B >= 0 && ty >= 0);
    static const struct { int prod; int64_t ts; } evs[] = {{0, 10}, {1, 20}, {1, 30}, {1, 40}, {0, 50}, {1, 60},
                                                           {0, 110}, {0, 150}};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
        traza_event e;
        memset(&e, 0, sizeof e);
        e.ts = evs[i].ts;
        e.type = ty;
        e.producer = evs[i].prod ? B : A;
        assert_int_equal(traza_writer_event(wr, &e, &w.err), 0);
    }
    if (traza_writer_commit(wr, NULL, &w.err) < 0)
        fail_msg("commit: %s", w.err.msg);
    traza_trace *t = traza_trace_open(w.ws, "tree", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    traza_agg_micro m;
    if (traza_agg_micro_build(t, &(traza_filter){.has_from = 1, .has_to = 1, .from = 0, .to = 200}, 2, TRAZA_AGG_OCCURRENCES, &m, &w.err) < 0)
        fail_msg("micro: %s", w.err.msg);
    assert_int_equal(m.nseries, 2);
    double gr = 6 * log2(3) - 4;
    static const double ps[3] = {0.1, 0.3, 0.5};
    struct { int32_t node; size_t first, last; double g, l; } want[3][3] = {
        {{A, 0, 1, 4, 0}, {B, 0, 0, 0, 0}, {B, 1, 1, 0, 0}},
        {{R, 0, 0, gr, 0}, {A, 1, 1, 0, 0}, {B, 1, 1, 0, 0}},
        {{R, 0, 1, 12, 4}, {-2, 0, 0, 0, 0}, {-2, 0, 0, 0, 0}},
    };
    want[1][0].l = 10 - 6 * log2(3);
    static const size_t wn[3] = {3, 3, 1};
    static const double wg[3] = {4, 0, 12}, wl[3] = {0, 0, 4};
    for (size_t c = 0; c < 3; c++) {
        traza_agg_stpart *pt;
        size_t np;
        double g, l;
        if (traza_agg_spatial(t, &m, ps[c], &pt, &np, &g, &l, &w.err) < 0)
            fail_msg("spatial: %s", w.err.msg);
        if (np != wn[c])
            fail_msg("p = %g: %zu parts, expected %zu", ps[c], np, wn[c]);
        /* Parts come in (node, first) order; R was declared first, then A, B. */
        for (size_t i = 0; i < np; i++) {
            const traza_agg_stpart *q = &pt[i];
            /* Find the expected part with this node and first slice. */
            size_t k = 0;
            while (k < np && !(want[c][k].node == q->node && want[c][k].first == q->first))
                k++;
            if (k == np)
                fail_msg("p = %g: unexpected part node %d slices %zu-%zu", ps[c], q->node, q->first, q->last);
            assert_int_equal(q->last, want[c][k].last);
            if (fabs(q->gain - want[c][k].g) > 1e-9 || fabs(q->loss - want[c][k].l) > 1e-9)
                fail_msg("p = %g, part %zu: (gain, loss) = (%.12g, %.12g), expected (%.12g, %.12g)", ps[c], i, q->gain,
                         q->loss, want[c][k].g, want[c][k].l);
        }
        double eg = c == 1 ? gr : wg[c], el = c == 1 ? 10 - 6 * log2(3) : wl[c];
        if (fabs(g - eg) > 1e-9 || fabs(l - el) > 1e-9)
            fail_msg("p = %g: total (%.12g, %.12g), expected (%.12g, %.12g)", ps[c], g, l, eg, el);
        free(pt);
    }
    traza_agg_micro_free(&m);
    traza_trace_close(t);
    tu_ws_close(&w);
}

/* ---- aggregation: the window's end ------------------------------------------------
 * Punctual x at 0, 49, 50 and 100 (max_ts), one state s over [40, 100]. An
 * occurrence at the window's end counts in the last slice; a state is cut at the
 * slice bounds (slice_at) and at the window's end. */
static const double *series_of(const traza_agg_micro *m, int32_t type)
{
    for (size_t s = 0; s < m->nseries; s++)
        if (m->type[s] == type)
            return m->v + s * m->nslices;
    fail_msg("no series of type %d", type);
    return NULL;
}

static void check_slices(const char *what, const double *got, const double *want, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (got[k] != want[k])
            fail_msg("%s, slice %zu: %g, expected %g", what, k, got[k], want[k]);
}

static void test_agg_window_end(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_writer *wr = traza_writer_begin(w.ws, "ends", "gen", &w.err);
    assert_non_null(wr);
    int32_t p = traza_writer_producer(wr, -1, "P", "Thread", &w.err);
    int32_t tx = traza_writer_event_type(wr, "x", TRAZA_PUNCTUAL, &w.err);
    int32_t ts = traza_writer_event_type(wr, "s", TRAZA_STATE, &w.err);
    assert_true(p >= 0 && tx >= 0 && ts >= 0);
    /* In time order: x@0, s [40, 100], x@49, x@50, x@100. */
    static const int64_t at[] = {0, 40, 49, 50, 100};
    for (size_t i = 0; i < 5; i++) {
        traza_event e;
        memset(&e, 0, sizeof e);
        e.ts = at[i];
        e.type = i == 1 ? ts : tx;
        e.producer = p;
        if (i == 1) {
            e.end_ts = 100;
            e.has = TRAZA_HAS_END;
        }
        assert_int_equal(traza_writer_event(wr, &e, &w.err), 0);
    }
    if (traza_writer_commit(wr, NULL, &w.err) < 0)
        fail_msg("commit: %s", w.err.msg);
    traza_trace *t = traza_trace_open(w.ws, "ends", TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    traza_agg_micro m;

    /* The whole trace [0, 100] in 2 slices [0, 50) [50, 100]: x@100 is in slice 1. */
    if (traza_agg_micro_build(t, NULL, 2, TRAZA_AGG_OCCURRENCES, &m, &w.err) < 0)
        fail_msg("micro: %s", w.err.msg);
    assert_int_equal(m.t0, 0);
    assert_int_equal(m.t1, 100);
    check_slices("x, whole trace", series_of(&m, tx), (const double[]){2, 2}, 2);
    check_slices("s, whole trace", series_of(&m, ts), (const double[]){1, 0}, 2);
    traza_agg_micro_free(&m);

    /* Window [0, 50], 2 slices [0, 25) [25, 50]: x@50 (the window's end) is in slice 1,
     * x@100 is outside. */
    if (traza_agg_micro_build(t, &(traza_filter){.has_from = 1, .has_to = 1, .from = 0, .to = 50}, 2, TRAZA_AGG_OCCURRENCES, &m, &w.err) < 0)
        fail_msg("micro: %s", w.err.msg);
    check_slices("x, window [0, 50]", series_of(&m, tx), (const double[]){1, 2}, 2);
    traza_agg_micro_free(&m);

    /* Durations over [0, 100] in 3 slices [0, 33) [33, 66) [66, 100]: s = 0, 26, 34. */
    if (traza_agg_micro_build(t, NULL, 3, TRAZA_AGG_STATE_DURATION, &m, &w.err) < 0)
        fail_msg("micro: %s", w.err.msg);
    assert_int_equal(m.nseries, 1);
    check_slices("s durations, whole trace", series_of(&m, ts), (const double[]){0, 26, 34}, 3);
    traza_agg_micro_free(&m);

    /* Window [0, 70]: the state is cut at 70; slices [0, 23) [23, 46) [46, 70]. */
    if (traza_agg_micro_build(t, &(traza_filter){.has_from = 1, .has_to = 1, .from = 0, .to = 70}, 3, TRAZA_AGG_STATE_DURATION, &m, &w.err) < 0)
        fail_msg("micro: %s", w.err.msg);
    check_slices("s durations, window [0, 70]", series_of(&m, ts), (const double[]){0, 6, 24}, 3);
    traza_agg_micro_free(&m);

    traza_trace_close(t);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agg_paper),       cmocka_unit_test(test_corr_regular), cmocka_unit_test(test_corr_irregular),
        cmocka_unit_test(test_anomaly_rules),   cmocka_unit_test(test_seqsearch),    cmocka_unit_test(test_rank_flush),
        cmocka_unit_test(test_agg_spatial),     cmocka_unit_test(test_agg_window_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
