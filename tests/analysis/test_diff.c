/* traza diff: the statistics against values computed by hand, an injected change found
 * and ranked first, and the false-positive rate of A/A comparisons measured. */
#include "testutil.h"
#include "traza/gen.h"

#include <math.h>

#define NEAR(got, want, tol)                                                                  \
    do {                                                                                      \
        double g_ = (got), w_ = (want);                                                       \
        if (!(fabs(g_ - w_) <= (tol)))                                                        \
            fail_msg("%s = %.12g, expected %.12g", #got, g_, w_);                             \
    } while (0)

/* ---- the statistics ---------------------------------------------------------------- */

static void test_mann_whitney(void **state)
{
    (void)state;
    /* Ranks of 11 12 16 17 19 20 22 24 29: x holds 3 5 7 8 9, R = 32, U = 32 - 15 = 17;
     * sd = sqrt(5*4*10/12), z = (|17 - 10| - 0.5) / sd; R's wilcox.test(exact = FALSE)
     * gives W = 17, p = 0.1113. */
    const double x[] = {19, 22, 16, 29, 24}, y[] = {20, 11, 17, 12};
    double u;
    NEAR(traza_mann_whitney(x, 5, y, 4, &u), 0.11134688653314048, 1e-12);
    NEAR(u, 17, 0);
    /* Ties: 1 | 2 2 2 | 3 3 | 4 → x's ranks 1, 3, 3, 5.5: U = 2.5; the tie term
     * (27 - 3) + (8 - 2) = 30 makes the variance 12/12 * (8 - 30/42). */
    const double tx[] = {1, 2, 2, 3}, ty[] = {2, 3, 4};
    NEAR(traza_mann_whitney(tx, 4, ty, 3, &u), 0.2663799233424826, 1e-12);
    NEAR(u, 2.5, 0);
    /* every value equal: no evidence either way */
    const double same[] = {5, 5, 5};
    NEAR(traza_mann_whitney(same, 3, same, 2, NULL), 1.0, 0);
    assert_true(isnan(traza_mann_whitney(x, 5, y, 0, NULL)));
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_hodges_lehmann(void **state)
{
    (void)state;
    /* y - x over {1,2,3} x {2,4,7}: -1 0 1 1 2 3 4 5 6, median 2 */
    const double x[] = {3, 1, 2}, y[] = {7, 2, 4};
    NEAR(traza_hodges_lehmann(x, 3, y, 3), 2, 0);
    /* {1,2} x {3,5}: 1 2 3 4, median 2.5 */
    const double x2[] = {1, 2}, y2[] = {3, 5};
    NEAR(traza_hodges_lehmann(x2, 2, y2, 2), 2.5, 0);
    assert_true(isnan(traza_hodges_lehmann(x, 3, y, 0)));
    /* Samples large enough for the selection over the pairs (more pairs than the
     * direct buffer holds), with ties and both parities of nx * ny: the same median
     * as sorting every difference. */
    static double bx[400], by[400], d[400 * 400];
    uint64_t s = 12345;
    for (int trial = 0; trial < 40; trial++) {
        size_t nx = 50 + (size_t)trial * 8, ny = 31 + (size_t)trial * 7;
        for (size_t i = 0; i < nx || i < ny; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            double v = (double)((s >> 33) % (trial % 3 ? 1000 : 20)) * 0.25; /* few distinct values: ties */
            if (i < nx)
                bx[i] = v;
            if (i < ny)
                by[i] = v + (double)(trial % 5) - 0.1 * (double)((s >> 13) % 7);
        }
        size_t n = 0;
        for (size_t i = 0; i < nx; i++)
            for (size_t j = 0; j < ny; j++)
                d[n++] = by[j] - bx[i];
        qsort(d, n, sizeof *d, cmp_dbl);
        double want = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
        NEAR(traza_hodges_lehmann(bx, nx, by, ny), want, 0);
    }
}

static void test_corrections(void **state)
{
    (void)state;
    /* sorted 0.005 0.01 0.03 0.04 (m = 4): Holm 0.02 0.03 max(0.03, 0.06) max(0.06, 0.04);
     * BH 0.02 min(0.02, 0.04) min(0.04, 0.04) 0.04 */
    const double p[] = {0.01, 0.04, 0.03, 0.005, NAN};
    double out[5];
    assert_int_equal(traza_p_holm(p, 5, out), 0);
    NEAR(out[0], 0.03, 1e-15);
    NEAR(out[1], 0.06, 1e-15);
    NEAR(out[2], 0.06, 1e-15);
    NEAR(out[3], 0.02, 1e-15);
    assert_true(isnan(out[4]));
    assert_int_equal(traza_p_bh(p, 5, out), 0);
    NEAR(out[0], 0.02, 1e-15);
    NEAR(out[1], 0.04, 1e-15);
    NEAR(out[2], 0.04, 1e-15);
    NEAR(out[3], 0.02, 1e-15);
    assert_true(isnan(out[4]));
}

static void test_rate(void **state)
{
    (void)state;
    /* 7 of 10 in B over equal spans: 2 * P(X >= 7) = 2 * (120 + 45 + 10 + 1) / 1024 */
    NEAR(traza_rate_test(3, 1.0, 7, 1.0), 352.0 / 1024, 1e-12);
    NEAR(traza_rate_test(5, 1.0, 5, 1.0), 1.0, 1e-12);
    /* B twice as long: 10 against 20 is what is expected */
    NEAR(traza_rate_test(10, 1.0, 20, 2.0), 1.0, 1e-12);
    /* normal approximation beyond 2000 events: 1000 against 1200 over equal spans,
     * z = (100 - 0.5) / sqrt(2200 / 4) */
    NEAR(traza_rate_test(1000, 1.0, 1200, 1.0), erfc(99.5 / sqrt(550.0) / sqrt(2.0)), 1e-12);
    assert_true(isnan(traza_rate_test(1, 0.0, 1, 1.0)));
}

static void test_welch(void **state)
{
    (void)state;
    /* means 2 and 5, variances 1 and 1: t = 3 / sqrt(2/3), df = (2/3)^2 / (2 * (1/3)^2 / 2)
     * = 4; Student's t with 4 degrees of freedom has the closed form two-sided p =
     * 1 - x (3 - x^2) / 2, x = t / sqrt(4 + t^2) */
    const double x[] = {1, 2, 3}, y[] = {4, 5, 6};
    double t, df, xx = 3 / sqrt(2.0 / 3) / sqrt(4 + 13.5);
    NEAR(traza_welch(x, 3, y, 3, &t, &df), 1 - xx * (3 - xx * xx) / 2, 1e-12);
    NEAR(t, 3 / sqrt(2.0 / 3), 1e-12);
    NEAR(df, 4, 1e-12);
    /* unequal variances (5/3 and 10): t = 3.5 / sqrt(5/12 + 2) = 2.25143632316, df =
     * (29/12)^2 / ((5/12)^2 / 3 + 2^2 / 4) = 5.52078774617; p by integrating the
     * incomplete beta I_{df / (df + t^2)}(df/2, 1/2) numerically (python, 2e6 midpoints) */
    const double x2[] = {1, 2, 3, 4}, y2[] = {2, 4, 6, 8, 10};
    NEAR(traza_welch(x2, 4, y2, 5, &t, &df), 0.06913359319453936, 1e-8);
    NEAR(t, 2.2514363231593695, 1e-12);
    NEAR(df, 5.520787746170677, 1e-12);
    /* no spread on either side: equal means are no evidence, different ones are */
    const double c1[] = {2, 2}, c2[] = {3, 3, 3};
    NEAR(traza_welch(c1, 2, c1, 2, &t, NULL), 1, 0);
    NEAR(traza_welch(c1, 2, c2, 3, &t, NULL), 0, 0);
    assert_true(isinf(t) && t > 0);
    assert_true(isnan(traza_welch(x, 1, y, 3, &t, &df)));
    assert_true(isnan(t) && isnan(df));
}

/* ---- an injected change -------------------------------------------------------------- */

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* 3000 events on two producers: states "task" and "isr", punctual "tick"; durations
 * uniform in [500, 1500) ns, "task"'s multiplied by task_factor. */
static traza_trace *write_trace(tu_ws *w, const char *name, uint64_t seed, double task_factor);

/* Several runs' worth of events in one trace: segment k is a run of write_trace with
 * the task factor f[k]. */
static traza_trace *write_segments(tu_ws *w, const char *name, uint64_t seed, const double *f, size_t nf);

static traza_trace *write_trace(tu_ws *w, const char *name, uint64_t seed, double task_factor)
{
    return write_segments(w, name, seed, &task_factor, 1);
}

static traza_trace *write_segments(tu_ws *w, const char *name, uint64_t seed, const double *f, size_t nf)
{
    traza_writer *wr = traza_writer_begin(w->ws, name, "test", &w->err);
    assert_non_null(wr);
    int32_t p[2] = {traza_writer_producer(wr, -1, "cpu0", "Core", &w->err),
                    traza_writer_producer(wr, -1, "cpu1", "Core", &w->err)};
    int32_t ty[3] = {traza_writer_event_type(wr, "task", TRAZA_STATE, &w->err),
                     traza_writer_event_type(wr, "isr", TRAZA_STATE, &w->err),
                     traza_writer_event_type(wr, "tick", TRAZA_PUNCTUAL, &w->err)};
    int64_t ts = 0;
    for (int i = 0; i < 3000 * (int)nf; i++) {
        double task_factor = f[i / 3000];
        traza_event e;
        memset(&e, 0, sizeof e);
        uint64_t r = next(&seed);
        int k = (int)(r % 3);
        e.ts = ts;
        e.type = ty[k];
        e.producer = p[(r >> 8) & 1];
        double d = 500 + (double)((r >> 16) % 1000);
        if (k == 0)
            d *= task_factor;
        e.end_ts = k == 2 ? ts : ts + (int64_t)d;
        e.has = k == 2 ? 0 : TRAZA_HAS_END;
        assert_int_equal(traza_writer_event(wr, &e, &w->err), 0);
        ts += 2000;
    }
    assert_int_equal(traza_writer_commit(wr, NULL, &w->err), 0);
    traza_trace *t = traza_trace_open(w->ws, name, TRAZA_OPEN_READ, &w->err);
    assert_non_null(t);
    return t;
}

static void test_injected(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace *a = write_trace(&w, "a", 1, 1.0), *b = write_trace(&w, "b", 2, 1.2);
    traza_diff d;
    traza_diff_opts o;
    traza_diff_opts_init(&o);
    if (traza_diff_compute(a, b, &o, &d, &w.err) < 0)
        fail_msg("%s", w.err.msg);
    assert_int_equal(d.nrows, 3);
    assert_int_equal(d.ntests, 3 + 2); /* a rate test per row, a duration test per state type */
    const traza_diff_row *r = &d.rows[0];
    assert_string_equal(r->name, "task");
    assert_int_equal(r->verdict, TRAZA_DIFF_SLOWER);
    assert_true(r->p_holm < 1e-6);
    /* the mean duration goes from 1000 to 1200 ns: a shift of about 200 ns, 20 % */
    if (!(r->shift > 150e-9 && r->shift < 250e-9 && r->shift_lo < r->shift && r->shift < r->shift_hi))
        fail_msg("shift %g [%g, %g]", r->shift, r->shift_lo, r->shift_hi);
    if (!(r->shift_lo > 100e-9 && r->shift_hi < 300e-9))
        fail_msg("interval [%g, %g] too wide", r->shift_lo, r->shift_hi);
    NEAR(r->rel_shift, r->shift / r->a.median, 1e-12);
    for (size_t i = 1; i < d.nrows; i++)
        assert_int_equal(d.rows[i].verdict, TRAZA_DIFF_SAME);
    assert_int_equal(r->a.count + d.rows[1].a.count + d.rows[2].a.count, 3000);
    /* the same seed gives the same interval */
    traza_diff d2;
    assert_int_equal(traza_diff_compute(a, b, &o, &d2, &w.err), 0);
    NEAR(d2.rows[0].shift_lo, r->shift_lo, 0);
    NEAR(d2.rows[0].shift_hi, r->shift_hi, 0);
    traza_diff_free(&d2);
    /* a small reservoir keeps its cap and still sees every duration */
    o.sample_cap = 100;
    assert_int_equal(traza_diff_compute(a, b, &o, &d2, &w.err), 0);
    assert_string_equal(d2.rows[0].name, "task");
    assert_int_equal(d2.rows[0].a.nsamples, 100);
    assert_int_equal(d2.rows[0].a.ndur, d.rows[0].a.ndur);
    NEAR(d2.rows[0].a.total, d.rows[0].a.total, 1e-12);
    traza_diff_free(&d2);
    /* by producer: two rows per type */
    o = (traza_diff_opts){0};
    traza_diff_opts_init(&o);
    o.by = TRAZA_DIFF_BY_PRODUCER;
    assert_int_equal(traza_diff_compute(a, b, &o, &d2, &w.err), 0);
    assert_int_equal(d2.nrows, 6);
    assert_true(strncmp(d2.rows[0].name, "task @ cpu", 10) == 0);
    assert_true(strncmp(d2.rows[1].name, "task @ cpu", 10) == 0);
    traza_diff_free(&d2);
    o.alpha = 2;
    assert_int_equal(traza_diff_compute(a, b, &o, &d2, &w.err), -1);
    assert_err_contains(w.err, "between 0 and 1");
    traza_diff_free(&d);
    traza_trace_close(a);
    traza_trace_close(b);
    tu_ws_close(&w);
}

/* ---- several runs per side ------------------------------------------------------------ */

static void test_runs(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    /* the task's speed differs from run to run by up to 30 %; the new runs' mean factor
     * (1.1) is above the base's (1.05), but well within the runs' spread */
    const double fa[] = {1.0, 1.3, 0.8, 1.1}, fb[] = {1.25, 0.95, 1.15, 1.05};
    /* a consistent 20 % slowdown, the runs within 1 % of each other */
    const double fc[] = {1.0, 1.01, 0.99, 1.0}, fd[] = {1.2, 1.21, 1.19, 1.2};
    traza_trace *a[4], *b[4], *c[4], *d[4];
    for (size_t k = 0; k < 4; k++) {
        char n[16];
        snprintf(n, sizeof n, "a%zu", k);
        a[k] = write_trace(&w, n, 10 + k, fa[k]);
        snprintf(n, sizeof n, "b%zu", k);
        b[k] = write_trace(&w, n, 20 + k, fb[k]);
        snprintf(n, sizeof n, "c%zu", k);
        c[k] = write_trace(&w, n, 30 + k, fc[k]);
        snprintf(n, sizeof n, "d%zu", k);
        d[k] = write_trace(&w, n, 40 + k, fd[k]);
    }
    /* the same events pooled into one trace per side: the one-run tests see 1200-odd
     * task durations a side and call the 5 % a slowdown */
    traza_trace *pa = write_segments(&w, "pa", 10, fa, 4), *pb = write_segments(&w, "pb", 20, fb, 4);
    traza_diff df;
    traza_diff_opts o;
    traza_diff_opts_init(&o);
    if (traza_diff_compute(pa, pb, &o, &df, &w.err) < 0)
        fail_msg("%s", w.err.msg);
    assert_string_equal(df.rows[0].name, "task");
    assert_int_equal(df.rows[0].test, TRAZA_DIFF_MANN_WHITNEY);
    assert_int_equal(df.rows[0].verdict, TRAZA_DIFF_SLOWER);
    traza_diff_free(&df);
    /* with the runs as units, the difference is within their spread */
    if (traza_diff_compute_runs(a, 4, b, 4, &o, &df, &w.err) < 0)
        fail_msg("%s", w.err.msg);
    assert_int_equal(df.runs_a, 4);
    assert_int_equal(df.nrows, 3);
    for (size_t i = 0; i < df.nrows; i++) {
        const traza_diff_row *r = &df.rows[i];
        assert_int_equal(r->verdict, TRAZA_DIFF_SAME);
        assert_int_equal(r->rate_test, TRAZA_DIFF_WELCH_RATES);
        assert_int_equal(r->a.runs, 4);
        if (!strcmp(r->name, "task")) {
            assert_int_equal(r->test, TRAZA_DIFF_WELCH_MEDIANS);
            if (!(r->p > 0.2))
                fail_msg("task: p %g within the runs' spread", r->p);
            /* the interval resamples runs: it spans the runs' spread, so it holds 0 */
            if (!(r->shift_lo < 0 && r->shift_hi > 0))
                fail_msg("task: interval [%g, %g] should hold 0", r->shift_lo, r->shift_hi);
        }
    }
    traza_diff_free(&df);
    /* a consistent change is found with the runs as units */
    if (traza_diff_compute_runs(c, 4, d, 4, &o, &df, &w.err) < 0)
        fail_msg("%s", w.err.msg);
    const traza_diff_row *r = &df.rows[0];
    assert_string_equal(r->name, "task");
    assert_int_equal(r->verdict, TRAZA_DIFF_SLOWER);
    assert_true(r->p_holm < 1e-3);
    /* 200 ns: four runs a side make a wider interval than 1000 durations would */
    if (!(r->shift_lo > 100e-9 && r->shift_hi < 300e-9 && r->shift_lo < 200e-9 && 200e-9 < r->shift_hi))
        fail_msg("shift %g [%g, %g]", r->shift, r->shift_lo, r->shift_hi);
    for (size_t i = 1; i < df.nrows; i++)
        assert_int_equal(df.rows[i].verdict, TRAZA_DIFF_SAME);
    traza_diff_free(&df);
    /* one run against several: no spread to measure on one side */
    assert_int_equal(traza_diff_compute_runs(a, 1, b, 2, &o, &df, &w.err), -1);
    assert_err_contains(w.err, "at least two on each side");
    assert_err_contains(w.err, "not 1 and 2");
    for (size_t k = 0; k < 4; k++) {
        traza_trace_close(a[k]);
        traza_trace_close(b[k]);
        traza_trace_close(c[k]);
        traza_trace_close(d[k]);
    }
    traza_trace_close(pa);
    traza_trace_close(pb);
    tu_ws_close(&w);
}

/* ---- A/A: the false-positive rate ------------------------------------------------------ */

static void test_aa(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    size_t rows = 0, flagged = 0, raw = 0, tests = 0;
    for (int rep = 0; rep < 50; rep++) {
        traza_gen_opts g;
        traza_gen_opts_init(&g);
        g.events = 2000;
        assert_int_equal(traza_gen_parse_tree(&g, "2x2", &w.err), 0);
        char na[32], nb[32];
        snprintf(na, sizeof na, "a%d", rep);
        snprintf(nb, sizeof nb, "b%d", rep);
        g.seed = 1000 + 2 * (uint64_t)rep;
        assert_int_equal(traza_gen_store(w.ws, na, &g, NULL, &w.err), 0);
        g.seed = 1001 + 2 * (uint64_t)rep;
        assert_int_equal(traza_gen_store(w.ws, nb, &g, NULL, &w.err), 0);
        traza_trace *a = traza_trace_open(w.ws, na, TRAZA_OPEN_READ, &w.err);
        traza_trace *b = traza_trace_open(w.ws, nb, TRAZA_OPEN_READ, &w.err);
        assert_non_null(a);
        assert_non_null(b);
        traza_diff d;
        traza_diff_opts o;
        traza_diff_opts_init(&o);
        o.boot_resamples = 20; /* the interval plays no part in the verdict */
        if (traza_diff_compute(a, b, &o, &d, &w.err) < 0)
            fail_msg("%s", w.err.msg);
        for (size_t i = 0; i < d.nrows; i++) {
            rows++;
            flagged += d.rows[i].verdict != TRAZA_DIFF_SAME;
            raw += d.rows[i].p < 0.01;
            raw += d.rows[i].rate_p < 0.01;
            tests += !isnan(d.rows[i].p) + !isnan(d.rows[i].rate_p);
        }
        traza_diff_free(&d);
        traza_trace_close(a);
        traza_trace_close(b);
    }
    print_message("A/A: %zu rows, %zu flagged; %zu of %zu tests at raw p < 0.01\n", rows, flagged, raw, tests);
    assert_int_equal(rows, 50 * 10);
    /* the verdict (Holm-adjusted p < 0.01): at most 1 row in 100 */
    if (flagged * 100 > rows)
        fail_msg("%zu of %zu rows flagged in A/A comparisons", flagged, rows);
    /* each test alone keeps its level: at most 2 % below 0.01 (1 % expected, with room
     * for the binomial spread of ~950 tests) */
    if (raw * 50 > tests)
        fail_msg("%zu of %zu tests at raw p < 0.01", raw, tests);
    tu_ws_close(&w);
}

/* ---- structure: cycle types and sequence patterns --------------------------------------- */

/* A loop of `iters` iterations (header 1) running f (10..25) every 3rd iteration, else
 * g (30..30+glen-1); h (50..57) every 5th. */
static traza_grammar *firmware(int iters, int glen, traza_err *err)
{
    uint64_t *w = malloc((size_t)iters * 40 * sizeof *w);
    assert_non_null(w);
    size_t n = 0;
    for (int i = 0; i < iters; i++) {
        w[n++] = 1;
        if (i % 3 == 0)
            for (uint64_t k = 10; k < 26; k++)
                w[n++] = k;
        else
            for (uint64_t k = 30; k < 30 + (uint64_t)glen; k++)
                w[n++] = k;
        if (i % 5 == 0)
            for (uint64_t k = 50; k < 58; k++)
                w[n++] = k;
    }
    const uint64_t lh = 1;
    traza_grammar *g = traza_grammar_build(w, n, TRAZA_G_CYCLITUR, &lh, err);
    free(w);
    assert_non_null(g);
    return g;
}

static void test_grammar_cycles(void **state)
{
    (void)state;
    traza_err err;
    traza_err_clear(&err);
    traza_grammar *a = firmware(300, 12, &err), *b = firmware(300, 13, &err), *c = firmware(300, 12, &err);
    traza_diff_counts d;
    assert_int_equal(traza_diff_grammar_cycles(a, b, 1, TRAZA_DIFF_HOLM, 0.01, &d, &err), 0);
    /* g alone (160 times, 13 symbols in A) and g with h (40 times): gone from A, new in B, first */
    assert_int_equal(d.nrows, 6);
    assert_int_equal(d.changed, 4);
    assert_int_equal(d.rows[0].verdict, TRAZA_DIFF_NEW);
    assert_int_equal(d.rows[0].count_b, 160);
    assert_int_equal(d.rows[0].length, 14);
    assert_int_equal(d.rows[1].verdict, TRAZA_DIFF_GONE);
    assert_int_equal(d.rows[1].count_a, 160);
    assert_int_equal(d.rows[1].length, 13);
    assert_int_equal(d.rows[1].index_a, 1);
    assert_int_equal(d.rows[1].index_b, 0);
    assert_int_equal(d.rows[2].count_b + d.rows[3].count_a, 80);
    /* f alone and f with h: the same counts, the same verdict */
    for (size_t i = 4; i < 6; i++) {
        assert_int_equal(d.rows[i].verdict, TRAZA_DIFF_SAME);
        assert_int_equal(d.rows[i].count_a, d.rows[i].count_b);
        NEAR(d.rows[i].p, 1, 1e-9);
    }
    NEAR(d.exposure_a, 300, 0);
    traza_diff_counts_free(&d);
    /* A/A */
    assert_int_equal(traza_diff_grammar_cycles(a, c, 1, TRAZA_DIFF_BH, 0.01, &d, &err), 0);
    assert_int_equal(d.nrows, 4);
    assert_int_equal(d.changed, 0);
    traza_diff_counts_free(&d);
    assert_int_equal(traza_diff_grammar_cycles(a, c, 1, TRAZA_DIFF_BH, 1.5, &d, &err), -1);
    assert_err_contains(err, "between 0 and 1");
    traza_grammar_free(a);
    traza_grammar_free(b);
    traza_grammar_free(c);
}

/* `n` events on two producers, types a b c d at random; after 1 in `every` "a" events
 * the pair "send" "recv" on the same producer. */
static traza_trace *write_pattern_trace(tu_ws *w, const char *name, uint64_t seed, int n, int every)
{
    traza_writer *wr = traza_writer_begin(w->ws, name, "test", &w->err);
    assert_non_null(wr);
    int32_t p[2] = {traza_writer_producer(wr, -1, "cpu0", "Core", &w->err),
                    traza_writer_producer(wr, -1, "cpu1", "Core", &w->err)};
    const char *names[6] = {"a", "b", "c", "d", "send", "recv"};
    int32_t ty[6];
    for (int k = 0; k < 6; k++)
        ty[k] = traza_writer_event_type(wr, names[k], TRAZA_PUNCTUAL, &w->err);
    int64_t ts = 0;
    int na = 0;
    for (int i = 0; i < n; i++) {
        uint64_t r = next(&seed);
        traza_event e;
        memset(&e, 0, sizeof e);
        e.ts = e.end_ts = ts;
        e.type = ty[r % 4];
        e.producer = p[(r >> 8) & 1];
        assert_int_equal(traza_writer_event(wr, &e, &w->err), 0);
        if (r % 4 == 0 && ++na % every == 0)
            for (int k = 4; k < 6; k++) {
                e.ts = e.end_ts = ++ts;
                e.type = ty[k];
                assert_int_equal(traza_writer_event(wr, &e, &w->err), 0);
            }
        ts += 1000;
    }
    assert_int_equal(traza_writer_commit(wr, NULL, &w->err), 0);
    traza_trace *t = traza_trace_open(w->ws, name, TRAZA_OPEN_READ, &w->err);
    assert_non_null(t);
    return t;
}

static void test_patterns(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    traza_trace *a = write_pattern_trace(&w, "a", 1, 8000, 40), *b = write_pattern_trace(&w, "b", 2, 8000, 8);
    traza_diff_counts d;
    const char *pats[] = {"send,recv", "b,c"};
    if (traza_diff_patterns(a, b, pats, 2, 0, 1, TRAZA_DIFF_HOLM, 0.01, &d, &w.err) < 0)
        fail_msg("%s", w.err.msg);
    assert_int_equal(d.nrows, 2);
    assert_string_equal(d.rows[0].name, "send > recv");
    assert_int_equal(d.rows[0].verdict, TRAZA_DIFF_MORE);
    assert_true(d.rows[0].count_a > 20);
    assert_true(d.rows[0].count_b > 4 * d.rows[0].count_a);
    assert_string_equal(d.rows[1].name, "b > c");
    assert_int_equal(d.rows[1].verdict, TRAZA_DIFF_SAME);
    assert_int_equal(d.changed, 1);
    traza_diff_counts_free(&d);
    /* the pairs of consecutive types: send > recv found among them, ranked first */
    assert_int_equal(traza_diff_patterns(a, b, NULL, 0, 20, 1, TRAZA_DIFF_HOLM, 0.01, &d, &w.err), 0);
    assert_true(d.nrows >= 16);
    assert_int_equal(d.rows[0].verdict, TRAZA_DIFF_MORE);
    assert_true(strstr(d.rows[0].name, "send") || strstr(d.rows[0].name, "recv"));
    for (size_t i = 0; i < d.nrows; i++)
        if (!strcmp(d.rows[i].name, "send > recv"))
            assert_int_equal(d.rows[i].verdict, TRAZA_DIFF_MORE);
        else if (!strchr(d.rows[i].name, 's') && !strchr(d.rows[i].name, 'r'))
            assert_int_equal(d.rows[i].verdict, TRAZA_DIFF_SAME);
    traza_diff_counts_free(&d);
    const char *bad[] = {"send,,recv"};
    assert_int_equal(traza_diff_patterns(a, b, bad, 1, 0, 1, TRAZA_DIFF_HOLM, 0.01, &d, &w.err), -1);
    assert_err_contains(w.err, "an empty type name");
    traza_trace_close(a);
    traza_trace_close(b);
    tu_ws_close(&w);
}

/* A/A on patterns: 50 pairs of runs of the same generator, at most 1 row in 100 flagged. */
static void test_aa_patterns(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    size_t rows = 0, flagged = 0, raw = 0;
    for (int rep = 0; rep < 50; rep++) {
        char na[32], nb[32];
        snprintf(na, sizeof na, "a%d", rep);
        snprintf(nb, sizeof nb, "b%d", rep);
        traza_trace *a = write_pattern_trace(&w, na, 3000 + 2 * (uint64_t)rep, 1500, 10);
        traza_trace *b = write_pattern_trace(&w, nb, 3001 + 2 * (uint64_t)rep, 1500, 10);
        traza_diff_counts d;
        if (traza_diff_patterns(a, b, NULL, 0, 20, 1, TRAZA_DIFF_HOLM, 0.01, &d, &w.err) < 0)
            fail_msg("%s", w.err.msg);
        rows += d.nrows;
        flagged += d.changed;
        for (size_t i = 0; i < d.nrows; i++)
            raw += d.rows[i].p < 0.01;
        traza_diff_counts_free(&d);
        traza_trace_close(a);
        traza_trace_close(b);
    }
    print_message("A/A patterns: %zu rows, %zu flagged; %zu at raw p < 0.01\n", rows, flagged, raw);
    assert_true(rows >= 50 * 16);
    if (flagged * 100 > rows)
        fail_msg("%zu of %zu pattern rows flagged in A/A comparisons", flagged, rows);
    /* each test alone keeps its level: at most 2 % below 0.01 */
    if (raw * 50 > rows)
        fail_msg("%zu of %zu pattern tests at raw p < 0.01", raw, rows);
    tu_ws_close(&w);
}

/* ---- the JSON writers (traza_diff_json_*): one call of the sink, its return kept ---- */

typedef struct sink {
    char text[512];
    int calls, ret;
} sink;

static int put(void *arg, const char *data, size_t len)
{
    sink *s = arg;
    s->calls++;
    snprintf(s->text, sizeof s->text, "%.*s", (int)len, data);
    return s->ret;
}

static void test_json_sink(void **state)
{
    (void)state;
    traza_diff_count row = {.name = "a > b", .length = 2, .count_a = 3, .count_b = 9, .share_a = 1.5, .share_b = 4.5,
                            .p = 0.25, .p_adj = NAN, .verdict = TRAZA_DIFF_MORE};
    traza_diff_counts c = {.rows = &row, .nrows = 1, .changed = 1};
    sink s = {0};
    assert_int_equal(traza_diff_json_counts(put, &s, &c), 0);
    assert_int_equal(s.calls, 1);
    assert_string_equal(s.text, "[{\"pattern\":\"a > b\",\"length\":2,\"rate_a\":1.5,\"rate_b\":4.5,\"count_a\":3,"
                                "\"count_b\":9,\"p\":0.25,\"p_adj\":null,\"verdict\":\"more\"}]");
    sink refuse = {.ret = 5};
    assert_int_equal(traza_diff_json_counts(put, &refuse, &c), 5);
    /* numbers JSON cannot hold are null: a cycle's share, an infinite p */
    traza_diff_count cyc = {.hash = 0xab, .length = 4, .count_a = 1, .count_b = 0, .share_a = INFINITY, .share_b = NAN,
                            .index_a = 2, .p = -INFINITY, .p_adj = 1, .verdict = TRAZA_DIFF_GONE};
    traza_diff_counts cc = {.rows = &cyc, .nrows = 1, .changed = 1};
    sink t = {0};
    assert_int_equal(traza_diff_json_counts(put, &t, &cc), 0);
    assert_string_equal(t.text, "[{\"cycle_a\":2,\"cycle_b\":0,\"hash\":\"00000000000000ab\",\"length\":4,\"share_a\":null,"
                                "\"share_b\":null,\"count_a\":1,\"count_b\":0,\"p\":null,\"p_adj\":1,\"verdict\":\"gone\"}]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mann_whitney), cmocka_unit_test(test_hodges_lehmann), cmocka_unit_test(test_corrections),
        cmocka_unit_test(test_rate),         cmocka_unit_test(test_welch),          cmocka_unit_test(test_injected),
        cmocka_unit_test(test_runs),         cmocka_unit_test(test_aa),             cmocka_unit_test(test_grammar_cycles),
        cmocka_unit_test(test_patterns),     cmocka_unit_test(test_aa_patterns),    cmocka_unit_test(test_json_sink),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
