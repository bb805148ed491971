/* Workspaces: choosing the backend from the location, and the catalogue operations. */
#include "store/store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *traza_workspace_default(char *buf, size_t size)
{
    const char *env = getenv("TRAZA_WORKSPACE");
    int n;
    if (env && *env)
        n = snprintf(buf, size, "%s", env);
    else if ((env = getenv("XDG_DATA_HOME")) && *env)
        n = snprintf(buf, size, "%s/traza", env);
    else if ((env = getenv("HOME")) && *env)
        n = snprintf(buf, size, "%s/.local/share/traza", env);
    else
        return NULL;
    return (n < 0 || (size_t)n >= size) ? NULL : buf;
}

static int is_pg_uri(const char *location)
{
    return strncmp(location, "postgresql://", 13) == 0 || strncmp(location, "postgres://", 11) == 0;
}

traza_workspace *traza_workspace_open(traza_ctx *ctx, const char *location, traza_err *err)
{
    if (!location || !*location) {
        traza_err_set(err, TRAZA_E_USAGE, "no workspace location given");
        return NULL;
    }
    traza_workspace *ws = calloc(1, sizeof *ws);
    if (!ws || !(ws->location = tz_strdup(location))) {
        free(ws);
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory opening a workspace");
        return NULL;
    }
    ws->ctx = ctx;
    if (is_pg_uri(location)) {
        ws->b = tz_pg_open(ctx, location, err);
    } else {
        ws->b = tz_sqlite_open(ctx, location, err);
    }
    if (!ws->b) {
        free(ws->location);
        free(ws);
        return NULL;
    }
    return ws;
}

int traza_workspace_exists(const char *location)
{
    if (!location || !*location)
        return 0;
    return is_pg_uri(location) || tz_sqlite_exists(location);
}

void traza_workspace_close(traza_workspace *ws)
{
    if (!ws)
        return;
    ws->b->ops->close(ws->b);
    free(ws->location);
    free(ws);
}

const char *traza_workspace_backend(const traza_workspace *ws) { return ws->b->ops->name; }
traza_ctx *traza_workspace_ctx(traza_workspace *ws) { return ws->ctx; }

int traza_workspace_list(traza_workspace *ws, traza_trace_info **out, size_t *n, traza_err *err)
{
    return ws->b->ops->list(ws->b, out, n, err);
}

int tz_trace_info_copy(traza_trace_info *dst, const traza_trace_info *src)
{
    memset(dst, 0, sizeof *dst);
    *dst = *src;
    dst->name = tz_strdup(src->name);
    dst->alias = src->alias ? tz_strdup(src->alias) : NULL;
    dst->format = src->format ? tz_strdup(src->format) : NULL;
    dst->sources = src->nsources ? calloc(src->nsources, sizeof(char *)) : NULL;
    dst->params = src->nparams ? calloc(src->nparams, sizeof(traza_kv)) : NULL;
    /* the counts of arrays that could not be had are 0, for traza_trace_info_clear */
    if (!dst->sources)
        dst->nsources = 0;
    if (!dst->params)
        dst->nparams = 0;
    int bad = !dst->name || (src->alias && !dst->alias) || (src->format && !dst->format) ||
              (src->nsources && !dst->sources) || (src->nparams && !dst->params);
    for (size_t i = 0; !bad && i < src->nsources; i++)
        bad = !(dst->sources[i] = tz_strdup(src->sources[i]));
    for (size_t i = 0; !bad && i < src->nparams; i++)
        bad = !(dst->params[i].key = tz_strdup(src->params[i].key)) ||
              !(dst->params[i].value = tz_strdup(src->params[i].value));
    if (bad) {
        traza_trace_info_clear(dst);
        return -1;
    }
    return 0;
}

int tz_ws_resolve(traza_workspace *ws, const char *name_or_id, traza_trace_info *out, traza_err *err)
{
    traza_trace_info *all;
    size_t n;
    if (traza_workspace_list(ws, &all, &n, err) < 0)
        return -1;
    int64_t id = -1;
    if (tz_parse_i64(name_or_id, strlen(name_or_id), &id) < 0)
        id = -1;
    const traza_trace_info *hit = NULL;
    for (size_t i = 0; i < n && !hit; i++)
        if (strcmp(all[i].name, name_or_id) == 0)
            hit = &all[i];
    for (size_t i = 0; i < n && !hit; i++)
        if (all[i].id == id)
            hit = &all[i];
    int rc = 0;
    if (!hit) {
        tz_buf b;
        tz_buf_init(&b);
        for (size_t i = 0; i < n && i < 10; i++)
            tz_buf_printf(&b, "%s%s", i ? ", " : "", all[i].name);
        rc = traza_err_set(err, TRAZA_E_NOTFOUND, "no trace named '%s' in the workspace (%s%s)", name_or_id,
                           n ? "it has: " : "it is empty", n ? (b.s ? b.s : "") : "");
        tz_buf_free(&b);
    } else if (tz_trace_info_copy(out, hit) < 0) {
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    traza_trace_info_array_free(all, n);
    return rc;
}

int traza_workspace_find(traza_workspace *ws, const char *name_or_id, traza_trace_info *out, traza_err *err)
{
    return tz_ws_resolve(ws, name_or_id, out, err);
}

int traza_workspace_remove(traza_workspace *ws, const char *name_or_id, traza_err *err)
{
    traza_trace_info info;
    if (tz_ws_resolve(ws, name_or_id, &info, err) < 0)
        return -1;
    int rc = ws->b->ops->remove(ws->b, info.id, err);
    traza_trace_info_clear(&info);
    return rc;
}

int traza_workspace_rename(traza_workspace *ws, const char *name_or_id, const char *new_name, traza_err *err)
{
    if (!new_name || !*new_name)
        return traza_err_set(err, TRAZA_E_USAGE, "a trace name cannot be empty");
    traza_trace_info info;
    if (tz_ws_resolve(ws, name_or_id, &info, err) < 0)
        return -1;
    int taken = ws->b->ops->name_taken(ws->b, new_name, err);
    int rc = taken < 0 ? -1
             : taken ? traza_err_set(err, TRAZA_E_EXISTS, "a trace named '%s' already exists", new_name)
                     : ws->b->ops->rename(ws->b, info.id, new_name, err);
    traza_trace_info_clear(&info);
    return rc;
}

const char *traza_workspace_location(const traza_workspace *ws) { return ws->location; }
