/* traza — the two result-producing filters of the foundation (FrameSoC's filter
 * and producer activity filter), as library calls; also registered as tools. */
#ifndef TRAZA_FILTERS_H
#define TRAZA_FILTERS_H

#include "traza/result.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

/* Saves the events matching `f` (or, with exclude, every event NOT matching it) as an
 * event set; with as_producers, the producers of those events as a producer set.
 * Returns the result id, -1 on error; *count gets the number of members. */
int64_t traza_filter_save(traza_trace *t, const traza_filter *f, int exclude, int as_producers,
                          const traza_result_meta *m, int64_t *count, traza_err *err);

/* Saves the producers that have at least one event overlapping [from, to] (or, with
 * idle, the producers that have none) as a producer set. */
int64_t traza_producer_activity_save(traza_trace *t, int64_t from, int64_t to, int idle,
                                     const traza_result_meta *m, int64_t *count, traza_err *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
