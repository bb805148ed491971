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
/* A deep copy of src into dst; -1 (dst cleared) when memory runs out. */
int tz_trace_info_copy(traza_trace_info *dst, const traza_trace_info *src);
int tz_ws_resolve(traza_workspace *ws, const char *name_or_id, traza_trace_info *out, traza_err *err);

/* The backend form of a filter (query.c); free the three arrays with tz_bfilter_free. */
int tz_make_bfilter(traza_trace *t, const traza_filter *f, tz_bfilter *bf, int32_t **types_out, int32_t **defs_out,
                    struct tz_bcond **conds_out, traza_err *err);
void tz_bfilter_free(int32_t *types, int32_t *defs, struct tz_bcond *conds);

#endif
