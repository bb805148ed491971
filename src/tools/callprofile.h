/* Internal: call-stack analysis of a trace's nested states (flat profile, call
 * graph, the states per producer). Used by `traza callstack` and `traza patch --from`. */
#ifndef TZ_CALLPROFILE_H
#define TZ_CALLPROFILE_H

#include <stdint.h>
#include "traza/store.h"
#include "traza/analysis.h"
#include "traza/result.h"

typedef struct tz_cp_call {
    int64_t ts, end;
    int32_t type, producer, level;
} tz_cp_call;

#define TZ_CP_MAX_DEPTH 4096 /* levels beyond are clamped */

/* A stored state as a call: its end (ts when it has none) and level (0 when unset,
 * clamped below TZ_CP_MAX_DEPTH). */
static inline tz_cp_call tz_cp_call_of(const traza_event *ev)
{
    tz_cp_call c = {ev->ts, (ev->has & TRAZA_HAS_END) ? ev->end_ts : ev->ts, ev->type, ev->producer,
                    (ev->has & TRAZA_HAS_LEVEL) && ev->level >= 0 ? ev->level : 0};
    if (c.level >= TZ_CP_MAX_DEPTH)
        c.level = TZ_CP_MAX_DEPTH - 1;
    return c;
}

typedef struct tz_cp_func {
    int32_t type;
    const char *name;
    int64_t calls;
    int64_t inclusive;  /* outermost activations only (recursion is not counted twice) */
    int64_t exclusive;
    int max_level;
} tz_cp_func;

typedef struct tz_cp_edge {
    int32_t caller, callee; /* event types; caller -1 = a root call */
    int64_t calls, time;
} tz_cp_edge;

typedef struct tz_callprofile {
    tz_cp_call *calls;      /* sorted by producer, ts, level */
    size_t ncalls;
    tz_cp_func *funcs;      /* sorted by exclusive time, descending */
    size_t nfuncs;
    tz_cp_edge *edges;
    size_t nedges;
    int64_t min_ts, max_ts;
    int max_level;
    traza_time_range *ranges;       /* built with during: its ranges (sorted, disjoint); else NULL */
    size_t nranges;
} tz_callprofile;

/* The calls are the states f selects (NULL: every state; f's offset, limit, order
 * and stop are not used; a filter whose categories leave out states is refused).
 * With f->during (saved annotations): funcs and edges count each call for its time
 * inside their ranges (tz_callprofile_ranges); a call overlapping a range has its
 * callers overlap it too, so the stacks stay whole.
 * Stoppable (stop and pi may be NULL; stage TRAZA_STAGE_READ) every 4096 calls read and
 * while the store looks for the next call: when stopped, the profile covers the calls
 * that started up to pi->covered_to (pi->partial = 1). */
int tz_callprofile_build(traza_trace *t, tz_callprofile *cp, const traza_filter *f, const traza_stop *stop, traza_partial *pi,
                         traza_err *err);
/* Replaces funcs and edges by those of the calls overlapping [from, to], each call
 * counted for its part inside the range (the whole trace's profile is the range
 * [min_ts, max_ts]); built with during, inside [from, to] and the ranges. -1 when out of memory (funcs and edges are then empty). */
int tz_callprofile_range(traza_trace *t, tz_callprofile *cp, int64_t from, int64_t to);
/* The same over sorted disjoint ranges (traza_result_time_ranges): a call overlapping one of them
 * counts for its time inside all of them. */
int tz_callprofile_ranges(traza_trace *t, tz_callprofile *cp, const traza_time_range *r, size_t nr);
/* The caller of each call into parent[0..ncalls-1]: the index of the call open one
 * level up on its producer when it starts, -1 for a root call (the nesting rule of
 * tz_callprofile_range). -1 when out of memory. */
int tz_callprofile_parents(const tz_callprofile *cp, int64_t *parent);
void tz_callprofile_free(tz_callprofile *cp);

#endif
