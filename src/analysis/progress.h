/* Progress and cancellation of the analyses: each reports how far it got on the
 * context of the trace's workspace (traza_progress, which rate-limits the reports),
 * and stops when the context's stop (traza_ctx_set_stop) asks it to. */
#ifndef TZ_ANALYSIS_PROGRESS_H
#define TZ_ANALYSIS_PROGRESS_H

#include "traza/ctx.h"
#include "traza/store.h"

/* Reports `done` of `total` units of `what`; -1 with TRAZA_E_CANCELLED in err when
 * the context's stop asks to stop (the caller then frees what it built and saves nothing). */
int tz_progress_step(traza_trace *t, const char *what, uint64_t done, uint64_t total, traza_err *err);

/* The part of [t0, t1] below ts, in ten-thousandths (for scans in time order). */
uint64_t tz_progress_time(int64_t t0, int64_t t1, int64_t ts);

#endif
