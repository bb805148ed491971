/* Progress and cancellation of the analyses (see progress.h). */
#include "analysis/progress.h"

int tz_progress_step(traza_trace *t, const char *what, uint64_t done, uint64_t total, traza_err *err)
{
    if (!traza_progress(traza_workspace_ctx(traza_trace_workspace(t)), what, done, total))
        return 0;
    return traza_err_set(err, TRAZA_E_CANCELLED, "%s: cancelled after %llu of %llu", what, (unsigned long long)done,
                         (unsigned long long)total);
}

uint64_t tz_progress_time(int64_t t0, int64_t t1, int64_t ts)
{
    if (t1 <= t0 || ts <= t0)
        return 0;
    if (ts >= t1)
        return 10000;
    return (uint64_t)(((double)ts - (double)t0) / ((double)t1 - (double)t0) * 10000.0);
}
