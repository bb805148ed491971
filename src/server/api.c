/* The JSON API: parameters, errors, the trace cache, common filters, the router. */
#include "server/api_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tz_params_init(tz_params *ps)
{
    memset(ps, 0, sizeof *ps);
}

void tz_params_free(tz_params *ps)
{
    for (size_t i = 0; i < ps->n; i++) {
        free(ps->p[i].key);
        free(ps->p[i].value);
    }
    ps->n = 0;
}

int tz_params_add(tz_params *ps, const char *key, size_t klen, const char *value, size_t vlen)
{
    for (size_t i = 0; i < klen; i++)
        if ((unsigned char)key[i] < 0x20)
            ps->malformed = 1;
    for (size_t i = 0; value && i < vlen; i++)
        if ((unsigned char)value[i] < 0x09 || ((unsigned char)value[i] > 0x0d && (unsigned char)value[i] < 0x20))
            ps->malformed = 1;
    if (ps->n >= TZ_API_MAX_PARAMS || vlen > TZ_API_MAX_VALUE || klen > 256) {
        ps->overflow = 1;
        return 0;
    }
    char *k = tz_strndup(key, klen), *v = tz_strndup(value ? value : "", value ? vlen : 0);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    ps->p[ps->n].key = k;
    ps->p[ps->n].value = v;
    ps->n++;
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int tz_url_decode(char *s, int plus_is_space)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        if (*p == '%') {
            int h = p[1] ? hexval((unsigned char)p[1]) : -1;
            int l = h >= 0 && p[2] ? hexval((unsigned char)p[2]) : -1;
            if (h < 0 || l < 0 || (h == 0 && l == 0))
                return -1;
            *o++ = (char)(h * 16 + l);
            p += 2;
        } else if (*p == '+' && plus_is_space) {
            *o++ = ' ';
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
    return 0;
}

int tz_params_parse(tz_params *ps, const char *query)
{
    if (!query)
        return 0;
    const char *p = query;
    while (*p) {
        const char *amp = strchr(p, '&');
        size_t len = amp ? (size_t)(amp - p) : strlen(p);
        if (len > 0) {
            const char *eq = memchr(p, '=', len);
            size_t kl = eq ? (size_t)(eq - p) : len;
            char *k = tz_strndup(p, kl);
            char *v = eq ? tz_strndup(eq + 1, len - kl - 1) : tz_strdup("");
            if (!k || !v) {
                free(k);
                free(v);
                return -1;
            }
            int bad = tz_url_decode(k, 1) < 0 || tz_url_decode(v, 1) < 0;
            int rc = bad ? -1 : tz_params_add(ps, k, strlen(k), v, strlen(v));
            free(k);
            free(v);
            if (rc < 0)
                return -1;
        }
        if (!amp)
            break;
        p = amp + 1;
    }
    return 0;
}

const char *tz_params_get(const tz_params *ps, const char *key)
{
    for (size_t i = 0; i < ps->n; i++)
        if (strcmp(ps->p[i].key, key) == 0)
            return ps->p[i].value;
    return NULL;
}

void tz_resp_free(tz_resp *r)
{
    if (!r->is_static)
        free(r->body);
    r->body = NULL;
    r->len = 0;
}

/* ---- answers ---- */

void tz_resp_static(tz_resp *r, int status, const char *json)
{
    memset(r, 0, sizeof *r);
    r->status = status;
    r->ctype = "application/json";
    r->body = (char *)json;
    r->len = strlen(json);
    r->is_static = 1;
}

static void set_body(tz_resp *resp, int status, const char *ctype, char *body, size_t len)
{
    tz_resp_free(resp);
    resp->status = status;
    resp->ctype = ctype;
    resp->body = body;
    resp->len = len;
    resp->is_static = 0;
}

static void fail_v(tz_resp *resp, int status, const char *fmt, va_list ap)
{
    char msg[1200];
    vsnprintf(msg, sizeof msg, fmt, ap);
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_puts(&b, "{\"error\":");
    tz_json_str(&b, msg);
    tz_buf_printf(&b, ",\"status\":%d}\n", status);
    size_t len = b.len;
    char *s = tz_buf_take(&b);
    if (!s) {
        tz_resp_free(resp);
        tz_resp_static(resp, 500, "{\"error\":\"out of memory\",\"status\":500}\n");
        return;
    }
    set_body(resp, status, "application/json", s, len);
}

static void fail_resp(tz_resp *resp, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail_resp(tz_resp *resp, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(resp, status, fmt, ap);
    va_end(ap);
}

int tz_fail(tz_req *r, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(r->resp, status, fmt, ap);
    va_end(ap);
    return -1;
}

int tz_fail_err(tz_req *r, const traza_err *err)
{
    int st = 500;
    switch (err->code) {
    case TRAZA_E_USAGE: case TRAZA_E_PARSE: case TRAZA_E_EXISTS: st = 400; break;
    case TRAZA_E_NOTFOUND: st = 404; break;
    case TRAZA_E_UNSUPPORTED: st = 422; break;
    case TRAZA_E_CANCELLED:
        return tz_fail(r, 503, "the request went over its time budget (budget=%lld ms): %s", (long long)r->budget_ms,
                       err->msg);
    default: break;
    }
    return tz_fail(r, st, "%s", err->msg[0] ? err->msg : traza_errcode_name(err->code));
}

int tz_send_json(tz_req *r, tz_buf *b)
{
    if (b->oom) {
        tz_buf_free(b);
        return tz_fail(r, 500, "out of memory");
    }
    tz_buf_putc(b, '\n');
    size_t len = b->len;
    char *s = tz_buf_take(b);
    if (!s)
        return tz_fail(r, 500, "out of memory");
    set_body(r->resp, 200, "application/json", s, len);
    return 0;
}

/* ---- parameters ---- */

const char *tz_arg_str(tz_req *r, const char *key)
{
    return tz_params_get(r->params, key);
}

static int arg_i64(tz_req *r, const char *key, int64_t min, int64_t max, int64_t def, int64_t *out, int clamp)
{
    *out = def;
    const char *s = tz_params_get(r->params, key);
    if (!s)
        return 0;
    int64_t v;
    if (!*s || tz_parse_i64(s, strlen(s), &v) < 0)
        return tz_fail(r, 400, "parameter '%s': expected an integer, got '%.64s'", key, s);
    if (v < min)
        return tz_fail(r, 400, "parameter '%s': %lld is below the minimum %lld", key, (long long)v, (long long)min);
    if (v > max) {
        if (!clamp)
            return tz_fail(r, 400, "parameter '%s': %lld is above the maximum %lld", key, (long long)v, (long long)max);
        v = max;
    }
    *out = v;
    return 1;
}

int tz_arg_i64(tz_req *r, const char *key, int64_t min, int64_t max, int64_t def, int64_t *out)
{
    return arg_i64(r, key, min, max, def, out, 0);
}

int tz_arg_clamp(tz_req *r, const char *key, int64_t min, int64_t max, int64_t def, int64_t *out)
{
    return arg_i64(r, key, min, max, def, out, 1);
}

int tz_arg_double(tz_req *r, const char *key, double min, double max, double def, double *out)
{
    *out = def;
    const char *s = tz_params_get(r->params, key);
    if (!s)
        return 0;
    double v;
    if (!*s || tz_parse_double(s, strlen(s), &v) < 0 || !isfinite(v))
        return tz_fail(r, 400, "parameter '%s': expected a number, got '%.64s'", key, s);
    if (v < min || v > max)
        return tz_fail(r, 400, "parameter '%s': %g is outside [%g, %g]", key, v, min, max);
    *out = v;
    return 1;
}

/* ---- traces ---- */

traza_trace *tz_req_trace(tz_req *r)
{
    return tz_req_trace_of(r, "trace");
}

/* The trace named `name` in its current version, opened for reading; with `cache`, taken
 * from the request's cache of open traces or opened into it. A trace replaced in the store
 * has a new id, so a cache keyed by id never serves the old version; one replaced between
 * the look-up and the open is looked up again. NULL after an answer. */
static traza_trace *open_current(tz_req *r, const char *name, bool cache)
{
    tz_api *api = r->api;
    traza_err err;
    traza_err_clear(&err);
    for (int tries = 0;; tries++) {
        traza_trace_info info;
        memset(&info, 0, sizeof info);
        if (traza_workspace_find(api->ws, name, &info, &err) < 0)
            return tz_fail_err(r, &err), NULL;
        int64_t id = info.id;
        traza_trace_info_clear(&info);
        size_t victim = 0;
        if (cache) {
            api->clock++;
            for (size_t i = 0; i < TZ_API_TRACE_CACHE; i++) {
                if (api->cache[i].t && api->cache[i].id == id) {
                    api->cache[i].used = api->clock;
                    return api->cache[i].t;
                }
                if (!api->cache[i].t || api->cache[i].used < api->cache[victim].used)
                    victim = i;
                if (!api->cache[i].t)
                    break;
            }
        }
        char idtext[32];
        snprintf(idtext, sizeof idtext, "%lld", (long long)id);
        traza_trace *t = traza_trace_open(api->ws, idtext, TRAZA_OPEN_READ, &err);
        if (!t) {
            if (tries < 3 && err.code == TRAZA_E_NOTFOUND)
                continue;
            return tz_fail_err(r, &err), NULL;
        }
        if (cache) {
            if (api->cache[victim].t)
                traza_trace_close(api->cache[victim].t);
            api->cache[victim].t = t;
            api->cache[victim].id = id;
            api->cache[victim].used = api->clock;
        }
        return t;
    }
}

traza_trace *tz_req_trace_open(tz_req *r, const char *name)
{
    return open_current(r, name, false);
}

traza_trace *tz_req_trace_of(tz_req *r, const char *key)
{
    const char *name = tz_arg_str(r, key);
    if (!name || !*name)
        return tz_fail(r, 400, "missing parameter '%s'", key), NULL;
    return open_current(r, name, true);
}

/* "1,2,3" -> ids (each checked by `valid`). */
static int parse_ids(tz_req *r, const char *key, int32_t **out, size_t *n, size_t max)
{
    *out = NULL;
    *n = 0;
    const char *s = tz_arg_str(r, key);
    if (!s || !*s)
        return 0;
    size_t cap = 0;
    const char *p = s;
    while (*p) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        int64_t v;
        if (len == 0 || tz_parse_i64(p, len, &v) < 0 || v < 0 || v > INT32_MAX) {
            free(*out);
            *out = NULL;
            return tz_fail(r, 400, "parameter '%s': expected a comma-separated list of ids", key);
        }
        if (*n >= max) {
            free(*out);
            *out = NULL;
            return tz_fail(r, 400, "parameter '%s': more than %zu ids", key, max);
        }
        if (TZ_GROW(*out, cap, *n + 1) < 0)
            return tz_fail(r, 500, "out of memory");
        (*out)[(*n)++] = (int32_t)v;
        if (!c)
            break;
        p = c + 1;
    }
    return 1;
}

/* types and producers (ids), subtree, categories (names), set (id), result
 * (name or id of an event or producer set) and during (name or id of annotations
 * whose time ranges keep the events overlapping them), resolved by the store. */
static int filter_resolve(tz_req *r, traza_trace *t, tz_req_filter *rf)
{
    traza_filter_spec spec = {.producer_sets = 1, .result = tz_arg_str(r, "result"), .during = tz_arg_str(r, "during")};
    int32_t *types = NULL, *producers = NULL;
    int64_t subtree = 0;
    int rc = -1;
    if (parse_ids(r, "types", &types, &spec.ntype_ids, 4096) < 0 ||
        parse_ids(r, "producers", &producers, &spec.nproducer_ids, 65536) < 0 ||
        (producers && tz_arg_i64(r, "subtree", 0, 1, 0, &subtree) < 0) ||
        tz_arg_i64(r, "set", 1, INT64_MAX, 0, &rf->f.event_set) < 0)
        goto out;
    spec.type_ids = types;
    spec.producer_ids = producers;
    spec.subtree = (int)subtree;
    /* a 255-byte list holds at most 128 names */
    char buf[256];
    const char *cats[128];
    const char *list = tz_arg_str(r, "categories");
    if (list && *list) {
        snprintf(buf, sizeof buf, "%s", list);
        for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && spec.ncategories < 128; tok = strtok_r(NULL, ",", &save))
            cats[spec.ncategories++] = tok;
        spec.categories = cats;
    }
    if (traza_filter_resolve(t, &spec, &rf->f, &rf->types, &rf->producers, &r->err) < 0)
        tz_fail_err(r, &r->err);
    else
        rc = 0;
out:
    free(types);
    free(producers);
    return rc;
}

int tz_req_filter_parse(tz_req *r, traza_trace *t, tz_req_filter *rf)
{
    memset(rf, 0, sizeof *rf);
    traza_filter_init(&rf->f);
    int64_t now = tz_now_ns();
    /* the work that cannot answer partially (a page of events) gets as long again as
     * the budget, and at least a second: a small budget is for the counts, which
     * answer with an estimate */
    int64_t left = r->deadline > now ? r->deadline - now : 0;
    rf->hard_deadline = r->deadline + (left > 1000000000 ? left : 1000000000);
    tz_stop_at(&rf->stop, &rf->hard_deadline);
    rf->f.stop = &rf->stop;
    int64_t v;
    int k;
    if ((k = tz_arg_i64(r, "from", INT64_MIN, INT64_MAX, 0, &v)) < 0) return -1;
    if (k) { rf->f.has_from = 1; rf->f.from = v; }
    if ((k = tz_arg_i64(r, "to", INT64_MIN, INT64_MAX, 0, &v)) < 0) return -1;
    if (k) { rf->f.has_to = 1; rf->f.to = v; }
    if (rf->f.has_from && rf->f.has_to && rf->f.to < rf->f.from)
        return tz_fail(r, 400, "the window ends (to=%lld) before it starts (from=%lld)", (long long)rf->f.to, (long long)rf->f.from);
    if (tz_arg_i64(r, "overlap", 0, 1, 0, &v) < 0) return -1;
    rf->f.overlap = (int)v;
    if (filter_resolve(r, t, rf) < 0)
        return -1;
    size_t nre = 0;
    for (size_t i = 0; i < r->params->n; i++) {
        const char *key = r->params->p[i].key;
        int neg = strncmp(key, "nre.", 4) == 0;
        if (!neg && strncmp(key, "re.", 3) != 0)
            continue;
        const char *col = key + (neg ? 4 : 3);
        if (!*col || !*r->params->p[i].value)
            continue;
        if (nre >= TZ_API_MAX_REGEX) { tz_req_filter_free(rf); return tz_fail(r, 400, "more than %d regular expressions", TZ_API_MAX_REGEX); }
        rf->re[nre].column = col;
        rf->re[nre].pattern = r->params->p[i].value;
        rf->re[nre].negate = neg;
        nre++;
    }
    if (nre) {
        rf->f.regexes = rf->re;
        rf->f.nregexes = nre;
    }
    return 0;
}

void tz_req_filter_free(tz_req_filter *rf)
{
    free(rf->types);
    free(rf->producers);
    rf->types = NULL;
    rf->producers = NULL;
}

void tz_json_tick(const tz_req *r, tz_buf *b, int64_t v)
{
    tz_buf_printf(b, r->ticks_str ? "\"%lld\"" : "%lld", (long long)v);
}

void tz_json_color(tz_buf *b, const char *name, const char *given)
{
    char c[8];
    if (given && given[0] == '#' && strlen(given) == 7) {
        tz_json_str(b, given);
        return;
    }
    traza_color_for(name ? name : "", c);
    tz_json_str(b, c);
}

/* ---- the API object and the router ---- */

static tz_shared *shared_new(const char *const *grammar_files, size_t ngrammars)
{
    tz_shared *sh = calloc(1, sizeof *sh);
    if (!sh)
        return NULL;
    if (pthread_mutex_init(&sh->mu, NULL) != 0) {
        free(sh);
        return NULL;
    }
    atomic_init(&sh->stopping, 0);
    if (!(sh->runs = tz_runs_new()))
        goto fail;
    if (ngrammars && !(sh->grammars = calloc(ngrammars, sizeof *sh->grammars)))
        goto fail;
    for (size_t i = 0; i < ngrammars; i++) {
        if (!(sh->grammars[i] = tz_strdup(grammar_files[i])))
            goto fail;
        sh->ngrammars++;
    }
    return sh;
fail:
    tz_runs_free(sh->runs);
    for (size_t i = 0; i < sh->ngrammars; i++)
        free(sh->grammars[i]);
    free(sh->grammars);
    pthread_mutex_destroy(&sh->mu);
    free(sh);
    return NULL;
}

static void shared_free(tz_shared *sh)
{
    for (size_t i = 0; i < TZ_TINDEX_CACHE; i++)
        tz_tindex_free(sh->tix[i]);
    tz_api_callstack_free(sh);
    tz_runs_free(sh->runs);
    for (size_t i = 0; i < sh->ngrammars; i++)
        free(sh->grammars[i]);
    free(sh->grammars);
    pthread_mutex_destroy(&sh->mu);
    free(sh);
}

tz_api *tz_api_new(traza_workspace *ws, const char *const *grammar_files, size_t ngrammars, traza_err *err)
{
    tz_api *api = calloc(1, sizeof *api);
    tz_shared *sh = api ? shared_new(grammar_files, ngrammars) : NULL;
    if (!sh) {
        free(api);
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        return NULL;
    }
    api->ws = ws;
    api->sh = sh;
    api->owns_sh = 1;
    sh->reg = traza_ctx_registry(traza_workspace_ctx(ws));
    api->grammars = sh->grammars;
    api->ngrammars = sh->ngrammars;
    return api;
}

tz_api *tz_api_clone(tz_api *base, traza_err *err)
{
    tz_api *api = calloc(1, sizeof *api);
    if (!api) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        return NULL;
    }
    api->own_ctx = traza_ctx_new(err);
    api->own_ws = api->own_ctx ? traza_workspace_open(api->own_ctx, traza_workspace_location(base->ws), err) : NULL;
    if (!api->own_ws) {
        traza_ctx_free(api->own_ctx);
        free(api);
        return NULL;
    }
    api->ws = api->own_ws;
    api->sh = base->sh;
    api->grammars = base->grammars;
    api->ngrammars = base->ngrammars;
    return api;
}

void tz_api_set_token(tz_api *api, const char *token)
{
    snprintf(api->sh->token, sizeof api->sh->token, "%s", token ? token : "");
}

void tz_api_cancel(tz_api *api)
{
    atomic_store(&api->sh->stopping, 1);
}

void tz_api_free(tz_api *api)
{
    if (!api)
        return;
    for (size_t i = 0; i < TZ_API_TRACE_CACHE; i++)
        if (api->cache[i].t)
            traza_trace_close(api->cache[i].t);
    if (api->owns_sh)
        shared_free(api->sh);
    traza_workspace_close(api->own_ws);
    traza_ctx_free(api->own_ctx);
    free(api);
}

static int path_ok(const char *path)
{
    if (!path || path[0] != '/' || strlen(path) > TZ_API_MAX_PATH)
        return 0;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '\\')
            return 0;
    if (strstr(path, "/..") || strstr(path, "//") || strstr(path, "/./"))
        return 0;
    size_t n = strlen(path);
    if (n >= 2 && strcmp(path + n - 2, "/.") == 0)
        return 0;
    return 1;
}

typedef struct route {
    const char *path;
    int (*fn)(tz_req *r);
    int changes; /* changes the workspace: POST only */
} route;

static int events_json(tz_req *r) { return tz_api_events(r, 0); }
static int events_csv(tz_req *r) { return tz_api_events(r, 1); }
static int version(tz_req *r)
{
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_puts(&b, "{\"name\":\"traza\",\"version\":");
    tz_json_str(&b, traza_version());
    tz_buf_puts(&b, ",\"limits\":{");
    tz_buf_printf(&b, "\"events\":%d,\"csv\":%d,\"slices\":%d,\"width\":%d,\"detail\":%d,\"agg_slices\":%d,"
                      "\"points\":%d,\"list\":%d,\"params\":%d,\"value\":%d}}",
                  TZ_API_MAX_EVENTS, TZ_API_MAX_CSV, TZ_API_MAX_SLICES, TZ_API_MAX_WIDTH, TZ_API_MAX_DETAIL,
                  TZ_API_MAX_AGG_SLICES, TZ_API_MAX_POINTS, TZ_API_MAX_LIST, TZ_API_MAX_PARAMS, TZ_API_MAX_VALUE);
    return tz_send_json(r, &b);
}

static const route routes[] = {
    {"/api/version", version, 0},
    {"/api/traces", tz_api_traces, 0},
    {"/api/trace", tz_api_trace, 0},
    {"/api/results", tz_api_results, 0},
    {"/api/event", tz_api_event, 0},
    {"/api/events", events_json, 0},
    {"/api/events.csv", events_csv, 0},
    {"/api/density", tz_api_density, 0},
    {"/api/timeline", tz_api_timeline, 0},
    {"/api/stats", tz_api_stats, 0},
    {"/api/aggregate", tz_api_aggregate, 0},
    {"/api/anomaly", tz_api_anomaly, 0},
    {"/api/correlate", tz_api_correlate, 0},
    {"/api/grammars", tz_api_grammars, 0},
    {"/api/grammar", tz_api_grammar, 0},
    {"/api/callstack", tz_api_callstack, 0},
    {"/api/diff", tz_api_diff, 0},
    {"/api/tools", tz_api_tools, 0},
    {"/api/job", tz_api_job, 0},
    {"/api/run", tz_api_run, 1},
    {"/api/job/cancel", tz_api_job_cancel, 1},
    {"/api/results/delete", tz_api_result_delete, 1},
};

int tz_api_changes(const char *path)
{
    for (size_t i = 0; path && i < sizeof routes / sizeof routes[0]; i++)
        if (strcmp(path, routes[i].path) == 0)
            return routes[i].changes;
    return 0;
}

tz_lane tz_api_lane(const char *path)
{
    static const char *const analyses[] = {"/api/stats", "/api/aggregate", "/api/anomaly", "/api/correlate",
                                           "/api/callstack", "/api/grammar", "/api/events.csv", "/api/diff"};
    if (!path || strncmp(path, "/api/", 5) != 0)
        return TZ_LANE_INLINE;
    for (size_t i = 0; i < sizeof analyses / sizeof analyses[0]; i++)
        if (strcmp(path, analyses[i]) == 0)
            return TZ_LANE_ANALYSIS;
    return TZ_LANE_VIEW;
}

void tz_api_handle(tz_api *api, const char *method, const char *path, const tz_params *params, tz_resp *resp)
{
    memset(resp, 0, sizeof *resp);
    resp->status = 500;
    int post = method && strcmp(method, "POST") == 0;
    if (!method || (!post && strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)) {
        fail_resp(resp, 405, "only GET, HEAD and POST are served");
        return;
    }
    if (post != tz_api_changes(path)) {
        fail_resp(resp, 405, post ? "%.200s does not change anything: GET it" : "%.200s changes the workspace: POST only", path);
        return;
    }
    if (!path_ok(path)) {
        fail_resp(resp, 400, "malformed or forbidden path");
        return;
    }
    if (params->malformed) {
        fail_resp(resp, 400, "malformed query: a bad percent escape or a control character");
        return;
    }
    if (params->overflow) {
        fail_resp(resp, 400, "too many parameters (at most %d) or a value longer than %d bytes", TZ_API_MAX_PARAMS,
                  TZ_API_MAX_VALUE);
        return;
    }
    if (strncmp(path, "/api/", 5) != 0 && strcmp(path, "/api") != 0) {
        tz_static_handle(path, api->sh->token, resp);
        return;
    }
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        if (strcmp(path, routes[i].path) == 0) {
            tz_req r;
            memset(&r, 0, sizeof r);
            r.api = api;
            r.params = params;
            r.resp = resp;
            traza_err_clear(&r.err);
            int64_t budget;
            r.deadline = INT64_MAX;
            if (tz_arg_clamp(&r, "budget", TZ_API_MIN_BUDGET, TZ_API_MAX_BUDGET, TZ_API_DEF_BUDGET, &budget) < 0)
                return;
            r.deadline = tz_now_ns() + budget * 1000000;
            r.budget_ms = budget;
            const char *ticks = tz_arg_str(&r, "ticks");
            if (ticks && strcmp(ticks, "string") != 0 && strcmp(ticks, "number") != 0) {
                fail_resp(resp, 400, "parameter 'ticks': number or string, not '%.32s'", ticks);
                return;
            }
            r.ticks_str = ticks && strcmp(ticks, "string") == 0;
            if (atomic_load(&api->sh->stopping))
                fail_resp(resp, 503, "the server is stopping");
            else if (routes[i].fn(&r) < 0 && resp->status < 400)
                fail_resp(resp, 500, "internal error");
            tz_req_release(&r);
            return;
        }
    }
    fail_resp(resp, 404, "no endpoint %.200s (see doc/api.md)", path);
}
