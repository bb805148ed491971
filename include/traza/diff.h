/* traza — what changed between two traces (A = base, B = new): per row (event type;
 * event type on a producer; function of a call-stack trace), counts, rates and
 * duration quantiles of each side, a rank test on the durations (Mann–Whitney U),
 * a rate test on the counts (conditional binomial), an effect size (Hodges–Lehmann
 * shift with a bootstrap interval) and multiple-comparison corrections (Holm and
 * Benjamini–Hochberg). doc/diff.md explains each test and its assumptions. */
#ifndef TRAZA_DIFF_H
#define TRAZA_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include "traza/store.h"
#include "traza/grammar.h"
#include "traza/elf.h"
#include "traza/export.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)
/* Experimental API: it may change between minor versions; its declarations are seen
 * only with TRAZA_EXPERIMENTAL_API defined (doc/architecture.md, "Stable and
 * experimental API"). */
#ifdef TRAZA_EXPERIMENTAL_API

typedef enum traza_diff_by {
    TRAZA_DIFF_BY_TYPE = 0,     /* one row per event type name */
    TRAZA_DIFF_BY_PRODUCER = 1, /* one row per (event type, producer path) */
    TRAZA_DIFF_BY_FUNCTION = 2  /* one row per function: the nested states a call-stack trace holds */
} traza_diff_by;

typedef enum traza_diff_correction {
    TRAZA_DIFF_HOLM = 0, /* family-wise error (the default: a CI gate wants no false alarm) */
    TRAZA_DIFF_BH = 1    /* false discovery rate */
} traza_diff_correction;

/* Defaults of traza_diff_opts_init. */
#define TRAZA_DIFF_SAMPLE_CAP 100000u /* durations kept per row and side (reservoir beyond) */
#define TRAZA_DIFF_HL_CAP 1000u       /* per side, for the Hodges–Lehmann estimate */
#define TRAZA_DIFF_BOOT_CAP 200u      /* per side, for each bootstrap resample */
#define TRAZA_DIFF_BOOT_RESAMPLES 200u

typedef struct traza_diff_opts {
    traza_diff_by by;
    traza_diff_correction correction; /* which adjusted p the verdict uses */
    double alpha;                     /* adjusted p below which a row is a change */
    size_t sample_cap, hl_cap, boot_cap, boot_resamples;
    uint64_t seed;                    /* of the reservoir and bootstrap draws */
} traza_diff_opts;

void traza_diff_opts_init(traza_diff_opts *o);

typedef struct traza_diff_side {
    size_t runs;       /* traces of the side */
    int64_t count;     /* events of the row, over every run */
    double rate;       /* count per second of the runs' summed spans */
    int64_t ndur;      /* durations seen (states, links, variables, calls) */
    size_t nsamples;   /* durations kept (ndur, or the reservoir's cap) */
    double median, p90, p99; /* of the kept durations, in seconds; NaN without */
    double total;      /* summed durations, seconds */
} traza_diff_side;

typedef enum traza_diff_verdict {
    TRAZA_DIFF_SAME = 0, TRAZA_DIFF_SLOWER, TRAZA_DIFF_FASTER, TRAZA_DIFF_MORE, TRAZA_DIFF_FEWER,
    TRAZA_DIFF_NEW, TRAZA_DIFF_GONE, TRAZA_DIFF_NEW_PATH, TRAZA_DIFF_GONE_PATH
} traza_diff_verdict;
const char *traza_diff_verdict_name(traza_diff_verdict v);

/* What a row measures. */
typedef enum traza_diff_kind {
    TRAZA_DIFF_EVENTS = 0, /* events of a type (or a type on a producer): their count and durations */
    TRAZA_DIFF_CALLS = 1,  /* calls of a function: their count and total (inclusive) times */
    TRAZA_DIFF_SELF = 2,   /* calls of a function: their self times (total minus the children's) */
    TRAZA_DIFF_PATH = 3    /* a call path (root;...;function) found on one side only: its count */
} traza_diff_kind;
const char *traza_diff_kind_name(traza_diff_kind k);

/* Which test gave a p value. */
typedef enum traza_diff_test {
    TRAZA_DIFF_NO_TEST = 0,
    TRAZA_DIFF_MANN_WHITNEY = 1, /* durations, one run per side: every duration a unit */
    TRAZA_DIFF_BINOMIAL = 2,     /* counts, one run per side: Poisson counts given the spans */
    TRAZA_DIFF_WELCH_MEDIANS = 3,/* durations, several runs: Welch's t on the runs' medians */
    TRAZA_DIFF_WELCH_RATES = 4   /* counts, several runs: Welch's t on the runs' rates */
} traza_diff_test;
const char *traza_diff_test_name(traza_diff_test t);

typedef struct traza_diff_row {
    char *name;        /* "type", "type @ producer/path", "function" or "root;...;function" */
    traza_diff_kind kind;
    traza_diff_side a, b;
    double count_ratio; /* rate of B / rate of A (inf when A has none) */
    /* durations, B - A, seconds; NaN when a side has no duration */
    traza_diff_test test;  /* of the durations: Mann–Whitney U or Welch on run medians */
    double stat, df;   /* its statistic (U of A; t) and degrees of freedom (NaN for U) */
    double p;          /* two-sided */
    double p_holm, q;  /* Holm-adjusted p and Benjamini–Hochberg q over every test of the diff */
    double shift, shift_lo, shift_hi; /* Hodges–Lehmann shift and its 95 % bootstrap interval */
    double rel_shift;  /* shift / median of A */
    int subsampled;    /* the shift was estimated on a subsample (hl_cap per side) */
    /* counts: conditional binomial test of B's share given the spans (one run per
     * side) or Welch's t on the runs' rates (several) */
    traza_diff_test rate_test;
    double rate_stat, rate_df; /* t and its degrees of freedom (NaN for the binomial) */
    double rate_p, rate_p_holm, rate_q;
    double p_adj;      /* the smallest adjusted p of the row under opts.correction: the ranking key */
    traza_diff_verdict verdict;
} traza_diff_row;

typedef struct traza_diff {
    traza_diff_row *rows; /* ranked: p_adj ascending, then |rel_shift| descending */
    size_t nrows;
    size_t ntests;        /* the family the corrections count */
    double span_a, span_b; /* seconds, summed over the runs of a side */
    size_t runs_a, runs_b;
    traza_diff_opts opts;
} traza_diff;

/* Reads both traces once (memory: the rows, plus at most sample_cap durations per row
 * and run; by function, one run's calls at a time). */
int traza_diff_compute(traza_trace *a, traza_trace *b, const traza_diff_opts *opts, traza_diff *out, traza_err *err);
/* Several runs per side (na, nb >= 1; when either side has more than one, both need
 * two or more): the runs are the units of the tests (Welch's t on per-run medians and
 * rates) and of the shift's interval (a bootstrap of runs, then of durations). */
int traza_diff_compute_runs(traza_trace *const *a, size_t na, traza_trace *const *b, size_t nb, const traza_diff_opts *opts,
                            traza_diff *out, traza_err *err);
void traza_diff_free(traza_diff *d);

/* ---- the merged call tree of two call-stack traces (the differential flame graph) -- */

/* One call path (root;...;function) of A, B or both: its calls and times on each side,
 * in seconds; the totals are of the calls at this path (inclusive), the self times the
 * totals minus those of the calls they made. A side without the path has 0 calls. */
typedef struct traza_diff_frame {
    char *name;       /* the function */
    size_t parent;    /* index of the caller's frame, SIZE_MAX for a root */
    int depth;        /* 0 for a root */
    int64_t calls_a, calls_b;
    double total_a, total_b, self_a, self_b;
} traza_diff_frame;

typedef struct traza_diff_tree {
    traza_diff_frame *frames; /* a caller before its callees; siblings by name */
    size_t nframes;
    double span_a, span_b;    /* seconds */
    int max_depth;
} traza_diff_tree;

/* Reads the calls of both traces (the call model of --by function) into one tree. */
int traza_diff_tree_compute(traza_trace *a, traza_trace *b, traza_diff_tree *out, traza_err *err);
void traza_diff_tree_free(traza_diff_tree *t);

/* Which time colours a frame of the differential flame graph. */
typedef enum traza_diff_metric { TRAZA_DIFF_METRIC_SELF = 0, TRAZA_DIFF_METRIC_TOTAL = 1 } traza_diff_metric;

/* The relative change (B - A) / A of a frame's metric: +inf when A is 0 and B is not,
 * NaN for a path on one side only or 0 in both. */
double traza_diff_frame_change(const traza_diff_frame *f, traza_diff_metric m);
/* The fill of a frame: red for slower, blue for faster, the intensity |change| up to
 * 100 % (saturated beyond); a path only in B purple, neutral grey without a change. */
void traza_diff_frame_color(const traza_diff_frame *f, traza_diff_metric m, char out[8]);
/* An SVG flame graph of B's calls (widths: B's total times; roots at the bottom) each
 * frame coloured by traza_diff_frame_color, its <title> the exact numbers of both sides;
 * the paths only in A listed under the graph. NULL when out of memory. */
char *traza_diff_flame_svg(const traza_diff_tree *t, traza_diff_metric m, const char *title);

/* ---- where in time a change of durations shows ----------------------------------- */

/* A run of consecutive time slices of B whose median duration of a row's events lies
 * outside A's normal interval of durations (an anomaly rule on A's durations). */
typedef struct traza_diff_range {
    double from, to;   /* seconds from B's first timestamp */
    int64_t events;    /* B's events of the row starting in the range */
    double median;     /* their median duration, seconds */
    int slower;        /* 1 above A's interval, 0 below */
} traza_diff_range;

/* The ranges of B where the durations of a row depart from A's (a[0..na-1], the
 * base's runs, whose durations are pooled): the row is named as traza_diff_compute
 * names it for `by` and `kind` (an event type; "type @ producer path" by producer; a
 * function's calls, or its self times, by function; not a call path). B's span cut
 * into `slices` equal slices, each slice's median compared with the interval of
 * traza_anomaly_interval (rule, k) on every duration of A; adjacent flagged slices of
 * one direction merged. lo, hi: A's interval, seconds. */
int traza_diff_ranges(traza_trace *const *a, size_t na, traza_trace *b, traza_diff_by by, traza_diff_kind kind, const char *name,
                      size_t slices, int rule, double k, traza_diff_range **out, size_t *n, double *lo, double *hi, traza_err *err);
/* The same for several rows at once, each trace read once for all of them (one scan,
 * and one call walk when a row is of self times): out[r] for rows[r]; free each
 * out[r].ranges. */
typedef struct traza_diff_range_row {
    traza_diff_kind kind;
    const char *name;
} traza_diff_range_row;
typedef struct traza_diff_ranges_of {
    traza_diff_range *ranges;
    size_t n;
    double lo, hi;
} traza_diff_ranges_of;
int traza_diff_ranges_rows(traza_trace *const *a, size_t na, traza_trace *b, traza_diff_by by, const traza_diff_range_row *rows,
                           size_t nrows, size_t slices, int rule, double k, traza_diff_ranges_of *out, traza_err *err);

/* ---- structure: cycle types of two grammars, sequence patterns of two traces ----- */

/* One counted thing of both sides: a cycle type of a PC trace's grammar, or a pattern
 * of event types (its sequence-search instances). */
typedef struct traza_diff_count {
    char *name;               /* a pattern: its types joined by " > "; a cycle: NULL */
    uint64_t hash, length;    /* a cycle: its identity (traza_gcycle); a pattern: 0 and its length */
    int64_t count_a, count_b; /* occurrences (cycles) or instances (patterns) */
    double share_a, share_b;  /* a cycle: count * length / |w| (its share of the trace); a pattern: per second */
    size_t index_a, index_b;  /* a cycle: its number in `traza grammar cycles` on each side, 0 where absent */
    double p;                 /* conditional binomial test of B's count given the exposures (traza_rate_test) */
    double p_adj;             /* p corrected over every row (the diff's correction) */
    traza_diff_verdict verdict; /* NEW, GONE, MORE, FEWER or SAME */
} traza_diff_count;

typedef struct traza_diff_counts {
    traza_diff_count *rows; /* the changed rows first (see below), then the others */
    size_t nrows, changed;  /* changed: rows whose verdict is not SAME */
    double exposure_a, exposure_b; /* cycles: the number of cycles of each side; patterns: the spans, s */
    uint64_t loop_header;   /* cycles: the loop header A was cut at */
    uint64_t loop_header_b; /* cycles: the loop header B was cut at */
} traza_diff_counts;

/* The cycle types of two grammars of PC (or event type) sequences, read from the
 * grammars without expanding them, matched by content (hash and length). A type on
 * one side only is NEW or GONE whatever its count (a program path that runs or no
 * longer runs); a type on both sides is MORE or FEWER when its corrected p is below
 * alpha. Ranked: changed rows by the change of their share of the trace (|share_b -
 * share_a|), then by p_adj; then the unchanged ones, by share. */
int traza_diff_grammar_cycles(const traza_grammar *a, const traza_grammar *b, uint64_t loop_header,
                              traza_diff_correction correction, double alpha, traza_diff_counts *out, traza_err *err);
/* As traza_diff_grammar_cycles, A cut at lh_a and B at lh_b, with the addresses of each
 * side read as function + offset in its program (ea for a, eb for b, either may be
 * NULL: the address itself; traza_elf_func_at; an address outside every function is
 * itself): two builds whose functions moved because another one changed size keep
 * their common cycle types. A type's hash is the one of its renamed content. */
int traza_diff_grammar_cycles_elf(const traza_grammar *a, const traza_elf *ea, uint64_t lh_a, const traza_grammar *b,
                                  const traza_elf *eb, uint64_t lh_b, traza_diff_correction correction, double alpha,
                                  traza_diff_counts *out, traza_err *err);

/* Patterns of event types (each "A,B[,C...]": type names, in order) searched
 * on both traces with traza_seqsearch (per producer when per_producer, no maximum
 * gap); npatterns = 0: the patterns are every pair of consecutive event types (on a
 * producer when per_producer) among the `top` most frequent pairs of either side. A
 * row is a change when its corrected p is below alpha: NEW or GONE when a side has no
 * instance, else MORE or FEWER. Ranked by p_adj, then by |log of the rate ratio|. Reads
 * each trace once; memory: its events (id, time, type, producer). */
int traza_diff_patterns(traza_trace *a, traza_trace *b, const char *const *patterns, size_t npatterns, size_t top, int per_producer, traza_diff_correction correction, double alpha,
                        traza_diff_counts *out, traza_err *err);
void traza_diff_counts_free(traza_diff_counts *c);

/* ---- a diff as JSON: the same for `traza diff --json` and the server's /api/diff ---- */

/* Slices of B searched for the time ranges of a change. */
#define TRAZA_DIFF_RANGE_SLICES 20
/* Pairs of consecutive event types tried per side when no sequence pattern is given. */
#define TRAZA_DIFF_AUTO_PAIRS 20

/* Each writes its JSON to fn (traza/export.h) in one call. */

/* The fields "a", "b", "by", "correction", "alpha", "span_a", "span_b", "tests",
 * "rows" (every field of every row) and "failed" (the names of the rows with
 * failed[i] set; failed may be NULL), without the enclosing braces. 0, -1 when out of
 * memory, or fn's nonzero return. */
int traza_diff_json_fields(traza_write_fn fn, void *arg, traza_trace *const *ta, traza_trace *const *tb, const traza_diff *d,
                           const unsigned char *failed);

/* Calls each for each slower or faster row of durations (not a call path) and each
 * run of B (run -1 when B is one trace) with its time ranges (of traza_diff_ranges
 * over TRAZA_DIFF_RANGE_SLICES slices, median +- 3 MAD, A's runs pooled) and A's
 * interval [lo, hi]. -1 with err set. */
typedef void (*traza_diff_ranges_fn)(void *ctx, const traza_diff_row *r, int run, const traza_diff_range *g, size_t n,
                                     double lo, double hi);
int traza_diff_each_ranges(traza_trace *const *a, size_t na, traza_trace *const *b, size_t nb, const traza_diff *d,
                           traza_diff_ranges_fn each, void *ctx, traza_err *err);

/* Where in time each such row shows, as JSON [{"row", "kind", ["run",] "lo", "hi",
 * "ranges": [{from, to, events, median, direction}]}] (seconds from the first
 * timestamp of B, or of B's run "run"). -1 with err set (fn's nonzero return: TRAZA_E_IO). */
int traza_diff_json_ranges(traza_write_fn fn, void *arg, traza_trace *const *a, size_t na, traza_trace *const *b, size_t nb,
                           const traza_diff *d, traza_err *err);

/* The rows of traza_diff_counts as a JSON array: a pattern's "pattern", "length",
 * "rate_a", "rate_b", or a cycle type's "cycle_a", "cycle_b", "hash", "length",
 * "share_a", "share_b"; then "count_a", "count_b", "p", "p_adj", "verdict". 0, -1 when
 * out of memory, or fn's nonzero return. */
int traza_diff_json_counts(traza_write_fn fn, void *arg, const traza_diff_counts *c);

/* What changed in the structure of A and B, the object {"paths": [{"path", "side"
 * ("base" or "new"), "calls"}], "patterns": traza_diff_json_counts of the most frequent
 * pairs of consecutive event types (per producer), "patterns_changed"}. The paths are
 * the rows of kind TRAZA_DIFF_PATH of by_fn, a diff of A and B by function, in its
 * order. -1 with err set (fn's nonzero return: TRAZA_E_IO). */
int traza_diff_json_structure(traza_write_fn fn, void *arg, traza_trace *a, traza_trace *b, const traza_diff *by_fn,
                              traza_err *err);

/* ---- the statistics, for reuse and tests ---------------------------------------- */

/* Mann–Whitney U of x against y (U of x), normal approximation with tie and continuity
 * corrections; returns the two-sided p (NaN if a side is empty). Sorts copies. */
double traza_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, double *u_out);
/* Hodges–Lehmann shift: the median of every y[j] - x[i]. NaN if a side is empty or
 * memory runs out. */
double traza_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny);
/* Two-sided p of observing cb of n = ca + cb events in B when each falls in B with
 * probability tb / (ta + tb): exact binomial up to n = 2000, normal beyond. */
double traza_rate_test(int64_t ca, double ta, int64_t cb, double tb);
/* Welch's two-sample t test of y against x: t = (mean y - mean x) / sqrt(sx²/nx +
 * sy²/ny), Welch–Satterthwaite degrees of freedom; returns the two-sided p from
 * Student's t (NaN with fewer than 2 values on a side). Both variances 0: p is 1 when
 * the means are equal, else 0 (t and df infinite). */
double traza_welch(const double *x, size_t nx, const double *y, size_t ny, double *t_out, double *df_out);
/* Adjusted p values of p[0..n-1] into out (same order). NaN entries are skipped and
 * stay NaN. 0 or -1 (memory). */
int traza_p_holm(const double *p, size_t n, double *out);
int traza_p_bh(const double *p, size_t n, double *out);

#endif /* TRAZA_EXPERIMENTAL_API */
#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
