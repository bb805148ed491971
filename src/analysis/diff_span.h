/* The span a diff divides counts by, shared by the row and structure diffs. */
#ifndef TZ_DIFF_SPAN_H
#define TZ_DIFF_SPAN_H

#include "traza/store.h"

/* A trace's span in seconds (one tick when it has a single timestamp). */
double tz_diff_span_seconds(const traza_trace_info *info);

#endif
