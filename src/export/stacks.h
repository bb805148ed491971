/* The call stacks of a trace's call-stack model (traza/callprofile.h), summed: a
 * stack per distinct sequence of frames (event types, outermost first; -1 for a level
 * the trace lacks), weighted by the self (exclusive) time of its last frame over its
 * calls, in ticks of the trace's time unit. Stacks of every producer are merged. The
 * folded and pprof exporters write these. */
#ifndef TZ_EXPORT_STACKS_H
#define TZ_EXPORT_STACKS_H

#include "traza/store.h"
#include <stddef.h>
#include <stdint.h>

typedef struct tz_stack {
    int32_t *frames; /* outermost first */
    size_t depth;
    int64_t weight;
} tz_stack;

/* In the order first seen. 0 or -1 (err set). */
int tz_stacks_build(traza_trace *t, tz_stack **out, size_t *n, traza_err *err);
void tz_stacks_free(tz_stack *s, size_t n);

#endif
