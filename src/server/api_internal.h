/* Internal to src/server: shared helpers of the API handlers. */
#ifndef TZ_API_INTERNAL_H
#define TZ_API_INTERNAL_H

#include "server/server.h"
#include "traza/traza.h"
#include "traza/analysis.h"
#include "traza/grammar.h"
#include "traza/svg.h"
#include "util/util.h"

#include <pthread.h>
#include <stdatomic.h>

#define TZ_API_TRACE_CACHE 8
#define TZ_TINDEX_CACHE 2
#define TZ_TINDEX_MAX 32000000

/* One producer's events in the time index (tindex.c), in time order: their start
 * times and types (copies, so that a search over one producer reads contiguous memory),
 * and reach[i], the latest end among its events 0..i (a punctual event ends at its
 * start), with bytype[i] the type of the event that reaches it. reach and bytype are
 * NULL while every event of the producer is punctual: reach[i] is then ts[i]. Column
 * [a, b) of a view holds an event of the producer, or is covered by one of its
 * states, iff reach[k - 1] >= a where k is the first of its events at or after b. */
typedef struct tz_prow {
    size_t n, cap;
    int64_t *ts;
    int32_t *type;
    int64_t *reach;
    int32_t *bytype;
} tz_prow;

/* The in-memory time index of one trace (tindex.c): start times as int64, type and
 * producer ids each in the narrowest width that holds every value of the trace
 * (1, 2 or 4 bytes; read them with tz_tindex_type / tz_tindex_prod), and each
 * producer's events (rows[producer id], nrows of them). */
typedef struct tz_tindex {
    int64_t trace_id;
    uint64_t used;
    int refs;        /* the cache's (while in it) and each holding request's (under sh->mu) */
    int filling;     /* a request is appending to it (under sh->mu): others do not wait */
    int cached;      /* still in the cache (under sh->mu) */
    size_t n;        /* entries filled (= events once complete) */
    size_t cap;      /* events of the trace */
    int complete;    /* only complete indexes answer requests */
    int64_t *ts;     /* start times, in time order */
    void *type;
    void *prod;
    int wtype, wprod; /* bytes per id: 1 (uint8), 2 (uint16) or 4 (int32) */
    tz_prow *rows;
    size_t nrows;
} tz_tindex;

static inline int32_t tz_tindex_col(const void *a, int w, size_t i)
{
    return w == 1 ? (int32_t)((const uint8_t *)a)[i]
           : w == 2 ? (int32_t)((const uint16_t *)a)[i]
                    : ((const int32_t *)a)[i];
}
static inline int32_t tz_tindex_type(const tz_tindex *ix, size_t i) { return tz_tindex_col(ix->type, ix->wtype, i); }
static inline int32_t tz_tindex_prod(const tz_tindex *ix, size_t i) { return tz_tindex_col(ix->prod, ix->wprod, i); }
#define TZ_API_MAX_REGEX 16

/* What the APIs of one server share across threads (api.c): the grammar list
 * (immutable), the caches of derived data (time indexes, one call profile) under
 * `mu`, and the stop flag. Traces and their SQLite connections are never shared:
 * each tz_api has its own. */
typedef struct tz_shared {
    pthread_mutex_t mu;
    char **grammars;
    size_t ngrammars;
    uint64_t clock;               /* LRU clock of the caches (under mu) */
    tz_tindex *tix[TZ_TINDEX_CACHE];
    struct tz_cp_entry *cp;       /* the call profile of the last trace asked for */
    struct tz_cp_entry *cp_filtered; /* ... and of the last filter asked for on it (callbuild.c) */
    struct tz_cpb *cpb;           /* the call-profile worker and its build (callbuild.c), NULL until needed */
    atomic_int stopping;          /* set by tz_api_cancel: every request stops */
    struct tz_runs *runs;         /* the tool jobs (api_tools.c; under mu) */
    traza_registry *reg;          /* the tools: the registry of the workspace's context */
    char token[TZ_TOKEN_LEN + 1]; /* the page's token (tz_api_set_token), "" = none */
} tz_shared;

typedef struct tz_runs tz_runs;
tz_runs *tz_runs_new(void);
void tz_runs_free(tz_runs *rs);

struct tz_api {
    traza_workspace *ws;
    traza_ctx *own_ctx;           /* a clone's own context and workspace */
    traza_workspace *own_ws;
    tz_shared *sh;
    int owns_sh;                  /* the api tz_api_new made (clones borrow its sh) */
    char **grammars;              /* = sh->grammars */
    size_t ngrammars;
    struct {
        int64_t id;
        traza_trace *t;
        uint64_t used;
    } cache[TZ_API_TRACE_CACHE];
    uint64_t clock;
};

/* Time indexes a request holds (a reference each, dropped when it is answered). */
#define TZ_REQ_MAX_HELD 4

/* A request being answered. */
typedef struct tz_req {
    tz_api *api;
    const tz_params *params;
    tz_resp *resp;
    traza_err err;
    int64_t deadline; /* CLOCK_MONOTONIC ns after which long work stops (budget=) */
    int64_t budget_ms; /* the budget that deadline was set from */
    tz_tindex *held[TZ_REQ_MAX_HELD];
    size_t nheld;
    int ticks_str; /* ticks=string: times as JSON strings (exact in a browser beyond 2^53) */
} tz_req;

/* Time budget of a request: budget=MS (TZ_API_MIN_BUDGET..TZ_API_MAX_BUDGET,
 * default TZ_API_DEF_BUDGET). Work that may scan millions of events checks
 * tz_req_expired every batch and answers with what it has, flagged "partial". */
#define TZ_API_MIN_BUDGET 10
#define TZ_API_DEF_BUDGET 2000
#define TZ_API_MAX_BUDGET 10000
int64_t tz_now_ns(void);
int tz_req_expired(const tz_req *r);
/* The request's time budget as a library stop: reading events (TRAZA_STAGE_READ)
 * may use the first half of what is left when the work starts, computing the rest
 * (so work cut while reading still has time to compute over what was read). */
typedef struct tz_budget_stop {
    const tz_req *r;
    int64_t read_deadline;
} tz_budget_stop;
void tz_budget_stop_init(tz_budget_stop *b, traza_stop *st, const tz_req *r);
/* A library stop that fires at *deadline (CLOCK_MONOTONIC ns; read at each call). */
void tz_stop_at(traza_stop *st, const int64_t *deadline);
/* Counts the events matching f, exactly when the filter has no regex (index
 * counts), else by a scan that stops at the deadline: *exact = 0 then, and the
 * answer is an estimate extrapolated from the part of the window scanned
 * (*scanned = events matched so far, *scanned_to = time reached). -1 on error. */
int tz_count_bounded(tz_req *r, traza_trace *t, const traza_filter *f, int64_t *count, int *exact, int64_t *scanned,
                     int64_t *scanned_to);

/* Error answer {"error": msg, "status": n}. Returns -1. */
int tz_fail(tz_req *r, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Maps a library error to 400/404/500. */
int tz_fail_err(tz_req *r, const traza_err *err);
/* Takes the buffer as a 200 JSON answer. */
int tz_send_json(tz_req *r, tz_buf *b);

/* Parameter getters: 0 when absent (*out = def), 1 when present, -1 after a 400. */
int tz_arg_i64(tz_req *r, const char *key, int64_t min, int64_t max, int64_t def, int64_t *out);
/* Like tz_arg_i64 but values beyond max are clamped (bounded, never refused). */
int tz_arg_clamp(tz_req *r, const char *key, int64_t min, int64_t max, int64_t def, int64_t *out);
int tz_arg_double(tz_req *r, const char *key, double min, double max, double def, double *out);
const char *tz_arg_str(tz_req *r, const char *key);

/* The trace of the "trace" parameter (name or id), cached; NULL after a 4xx. */
traza_trace *tz_req_trace(tz_req *r);
/* The trace named by the parameter key, cached as tz_req_trace. */
traza_trace *tz_req_trace_of(tz_req *r, const char *key);
/* Trace `name` opened for this request alone (the caller closes it: the cache could
 * close a cached one while the request opens others), or NULL after an answer. */
traza_trace *tz_req_trace_open(tz_req *r, const char *name);

/* A filter from the common parameters: from, to, overlap, types (ids), producers
 * (ids), subtree, categories (names), set, re.COLUMN=PATTERN, nre.COLUMN=PATTERN. */
typedef struct tz_req_filter {
    traza_filter f;
    int32_t *types;
    int32_t *producers;
    traza_regex_cond re[TZ_API_MAX_REGEX];
    /* Regex matching stops at hard_deadline (twice the budget from the parse, at least
     * the budget and a second): work
     * that answers partially stops at the budget itself; the rest fails past this. */
    int64_t hard_deadline;
    traza_stop stop;
} tz_req_filter;

int tz_req_filter_parse(tz_req *r, traza_trace *t, tz_req_filter *rf);
void tz_req_filter_free(tz_req_filter *rf);

/* The time index of a trace (built on first use), or NULL when the trace is too
 * large or memory is short: callers then use the store. */
const tz_tindex *tz_req_tindex(tz_req *r, traza_trace *t);
/* The index if complete by `deadline` (CLOCK_MONOTONIC ns): on a store with rank
 * look-ups it is filled across requests, a part each time, so no request waits for
 * a whole scan; NULL until then. Without rank look-ups, built now as tz_req_tindex. */
const tz_tindex *tz_req_tindex_within(tz_req *r, traza_trace *t, int64_t deadline);
void tz_tindex_free(tz_tindex *ix);
/* Drops the references the request holds (at its end). */
void tz_req_release(tz_req *r);
/* Index of the first event with ts >= x (> x), 0..n. */
/* The time index when it is cached, or when the store has no rank look-ups (then
 * built now); NULL when the store's ranks serve (traza_ranks_of) -- those need no
 * scan of the trace, so a first request on a big trace stays fast. */
const tz_tindex *tz_req_tindex_opt(tz_req *r, traza_trace *t);
int tz_store_has_ranks(traza_trace *t);
/* Ranks of the times x[0..n-1] (events starting before each), by the best means at
 * hand: the cached index, the store's look-ups, or counts. -1 with r->err on error. */
int tz_req_ranks(tz_req *r, traza_trace *t, const int64_t *x, size_t n, int64_t *rank);
/* The n + 1 ranks of the bounds of n equal slices of [from, to] (to >= from): slice i
 * holds the events of ranks [rank[i], rank[i + 1]). */
int tz_req_slice_ranks(tz_req *r, traza_trace *t, int64_t from, int64_t to, size_t n, int64_t *rank);
size_t tz_tindex_first_ge(const tz_tindex *ix, int64_t x);
size_t tz_tindex_first_gt(const tz_tindex *ix, int64_t x);
/* 1 when the filter restricts time only (no type, producer, category, condition,
 * regex, set or overlap). */
int tz_filter_time_only(const traza_filter *f);

/* The micro model of /api/aggregate within the request's budget (aggmicro.c):
 * exact up to TZ_AGG_EXACT events or from the time index (occurrences), else
 * sampled (*sampled = 1); *partial = 1 when the deadline cut it short. -1 on a
 * library error (in r->err), -2 after a 400 answer (bad exact=). */
int tz_agg_micro_bounded(tz_req *r, traza_trace *t, int64_t t0, int64_t t1, size_t nslices, int model, traza_agg_micro *m,
                         int *sampled, int *partial);

void tz_json_color(tz_buf *b, const char *name, const char *given);
/* A time in ticks: a JSON number, or a string with ticks=string. */
void tz_json_tick(const tz_req *r, tz_buf *b, int64_t v);

/* Handlers (one file per area). Each returns 0 or -1 (resp filled either way). */
int tz_api_traces(tz_req *r);
int tz_api_trace(tz_req *r);
int tz_api_results(tz_req *r);
int tz_api_events(tz_req *r, int csv);
int tz_api_event(tz_req *r);
int tz_api_density(tz_req *r);
int tz_api_timeline(tz_req *r);
int tz_api_stats(tz_req *r);
int tz_api_aggregate(tz_req *r);
int tz_api_anomaly(tz_req *r);
int tz_api_correlate(tz_req *r);
int tz_api_grammars(tz_req *r);
int tz_api_grammar(tz_req *r);
int tz_api_callstack(tz_req *r);
/* Stops and joins the call-profile worker, frees the call profiles (callbuild.c). */
void tz_api_callstack_free(tz_shared *sh);
int tz_api_diff(tz_req *r);
int tz_api_tools(tz_req *r);
int tz_api_run(tz_req *r);
int tz_api_job(tz_req *r);
int tz_api_job_cancel(tz_req *r);
int tz_api_result_delete(tz_req *r);

#endif
