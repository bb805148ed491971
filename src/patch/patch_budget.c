/* The overhead budget of `traza patch` (traza/patch.h). */
#include "traza/patch.h"

#include <string.h>

int traza_patch_budget(const int64_t *calls, size_t n, double recorded_calls, double run_ns, double cost_ns,
                       double budget_pct, unsigned char *off, traza_patch_estimate *est, traza_err *err)
{
    double base = run_ns - recorded_calls * cost_ns;
    if (!(base > 0))
        return traza_err_set(err, TRAZA_E_USAGE,
                             "the recording lasted %.3f ms, not more than its %.0f traced calls x %g ns: "
                             "the cost per call is overestimated",
                             run_ns / 1e6, recorded_calls, cost_ns);
    memset(off, 0, n);
    double kept = 0;
    for (size_t i = 0; i < n; i++)
        kept += (double)calls[i];
    double limit = budget_pct / 100.0 * base / cost_ns; /* calls that may stay traced */
    while (kept > limit) {
        size_t hot = n;
        for (size_t i = 0; i < n; i++)
            if (!off[i] && calls[i] > 0 && (hot == n || calls[i] > calls[hot]))
                hot = i;
        if (hot == n)
            break;
        off[hot] = 1;
        kept -= (double)calls[hot];
    }
    est->base_ns = base;
    est->kept_calls = kept;
    est->overhead_pct = kept * cost_ns / base * 100;
    return 0;
}
