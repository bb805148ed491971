/* Internal to src/server: shared helpers of the API handlers. */
#ifndef TZ_API_INTERNAL_H
#define TZ_API_INTERNAL_H

#include "server/server.h"
#include "traza/traza.h"
#include "traza/analysis.h"
#include "traza/grammar.h"
#include "traza/svg.h"
#include "util/util.h"

#define TZ_API_TRACE_CACHE 8
#define TZ_TINDEX_CACHE 2
#define TZ_TINDEX_MAX 32000000

/* The in-memory time index of one trace (tindex.c). */
typedef struct tz_tindex {
    int64_t trace_id;
    uint64_t used;
    size_t n;
    int64_t *ts;     /* start times, in time order */
    int32_t *type;
    int32_t *prod;
} tz_tindex;
#define TZ_API_MAX_REGEX 16

struct tz_api {
    traza_workspace *ws;
    char **grammars;
    size_t ngrammars;
    struct {
        int64_t id;
        traza_trace *t;
        uint64_t used;
    } cache[TZ_API_TRACE_CACHE];
    uint64_t clock;
    tz_tindex *tix[TZ_TINDEX_CACHE];
    /* call profile of one trace, kept between requests */
    int64_t cp_trace;
    void *cp;
};

/* A request being answered. */
typedef struct tz_req {
    tz_api *api;
    const tz_params *params;
    tz_resp *resp;
    traza_err err;
} tz_req;

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

/* A filter from the common parameters: from, to, overlap, types (ids), producers
 * (ids), subtree, categories (names), set, re.COLUMN=PATTERN, nre.COLUMN=PATTERN. */
typedef struct tz_req_filter {
    traza_filter f;
    int32_t *types;
    int32_t *producers;
    traza_regex_cond re[TZ_API_MAX_REGEX];
} tz_req_filter;

int tz_req_filter_parse(tz_req *r, traza_trace *t, tz_req_filter *rf);
void tz_req_filter_free(tz_req_filter *rf);

/* The time index of a trace (built on first use), or NULL when the trace is too
 * large or memory is short: callers then use the store. */
const tz_tindex *tz_req_tindex(tz_req *r, traza_trace *t);
void tz_tindex_free(tz_tindex *ix);
/* Index of the first event with ts >= x (> x), 0..n. */
size_t tz_tindex_first_ge(const tz_tindex *ix, int64_t x);
size_t tz_tindex_first_gt(const tz_tindex *ix, int64_t x);
/* 1 when the filter restricts time only (no type, producer, category, condition,
 * regex, set or overlap). */
int tz_filter_time_only(const traza_filter *f);

void tz_json_color(tz_buf *b, const char *name, const char *given);

/* Handlers (one file per area). Each returns 0 or -1 (resp filled either way). */
int tz_api_traces(tz_req *r);
int tz_api_trace(tz_req *r);
int tz_api_results(tz_req *r);
int tz_api_events(tz_req *r, int csv);
int tz_api_density(tz_req *r);
int tz_api_timeline(tz_req *r);
int tz_api_stats(tz_req *r);
int tz_api_aggregate(tz_req *r);
int tz_api_anomaly(tz_req *r);
int tz_api_correlate(tz_req *r);
int tz_api_grammars(tz_req *r);
int tz_api_grammar(tz_req *r);
int tz_api_callstack(tz_req *r);
void tz_api_callstack_free(tz_api *api);

#endif
