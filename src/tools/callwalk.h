/* Internal: the calls of a trace's nested states walked in one pass, in memory
 * bounded by the producers' stack depths rather than by the number of calls (what
 * traza_callprofile_build keeps whole). The nesting rule is traza_callprofile_parents':
 * a call's caller is the call open one level up on its producer when it starts. */
#ifndef TZ_CALLWALK_H
#define TZ_CALLWALK_H

#include <stdint.h>
#include "tools/callprofile.h"

/* A call while it is open: child_time is the sum of the durations of the calls it
 * made (its self time is end - ts - child_time once it is closed); user is the
 * caller's to fill in open. */
typedef struct tz_cw_frame {
    traza_cp_call c;
    int64_t child_time;
    int64_t user;
    int present;
} tz_cw_frame;

typedef struct tz_callwalk_fns {
    /* A call starts; parent is its caller's frame (NULL for a root call), whose
     * child_time already counts this call. */
    int (*open)(void *ctx, tz_cw_frame *f, const tz_cw_frame *parent, traza_err *err);
    /* Every call the frame's call made has been seen. */
    int (*close)(void *ctx, const tz_cw_frame *f, traza_err *err);
} tz_callwalk_fns;

/* Calls open in the order of traza_callprofile_build's calls within each producer
 * (producers interleaved by time); a callback's -1 ends the walk with its error. */
int tz_callwalk(traza_trace *t, const tz_callwalk_fns *fns, void *ctx, traza_err *err);

#endif
