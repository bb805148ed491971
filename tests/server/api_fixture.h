/* The fixture of the server tests: a workspace in a temporary directory holding a
 * generated trace "gen", and the JSON API over it. */
#ifndef TU_API_FIXTURE_H
#define TU_API_FIXTURE_H

#include "testutil.h"
#include "server/server.h"
#include "traza/gen.h"

typedef struct tu_api_ws {
    char *dir;
    traza_ctx *ctx;
    traza_workspace *ws;
    tz_api *api;
} tu_api_ws;

static inline void tu_api_ws_open(tu_api_ws *w, int64_t events, int params)
{
    w->dir = tu_tmpdir();
    traza_err err;
    w->ctx = traza_ctx_new(&err);
    assert_non_null(w->ctx);
    w->ws = traza_workspace_open(w->ctx, w->dir, &err);
    assert_non_null(w->ws);
    traza_gen_opts o;
    traza_gen_opts_init(&o);
    o.events = events;
    o.params = params;
    traza_trace_info info;
    memset(&info, 0, sizeof info);
    assert_int_equal(traza_gen_store(w->ws, "gen", &o, &info, &err), 0);
    traza_trace_info_clear(&info);
    w->api = tz_api_new(w->ws, NULL, 0, &err);
    assert_non_null(w->api);
}

static inline void tu_api_ws_close(tu_api_ws *w)
{
    tz_api_free(w->api);
    traza_workspace_close(w->ws);
    traza_ctx_free(w->ctx);
    tu_rmdir(w->dir);
}

#endif
