/* The overhead budget of `traza patch`: which functions to leave untraced so that the
 * tracing of the rest costs at most a given share of the program's own run time. */
#ifndef TZ_PATCH_BUDGET_H
#define TZ_PATCH_BUDGET_H

#include <stddef.h>
#include <stdint.h>
#include "traza/error.h"

typedef struct tz_budget {
    double base_ns;      /* the run time without tracing: run_ns - recorded_calls x cost_ns */
    double kept_calls;   /* calls of the functions left traced */
    double overhead_pct; /* kept_calls x cost_ns / base_ns x 100 */
} tz_budget;

/* A recording of run_ns holding recorded_calls traced calls of cost_ns each ran
 * base_ns = run_ns - recorded_calls x cost_ns without them; the overhead of tracing
 * `calls` is calls x cost_ns / base_ns (relative to the untraced run, never to the
 * traced one). calls[i] are the recorded calls of candidate function i; off[i] is
 * set to 1 for the functions to leave untraced, the most called first, until the
 * overhead is at most budget_pct, and to 0 for the others. -1 (nothing set) when
 * base_ns is not positive: the cost per call is more than the recording allows. */
int tz_patch_budget(const int64_t *calls, size_t n, double recorded_calls, double run_ns, double cost_ns,
                    double budget_pct, unsigned char *off, tz_budget *est, traza_err *err);

#endif
