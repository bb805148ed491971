/* Internal: a diff as JSON, the same for `traza diff --json` and /api/diff. */
#ifndef TZ_DIFF_JSON_H
#define TZ_DIFF_JSON_H

#include "traza/diff.h"
#include "util/util.h"

/* Slices of B searched for the time ranges of a change. */
#define TZ_DIFF_RANGE_SLICES 20
/* Pairs of consecutive event types tried per side when no sequence pattern is given. */
#define TZ_DIFF_AUTO_PAIRS 20

/* The fields "a", "b", "by", "correction", "alpha", "span_a", "span_b", "tests",
 * "rows" (every field of every row) and "failed" (the names of the rows with
 * failed[i] set; failed may be NULL), without the enclosing braces. */
void tz_diff_json_fields(tz_buf *b, traza_trace *const *ta, traza_trace *const *tb, const traza_diff *d,
                         const unsigned char *failed);

/* Calls fn for each slower or faster row of durations (not a call path) and each
 * run of B (run -1 when B is one trace) with its time ranges (of traza_diff_ranges
 * over TZ_DIFF_RANGE_SLICES slices, median +- 3 MAD, A's runs pooled) and A's
 * interval [lo, hi]. -1 with err set. */
typedef void (*tz_diff_ranges_fn)(void *ctx, const traza_diff_row *r, int run, const traza_diff_range *g, size_t n, double lo,
                                  double hi);
int tz_diff_each_ranges(traza_trace *const *a, size_t na, traza_trace *const *b, size_t nb, const traza_diff *d, tz_diff_ranges_fn fn,
                        void *ctx, traza_err *err);

/* Where in time each such row shows, as JSON [{"row", "kind", ["run",] "lo", "hi",
 * "ranges": [{from, to, events, median, direction}]}] (seconds from the first
 * timestamp of B, or of B's run "run"), appended to o. -1 with err set. */
int tz_diff_json_ranges(tz_buf *o, traza_trace *const *a, size_t na, traza_trace *const *b, size_t nb, const traza_diff *d,
                        traza_err *err);

/* The rows of traza_diff_counts as a JSON array: a pattern's "pattern", "length",
 * "rate_a", "rate_b", or a cycle type's "cycle_a", "cycle_b", "hash", "length",
 * "share_a", "share_b"; then "count_a", "count_b", "p", "p_adj", "verdict". */
void tz_diff_json_counts(tz_buf *b, const traza_diff_counts *c);

/* What changed in the structure of A and B, the object {"paths": [{"path", "side"
 * ("base" or "new"), "calls"}], "patterns": tz_diff_json_counts of the most frequent
 * pairs of consecutive event types (per producer), "patterns_changed"}. The paths are
 * the rows of kind TRAZA_DIFF_PATH of fn, a diff of A and B by function, in its order.
 * -1 with err set. */
int tz_diff_json_structure(tz_buf *o, traza_trace *a, traza_trace *b, const traza_diff *fn, traza_err *err);

#endif
