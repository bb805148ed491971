/* traza — the call profile of a call-stack trace: its nested states (a state's level
 * is its call depth) as calls, with per function the calls, inclusive and exclusive
 * time, and the caller->callee edges, over the whole trace, a time range or saved
 * ranges. */
#ifndef TRAZA_CALLPROFILE_H
#define TRAZA_CALLPROFILE_H

#include <stddef.h>
#include <stdint.h>
#include "traza/ctx.h"
#include "traza/error.h"
#include "traza/store.h"
#include "traza/result.h"
#include "traza/analysis.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)
/* Experimental API: it may change between minor versions; its declarations are seen
 * only with TRAZA_EXPERIMENTAL_API defined (doc/architecture.md, "Stable and
 * experimental API"). */
#ifdef TRAZA_EXPERIMENTAL_API

/* A stored state as a call: end is ts when the state has none; level is 0 when unset,
 * and levels of 4096 and more are read as 4095. */
typedef struct traza_cp_call {
    int64_t ts, end;
    int32_t type, producer, level;
} traza_cp_call;

typedef struct traza_cp_func {
    int32_t type;
    const char *name;
    int64_t calls;
    int64_t inclusive;  /* outermost activations only (recursion is not counted twice) */
    int64_t exclusive;
    int max_level;
} traza_cp_func;

typedef struct traza_cp_edge {
    int32_t caller, callee; /* event types; caller -1 = a root call */
    int64_t calls, time;
} traza_cp_edge;

typedef struct traza_callprofile {
    traza_cp_call *calls;   /* sorted by producer, ts, level */
    size_t ncalls;
    traza_cp_func *funcs;   /* sorted by exclusive time, descending */
    size_t nfuncs;
    traza_cp_edge *edges;
    size_t nedges;
    int64_t min_ts, max_ts;
    int max_level;
    traza_time_range *ranges;       /* built with during: its ranges (sorted, disjoint); else NULL */
    size_t nranges;
} traza_callprofile;

/* The calls are the states f selects (NULL: every state; f's offset, limit, order
 * and stop are not used; a filter whose categories leave out states is refused).
 * With f->during (saved annotations): funcs and edges count each call for its time
 * inside their ranges (traza_callprofile_ranges); a call overlapping a range has its
 * callers overlap it too, so the stacks stay whole.
 * Stoppable (stop and pi may be NULL; stage TRAZA_STAGE_READ) every 4096 calls read and
 * while the store looks for the next call: when stopped, the profile covers the calls
 * that started up to pi->covered_to (pi->partial = 1). */
int traza_callprofile_build(traza_trace *t, traza_callprofile *cp, const traza_filter *f, const traza_stop *stop,
                            traza_partial *pi, traza_err *err);
/* Sets min_ts (the first call's start), max_ts (the latest end) and max_level from
 * the calls, as traza_callprofile_build does: for a caller that merged calls built
 * apart (the server builds a big trace's profile a piece at a time). */
void traza_callprofile_bounds(traza_callprofile *cp);
/* Replaces funcs and edges by those of the calls overlapping [from, to], each call
 * counted for its part inside the range (the whole trace's profile is the range
 * [min_ts, max_ts]); built with during, inside [from, to] and the ranges. -1 when out
 * of memory (funcs and edges are then empty). */
int traza_callprofile_range(traza_trace *t, traza_callprofile *cp, int64_t from, int64_t to);
/* The same over sorted disjoint ranges (traza_result_time_ranges): a call overlapping
 * one of them counts for its time inside all of them. */
int traza_callprofile_ranges(traza_trace *t, traza_callprofile *cp, const traza_time_range *r, size_t nr);
/* The caller of each call into parent[0..ncalls-1]: the index of the call open one
 * level up on its producer when it starts, -1 for a root call (the nesting rule of
 * traza_callprofile_range). -1 when out of memory. */
int traza_callprofile_parents(const traza_callprofile *cp, int64_t *parent);
void traza_callprofile_free(traza_callprofile *cp);

#endif /* TRAZA_EXPERIMENTAL_API */
#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
