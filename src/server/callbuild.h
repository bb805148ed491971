/* Internal to src/server: the call profiles /api/callstack answers from (callbuild.c):
 * the complete ones kept between requests, and the server's background build of the
 * one not complete yet. */
#ifndef TZ_CALLBUILD_H
#define TZ_CALLBUILD_H

#include "server/api_internal.h"
#include "traza/callprofile.h"

/* A call profile of one trace and filter, shared by the requests reading it: the
 * whole one, or the part the background build has read so far. Its funcs and edges
 * are not filled (each answer computes those of its window). */
struct tz_cp_entry {
    traza_callprofile cp;
    int64_t trace_id;
    char *key;          /* the filter's parameters ("" for none) */
    int refs;           /* the cache's or the build's (while there) and each reader's (under sh->mu) */
    int partial;        /* 1: only the calls that start up to covered_to */
    int64_t covered_to;
};

/* The request's parameters that choose the calls read, as one key ("" when none):
 * the view's filter (types, producers, subtree, set, result, categories, re.COLUMN,
 * nre.COLUMN). -1 after a 500 answer. */
int tz_cp_filter_key(tz_req *r, tz_buf *key);

/* The profile of trace trace_id (the request's "trace") under the filter of key, with
 * a reference for the caller: the complete one when it is kept or gets complete within
 * half of what is left of the request's budget; else the part built so far (partial,
 * *out NULL while nothing is), the background build started when it is not the one
 * under way. -1 after an error answer. */
int tz_cp_profile(tz_req *r, int64_t trace_id, const char *key, struct tz_cp_entry **out);
/* Drops the caller's reference (e may be NULL). */
void tz_cp_release(tz_shared *sh, struct tz_cp_entry *e);

#endif
