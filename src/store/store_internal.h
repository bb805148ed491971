/* Internal structures of the generic store layer. */
#ifndef TZ_STORE_INTERNAL_H
#define TZ_STORE_INTERNAL_H

#include "store/backend.h"
#include "util/util.h"

struct traza_workspace {
    traza_ctx *ctx;
    tz_backend *b;
    char *location;
};

struct traza_trace {
    traza_workspace *ws;
    tz_tstate *st;
    traza_trace_info info;
    tz_model model;
    tz_map producer_by_path; /* "a/b/c" -> id */
    tz_map type_by_name;
    int32_t *children;       /* children lists, CSR layout over producers */
    size_t *child_start;
    int writable;
};

/* Resolves a trace name or id to its catalogue info (caller clears). */
int tz_ws_resolve(traza_workspace *ws, const char *name_or_id, traza_trace_info *out, traza_err *err);

#endif
