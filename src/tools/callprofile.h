/* Internal: what the call profile (traza/callprofile.h) and the one-pass call walk
 * (tools/callwalk.h) share: a stored state read as a call. */
#ifndef TZ_CALLPROFILE_H
#define TZ_CALLPROFILE_H

#include <stdint.h>
#include "traza/callprofile.h"

#define TZ_CP_MAX_DEPTH 4096 /* levels beyond are clamped */

/* A stored state as a call: its end (ts when it has none) and level (0 when unset,
 * clamped below TZ_CP_MAX_DEPTH). */
static inline traza_cp_call tz_cp_call_of(const traza_event *ev)
{
    traza_cp_call c = {ev->ts, (ev->has & TRAZA_HAS_END) ? ev->end_ts : ev->ts, ev->type, ev->producer,
                       (ev->has & TRAZA_HAS_LEVEL) && ev->level >= 0 ? ev->level : 0};
    if (c.level >= TZ_CP_MAX_DEPTH)
        c.level = TZ_CP_MAX_DEPTH - 1;
    return c;
}

#endif
