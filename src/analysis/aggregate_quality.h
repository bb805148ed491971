/* The quality of one aggregate, shared by the temporal and spatio-temporal searches.
 *
 * For an aggregate of N cells (producers x slices) with per-type totals S_t, gain =
 * sum_t S_t log2 S_t - sum_cells v log2 v and loss = sum_t S_t log2 N - gain. Both are
 * non-negative for non-negative values (x log2 x is superadditive; loss is a
 * Kullback-Leibler divergence from the uniform spread), but they are computed as
 * differences of prefix sums whose magnitude can exceed the result by 10^12 (state
 * durations in nanoseconds): the rounding error is then larger than a small true
 * quality and of either sign. */
#ifndef TZ_ANALYSIS_AGGREGATE_QUALITY_H
#define TZ_ANALYSIS_AGGREGATE_QUALITY_H

#include <math.h>
#include <stddef.h>

/* gsum = sum_t S_t log2 S_t, cdiff = sum_cells v log2 v, cmag = a bound on the
 * magnitude of the prefix sums cdiff was taken from, stot = sum_t S_t, cells = N.
 * One cell has neither gain nor loss; a value within the rounding error of the inputs
 * (or below 0, which only rounding produces) is 0. */
static inline void tz_agg_quality(double gsum, double cdiff, double cmag, double stot, double cells, double *gain,
                                  double *loss)
{
    if (cells <= 1) {
        *gain = *loss = 0;
        return;
    }
    double lsum = stot * log2(cells);
    double tol = 1e-11 * (fabs(gsum) + fabs(cdiff) + fabs(cmag) + fabs(lsum)) + 1e-300;
    double g = gsum - cdiff, l = lsum - g;
    *gain = g < tol ? 0 : g;
    *loss = l < tol ? 0 : l;
}

/* The proposed entry of a p list: the largest gap between gain / max gain and loss /
 * max loss; gain and loss point into n entries of stride bytes. */
size_t tz_agg_propose(const double *gain, const double *loss, size_t stride, size_t n);

#endif
