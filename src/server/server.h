/* Internal: the HTTP server of `traza serve` (libmicrohttpd) and its JSON API.
 *
 * Request handling is split from the transport: tz_api_handle() takes a method, a
 * decoded path and the query parameters and fills a response, so tests and the fuzz
 * harness drive the router without sockets. Every endpoint is bounded: limits are
 * clamped to the maxima below (doc/api.md). */
#ifndef TZ_SERVER_H
#define TZ_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include "traza/store.h"

/* Bounds of every request. */
enum {
    TZ_API_MAX_PARAMS = 48,        /* query parameters per request */
    TZ_API_MAX_VALUE = 4096,       /* bytes per parameter value */
    TZ_API_MAX_PATH = 1024,        /* bytes of the path */
    TZ_API_MAX_EVENTS = 1000,      /* events per page (/api/events) */
    TZ_API_MAX_CSV = 100000,       /* rows per CSV export */
    TZ_API_MAX_SLICES = 4096,      /* density slices */
    TZ_API_MAX_WIDTH = 4096,       /* timeline pixels */
    TZ_API_MAX_DETAIL = 20000,     /* timeline events before per-pixel summaries */
    TZ_API_MAX_AGG_SLICES = 200,   /* aggregation slices */
    TZ_API_MAX_POINTS = 5000,      /* anomaly series points */
    TZ_API_MAX_LIST = 500          /* ranked causes, cycles, rules, functions */
};

typedef struct tz_param {
    char *key;
    char *value;
} tz_param;

typedef struct tz_params {
    tz_param p[TZ_API_MAX_PARAMS];
    size_t n;
    int overflow;   /* too many parameters or a value too long: the request is refused */
    int malformed;  /* a bad percent escape or a control byte: the request is refused */
} tz_params;

void tz_params_init(tz_params *ps);
void tz_params_free(tz_params *ps);
/* Adds a copy; sets overflow past the bounds. Returns 0 or -1. */
int tz_params_add(tz_params *ps, const char *key, size_t klen, const char *value, size_t vlen);
/* Parses "a=1&b=%20x" (percent and '+' decoding). Returns 0 or -1 (malformed escape). */
int tz_params_parse(tz_params *ps, const char *query);
const char *tz_params_get(const tz_params *ps, const char *key);
/* Decodes %XX and '+' in place; -1 on a malformed escape or an encoded NUL. */
int tz_url_decode(char *s, int plus_is_space);

typedef struct tz_resp {
    int status;
    const char *ctype;
    char *body;            /* malloc'd unless is_static */
    size_t len;
    int is_static;
    char disposition[128]; /* Content-Disposition when not empty */
    const char *encoding;  /* Content-Encoding, or NULL */
} tz_resp;

void tz_resp_free(tz_resp *r);
/* A JSON answer from a string that outlives it (resp is overwritten, not freed). */
void tz_resp_static(tz_resp *r, int status, const char *json);

typedef struct tz_api tz_api;

/* The API over an open workspace (not owned). grammar_files: .tzg paths shown in the
 * grammar views besides the *.tzg files of the workspace directory. */
tz_api *tz_api_new(traza_workspace *ws, const char *const *grammar_files, size_t ngrammars, traza_err *err);
void tz_api_free(tz_api *api);
/* Another API over the same workspace, for another thread: its own library context,
 * workspace handle and trace cache (SQLite connections are never shared between
 * threads); the caches of derived data and the stop flag are shared with `base`,
 * which must be freed after all its clones. NULL with err on failure. */
tz_api *tz_api_clone(tz_api *base, traza_err *err);
/* The token of the served page (TZ_TOKEN_LEN hex digits): index.html carries it in
 * <meta name="traza-token">, and the transport accepts a POST only with it. */
#define TZ_TOKEN_LEN 64
void tz_api_set_token(tz_api *api, const char *token);
/* Runs the queued tool jobs (POST /api/run) until tz_api_tools_quit: the body of
 * the server's tool thread (api a clone, as the lanes' workers have). */
void tz_api_tool_worker(tz_api *api);
/* Stops the tool jobs: the queued ones never start, the running one is asked to
 * cancel; waits up to wait_ms for it to end. 0, or -1 when it still runs. */
int tz_api_tools_quit(tz_api *api, int wait_ms);
/* 1 when the path changes the workspace (POST only; the transport checks the
 * request's token and origin before it reaches tz_api_handle). */
int tz_api_changes(const char *path);

/* Stops every request of base and its clones, running or to come, at its next
 * budget check (the answer then is partial or 503). */
void tz_api_cancel(tz_api *api);

/* Who answers a path: inline (static files and errors, no store access), the view
 * workers (tables, density, timeline: short) or the analysis workers (the views that
 * scan: a slow one never holds up a view). */
typedef enum tz_lane { TZ_LANE_INLINE, TZ_LANE_VIEW, TZ_LANE_ANALYSIS } tz_lane;
tz_lane tz_api_lane(const char *path);
/* Handles one request. Always fills resp (an error body on 4xx/5xx). An api answers
 * one request at a time: concurrent requests each need their own (tz_api_clone). */
void tz_api_handle(tz_api *api, const char *method, const char *path, const tz_params *params, tz_resp *resp);

/* ---- the embedded front end (static.c; assets generated from web/dist) ---- */

typedef struct tz_asset {
    const char *path;      /* "/index.html", "/assets/index-abc.js" */
    const char *ctype;
    const unsigned char *data;
    size_t len;
} tz_asset;

/* The generated table (empty when the library is built without the front end). */
size_t tz_web_assets(const tz_asset **out);
/* Serves GET of a static path (path validated: no "..", no control bytes);
 * index.html gets <meta name="traza-token" content=token> when token is not empty. */
void tz_static_handle(const char *path, const char *token, tz_resp *resp);

/* ---- the HTTP transport ---- */

typedef struct tz_server tz_server;

/* How the server bounds its clients and its work. */
typedef struct tz_server_opts {
    int max_connections;     /* open connections in all */
    int max_per_client;      /* open connections per client address */
    int request_timeout;     /* seconds for a request (headers and body) to arrive */
    int idle_timeout;        /* seconds of silence before a connection is closed */
    size_t view_workers;     /* threads answering tables, density, timeline */
    size_t analysis_workers; /* threads answering the analyses (tz_api_lane) */
} tz_server_opts;

void tz_server_opts_default(tz_server_opts *o);
/* The server as an optional feature: built in (tz_built_serve, defined by mhd_api.c)
 * or, in a build without libmicrohttpd's development files, left out (server_missing.c,
 * whose tz_server_start fails saying so). */
extern const int tz_built_serve;
void tz_server_feature(traza_feature *out);
/* Starts listening on host:port (port 0 = an ephemeral port) with its own threads;
 * the workers answer with clones of api (which must outlive the server). opts NULL =
 * the defaults. */
tz_server *tz_server_start(tz_api *api, const char *host, int port, const tz_server_opts *opts, traza_err *err);
int tz_server_port(const tz_server *s);
/* Cancels the requests in progress (tz_api_cancel), answers the queued ones 503 and
 * closes the server once none is left. -1 when a request is still running after
 * wait_ms: the server is then left open (the process should exit). */
int tz_server_stop(tz_server *s, int wait_ms);

#endif
