/* traza — analyses on stored traces: anomaly detection, temporal correlation (with
 * cause ranking), best-cut-partition time-slice aggregation (temporal and
 * spatio-temporal), sequence search. doc/analysis.md explains every definition.
 *
 * Every analysis is also a registered tool ("anomaly", "correlate", "aggregate",
 * "seqsearch") that saves its results beside the trace. */
#ifndef TRAZA_ANALYSIS_H
#define TRAZA_ANALYSIS_H

#include <stdint.h>
#include <stddef.h>
#include "traza/store.h"
#include "traza/result.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

/* ---- stopping long analyses ------------------------------------------------------ */

/* traza_stop (ctx.h) stops analyses too: fn(ctx, stage) is called every batch of
 * events read (stage TRAZA_STAGE_READ) and between units of computation
 * (TRAZA_STAGE_COMPUTE). */

/* What a stoppable analysis covered. */
typedef struct traza_partial {
    int partial;        /* 1 when the stop cut the work short */
    int read_all;       /* 1 when every event was read (covered_to is then the last) */
    int64_t covered_to; /* events up to this time were read (INT64_MIN: none) */
    size_t done, total;  /* ranking: series ranked / candidate series */
} traza_partial;

/* ---- warnings ------------------------------------------------------------------ */

/* What an analysis found doubtful in its own result (a rule that flags most values, a
 * constant series that leaves r undefined, intervals that merged into one). The
 * library never prints them; the caller shows them. */
#define TRAZA_WARN_MAX 4
typedef struct traza_warnings {
    size_t n;
    char msg[TRAZA_WARN_MAX][256];
} traza_warnings;

/* Appends a warning (printf-style; cut at 255 bytes; dropped beyond TRAZA_WARN_MAX). */
void traza_warnings_add(traza_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- series ---------------------------------------------------------------- */

/* The events of one series in time order, as compact arrays. end[i] == ts[i] for
 * events without an end time. */
typedef struct traza_series {
    size_t n;
    int64_t *id;
    int64_t *ts;
    int64_t *end;
    int32_t *type;
    int32_t *producer;
    char name[256];
} traza_series;

/* Loads a series: "TYPE", "TYPE@PRODUCER" (the producer and, when `subtree`, its
 * descendants) or the name/id of a saved event set. `within` (NULL: every event)
 * keeps only the events it selects too: its window, categories, parameter
 * conditions, regular expressions, saved set or group and annotation ranges apply,
 * and its types and producers, when it names some, are intersected with the series'
 * (a series that is a saved set takes no other set). Stoppable (stop and pi may be
 * NULL): when stopped, s holds the first events read (time order) and
 * pi->partial = 1. */
int traza_series_load(traza_trace *t, const char *spec, int subtree, const traza_filter *within, const traza_stop *stop,
                      traza_partial *pi, traza_series *s, traza_err *err);
/* Builds a series from arrays (copied; `end` may be NULL). Used by tests and tools. */
int traza_series_from(traza_series *s, const char *name, const int64_t *ts, const int64_t *end, size_t n, traza_err *err);
void traza_series_free(traza_series *s);

/* ---- anomaly detection ---------------------------------------------------------- */

typedef enum traza_metric { TRAZA_METRIC_DURATION = 0, TRAZA_METRIC_PERIOD = 1 } traza_metric;
typedef enum traza_rule { TRAZA_RULE_CI99 = 0, TRAZA_RULE_SIGMA = 1, TRAZA_RULE_MAD = 2 } traza_rule;

int traza_metric_parse(const char *s);
const char *traza_metric_name(traza_metric m);
int traza_rule_parse(const char *s);
const char *traza_rule_name(traza_rule r);

/* The interval of normal values of v[0..n-1] under a rule (k is ignored by ci99,
 * whose factor is 3). center/spread: mean and sigma, or median and MAD. */
int traza_anomaly_interval(const double *v, size_t n, traza_rule rule, double k, double *lo, double *hi,
                           double *center, double *spread, traza_err *err);

typedef struct traza_anomalies {
    traza_rule rule;
    traza_metric metric;
    double k, lo, hi, center, spread;
    size_t nvalues;  /* values the interval was computed from */
    size_t n;        /* anomalies */
    size_t *index;   /* into the series */
    double *value;   /* their metric */
    traza_warnings warn; /* the rule flags more than TRAZA_ANOMALY_WARN_SHARE of the values */
} traza_anomalies;

/* A rule that flags more than this share of the values is reported in warn. */
#define TRAZA_ANOMALY_WARN_SHARE 0.25

/* The metric of event i of a series: duration end - ts, or period ts[i] - ts[i-1]
 * (undefined for i = 0, which is never an anomaly). */
int traza_anomaly_detect(const traza_series *s, traza_metric m, traza_rule rule, double k, traza_anomalies *out, traza_err *err);
void traza_anomalies_free(traza_anomalies *a);

/* ---- temporal correlation -------------------------------------------------------- */

typedef enum traza_corr_method { TRAZA_CORR_REGULAR = 0, TRAZA_CORR_IRREGULAR = 1 } traza_corr_method;

/* Pearson's r; 0 when either vector is constant or n < 2. */
double traza_pearson(const double *x, const double *y, size_t n);

typedef struct traza_corr {
    double r;
    int strong;         /* |r| >= 0.5 */
    traza_corr_method method;
    int64_t t0, t1;     /* the union of the two spans */
    int64_t delta;      /* irregular */
    int swapped;        /* irregular: E1 (the smaller series) is the second argument */
    size_t nbins;
    int64_t *from, *to; /* bin bounds [from, to) (the last bin includes t1) */
    double *a, *b;      /* per bin: counts (regular) or densities per tick (irregular) */
    unsigned char *near;/* irregular: 1 for "within delta of a point of E1" */
    traza_warnings warn; /* a constant series (r undefined), intervals merged into one */
} traza_corr;

/* How the regular method slices the span. */
typedef enum traza_slicing {
    TRAZA_SLICES_AUTO = 0,  /* width = half the larger median gap of the two series (doc/analysis.md) */
    TRAZA_SLICES_PAPER = 1, /* RT-0450: floor(sqrt(|A| + |B|)) equal slices */
    TRAZA_SLICES_COUNT = 2  /* exactly `slices` equal slices */
} traza_slicing;

/* Bounds of TRAZA_SLICES_COUNT (and of the automatic count). */
#define TRAZA_CORR_MIN_SLICES 2
#define TRAZA_CORR_MAX_SLICES 100000

typedef struct traza_corr_opts {
    traza_corr_method method;
    int64_t delta;          /* irregular: the near distance; <= 0 = the default */
    traza_slicing slicing;  /* regular */
    size_t slices;          /* regular with TRAZA_SLICES_COUNT */
    const char *name_a, *name_b; /* the series' names in warnings (NULL: "the first/second series") */
    const traza_filter *within;  /* traza_correlate_rank: the candidates' events are those it selects (NULL: all) */
} traza_corr_opts;

/* Correlates two sorted time arrays with options (opts NULL: the defaults, all zero).
 * Irregular delta <= 0: min(1% of the span, a quarter of the median gap between
 * consecutive points of the smaller series), at least 1. Regular automatic slices:
 * width = half the larger of the two series' median gaps between consecutive events,
 * slice k = [t0 + k*width, t0 + (k+1)*width), the count bounded by
 * [TRAZA_CORR_MIN_SLICES, min(|A| + |B|, TRAZA_CORR_MAX_SLICES)] (equal slices of the
 * span when a bound applies). */
int traza_correlate_opts(const int64_t *a, size_t na, const int64_t *b, size_t nb, const traza_corr_opts *opts,
                         traza_corr *out, traza_err *err);
/* The paper's method: regular = floor(sqrt(|A| + |B|)) equal slices; irregular delta
 * <= 0 means the default of traza_correlate_opts. */
int traza_correlate(const int64_t *a, size_t na, const int64_t *b, size_t nb, traza_corr_method m, int64_t delta,
                    traza_corr *out, traza_err *err);
/* r only, without keeping the bins (for ranking); -2 on error. */
double traza_correlate_r(const int64_t *a, size_t na, const int64_t *b, size_t nb, traza_corr_method m, int64_t delta, traza_err *err);
void traza_corr_free(traza_corr *c);

typedef struct traza_rank_entry {
    int32_t type, producer;
    size_t n;
    double r;
} traza_rank_entry;

/* Correlates `target` with every (type, producer) series of the trace that shares no
 * event with it and returns them by decreasing r. opts NULL: the defaults (regular,
 * automatic slices; name_a/name_b are ignored); irregular delta <= 0 means min(1% of
 * the span, a quarter of the median gap between consecutive points of the smaller
 * series) (doc/analysis.md). warn (may be NULL) counts the candidates whose series was
 * constant (r undefined, ranked as 0).
 * Stoppable (stop and pi may be NULL). Stopped while reading the trace: the ranking
 * covers the events up to pi->covered_to (the target cut there too); stopped while
 * correlating (checked before each candidate after the first, so at least one is
 * ranked): the first pi->done of pi->total candidate series are ranked. Either way
 * pi->partial = 1 and what was ranked is returned; stopped before any event of the
 * target was read: -1 with TRAZA_E_CANCELLED. */
int traza_correlate_rank(traza_trace *t, const traza_series *target, const traza_corr_opts *opts,
                         const traza_stop *stop, traza_partial *pi, traza_rank_entry **out, size_t *n,
                         traza_warnings *warn, traza_err *err);

/* ---- best-cut-partition aggregation -------------------------------------------------- */

typedef enum traza_agg_model {
    TRAZA_AGG_OCCURRENCES = 0, TRAZA_AGG_STATE_DURATION = 1, TRAZA_AGG_STATE_AVG = 2, TRAZA_AGG_VARIABLE_AVG = 3
} traza_agg_model;
int traza_agg_model_parse(const char *s);
const char *traza_agg_model_name(traza_agg_model m);

/* The microscopic description: one value per (series, slice); a series is one
 * (producer, type). */
typedef struct traza_agg_micro {
    size_t nslices, nseries;
    double *v;             /* v[s * nslices + k] */
    int32_t *type, *producer;
    int64_t t0, t1;        /* slice k covers [t0 + k(t1-t0)/N, t0 + (k+1)(t1-t0)/N) */
} traza_agg_micro;

/* From explicit values (tests): values[k * nseries + s] = slice k, series s. */
int traza_agg_micro_from(traza_agg_micro *m, const double *values, size_t nslices, size_t nseries, traza_err *err);
/* Reads the events of a trace that f selects (NULL: every event). The slices span
 * f's window ([from, to]; the trace's start or end for a bound f has not), which the
 * events are counted in by start time (occurrences) or overlap (the other models,
 * whatever f->overlap says); the model's category (states, variables) is read only,
 * and a filter whose categories leave it out is refused (TRAZA_E_USAGE). f's offset,
 * limit and order are not used. */
int traza_agg_micro_build(traza_trace *t, const traza_filter *f, size_t nslices, traza_agg_model model, traza_agg_micro *m,
                          traza_err *err);
/* Divides every series by its maximum (values then lie in [0, 1]). */
void traza_agg_micro_normalize(traza_agg_micro *m);
void traza_agg_micro_free(traza_agg_micro *m);

typedef struct traza_agg_quality {
    size_t n;       /* units (slices, or groups of consecutive slices) */
    double *gain;   /* [i * n + j], i <= j: interval of units i..j */
    double *loss;
    size_t *unit;   /* NULL: unit k = slice k; else n + 1 slice starts: unit k = slices
                     * unit[k] .. unit[k + 1] - 1 */
} traza_agg_quality;

int traza_agg_qualities(const traza_agg_micro *m, traza_agg_quality *q, traza_err *err);
/* The same with at most max_units units (0: no bound): above, slices are grouped into
 * max_units units of n/max_units consecutive slices and a partition cuts only between
 * units; the qualities stay exact (every slice is a cell of its unit). Memory
 * O(max_units^2), time O(max_units^2 x series). */
#define TRAZA_AGG_MAX_UNITS 2000
int traza_agg_qualities_bounded(const traza_agg_micro *m, size_t max_units, traza_agg_quality *q, traza_err *err);
void traza_agg_quality_free(traza_agg_quality *q);

/* The best partition at p: parts[k] = part id of slice k (0, 1, ...). Returns the
 * number of parts; *gain, *loss = totals. */
size_t traza_agg_best(const traza_agg_quality *q, double p, int *parts, double *gain, double *loss);

typedef struct traza_agg_pentry {
    double p, gain, loss;
    int *parts;     /* q->n part ids */
    size_t nparts;
} traza_agg_pentry;

/* The meaningful p values in increasing order, one per distinct partition, by
 * bisection (threshold <= 0: 0.001). *proposed = index of the proposed entry. */
int traza_agg_plist(const traza_agg_quality *q, double threshold, traza_agg_pentry **out, size_t *n, size_t *proposed, traza_err *err);
void traza_agg_plist_free(traza_agg_pentry *l, size_t n);

/* Spatio-temporal variant: a part is (producer subtree, slice interval). */
typedef struct traza_agg_stpart {
    int32_t node;      /* producer id (the subtree root); -1 = every root together */
    size_t first, last;/* slices */
    double gain, loss;
    int own;           /* 1: only the producer's own events (always so for a leaf); 0: its subtree */
} traza_agg_stpart;

/* The best spatio-temporal partition at p of a micro description built over the
 * trace's producers. Parts are in (node, first) order. A producer tree too large to
 * search over the slices is cut at the deepest level that fits (see
 * traza_agg_spatial_depth_limit): producers below it count in their ancestor's part. */
int traza_agg_spatial(traza_trace *t, const traza_agg_micro *m, double p, traza_agg_stpart **parts, size_t *nparts,
                      double *gain, double *loss, traza_err *err);

/* Where traza_agg_spatial cuts the producer tree: 1 with *depth (producers deeper
 * than it count as their ancestor at that depth, roots at 0) and *nodes (the search's
 * nodes); 0 when the whole tree is searched (*nodes then counts it); -1 with err when
 * even the roots alone are too many for the slices. */
int traza_agg_spatial_depth_limit(traza_trace *t, const traza_agg_micro *m, size_t *depth, size_t *nodes, traza_err *err);

/* The meaningful p values of the spatio-temporal partition, by the bisection of the
 * temporal list (threshold <= 0: 0.001), each a full search. */
typedef struct traza_agg_stentry {
    double p, gain, loss;
    size_t nparts;
} traza_agg_stentry;
int traza_agg_spatial_plist(traza_trace *t, const traza_agg_micro *m, double threshold, traza_agg_stentry **out, size_t *n,
                            size_t *proposed, traza_err *err);

/* ---- sequence search ----------------------------------------------------------------- */

typedef struct traza_seq_result {
    size_t len;         /* pattern length */
    size_t ninstances;
    int64_t *inst;      /* ninstances * len event ids */
    size_t nexceptions;
    int64_t *exceptions;
} traza_seq_result;

/* Finds the instances of types[0..len-1] in time order (per producer when
 * per_producer), each next event at most max_gap after the previous (0 = no limit).
 * Non-overlapping, leftmost (doc/analysis.md). Only the events `within` selects
 * (NULL: all) take part: its types, when it names some, are intersected with the
 * pattern's, and a pattern type it leaves out has no events. */
int traza_seqsearch(traza_trace *t, const traza_filter *within, const int32_t *types, size_t len, int per_producer,
                    int64_t max_gap, traza_seq_result *out, traza_err *err);
/* The same on arrays (tests): events in time order. */
int traza_seqsearch_arrays(const int64_t *id, const int64_t *ts, const int32_t *type, const int32_t *producer, size_t n,
                           const int32_t *types, size_t len, int per_producer, int64_t max_gap, traza_seq_result *out,
                           traza_err *err);
void traza_seq_result_free(traza_seq_result *r);

/* Experimental API: it may change between minor versions; its declarations are seen
 * only with TRAZA_EXPERIMENTAL_API defined (doc/architecture.md, "Stable and
 * experimental API"). */
#ifdef TRAZA_EXPERIMENTAL_API

/* The micro model built event by event, for a caller that reads the events itself
 * (the server samples a big window within its time budget). traza_agg_micro_build
 * reads the trace into one. */
typedef struct traza_agg_acc traza_agg_acc;
/* The slices of [t0, t1] (t1 <= t0 is taken as t0 + 1) for the series of t's types
 * and producers. NULL with err set (out of memory, a slice count outside 1..100000). */
traza_agg_acc *traza_agg_acc_open(traza_trace *t, int64_t t0, int64_t t1, size_t nslices, traza_agg_model model,
                                  traza_err *err);
/* Adds the event [a, b] (b == a: an instant) of (type, producer) with value val (read
 * by the avg-value model), its contribution times weight (1 for an event read; a
 * sample's events stand for more). An event of a category the model does not read,
 * or outside the slices, adds nothing. 0, or -1 (out of memory). */
int traza_agg_acc_add(traza_agg_acc *A, int64_t a, int64_t b, int32_t type, int32_t producer, double val, double weight,
                      traza_err *err);
/* The first tick of slice k (0 <= k < nslices): slice k holds the ticks from its
 * start to the next slice's start (excluded); the last one ends at t1 (included).
 * k >= nslices gives t1. */
int64_t traza_agg_acc_slice_start(const traza_agg_acc *A, size_t k);
/* The model of what was added (the averages taken) into m; frees A. -1 when nothing
 * was added ("no events to aggregate…", TRAZA_E_USAGE). */
int traza_agg_acc_finish(traza_agg_acc *A, traza_agg_micro *m, traza_err *err);
/* Frees A unfinished. */
void traza_agg_acc_free(traza_agg_acc *A);

#endif /* TRAZA_EXPERIMENTAL_API */

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
