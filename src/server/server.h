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

typedef struct tz_api tz_api;

/* The API over an open workspace (not owned). grammar_files: .tzg paths shown in the
 * grammar views besides the *.tzg files of the workspace directory. */
tz_api *tz_api_new(traza_workspace *ws, const char *const *grammar_files, size_t ngrammars, traza_err *err);
void tz_api_free(tz_api *api);
/* Handles one request. Always fills resp (an error body on 4xx/5xx). */
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
/* Serves GET of a static path (path validated: no "..", no control bytes). */
void tz_static_handle(const char *path, tz_resp *resp);

/* ---- the HTTP transport ---- */

typedef struct tz_server tz_server;

/* Starts listening on host:port (port 0 = an ephemeral port) in its own thread. */
tz_server *tz_server_start(tz_api *api, const char *host, int port, traza_err *err);
int tz_server_port(const tz_server *s);
void tz_server_stop(tz_server *s);

#endif
