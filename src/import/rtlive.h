/* Internal: traza_live_record (include/traza/live.h) into a growable buffer, over the
 * GDB remote protocol of util/gdb_remote.h. */
#ifndef TZ_RTLIVE_H
#define TZ_RTLIVE_H

#include "traza/live.h"
#include "util/util.h"

/* Records until the duration ends, *stop is set or the target exits; the runtime dump
 * of what was taken into out. 0 or -1. */
int tz_rtlive_record(const traza_live_opts *o, tz_buf *out, traza_live_stats *st, traza_err *err);

#endif
