/* traza — statistics and density of a stored trace. */
#ifndef TRAZA_STATS_H
#define TRAZA_STATS_H

#include <stdint.h>
#include "traza/store.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

typedef struct traza_stats_row {
    int32_t id;          /* event type or producer id */
    int64_t count;       /* events */
    int64_t duration;    /* summed duration of its intervals (state/link/variable), clipped to the window */
} traza_stats_row;

typedef struct traza_stats {
    traza_stats_row *types;      /* one per event type of the trace, by id */
    size_t ntypes;
    traza_stats_row *producers;  /* one per producer, by id */
    size_t nproducers;
    int64_t total;
    int64_t from, to;            /* the window used (the trace span when none given) */
} traza_stats;

/* Counts events per type and per producer. With a time window, intervals that
 * overlap it are counted and their durations clipped to it. */
int traza_stats_compute(traza_trace *t, const traza_filter *f, traza_stats *out, traza_err *err);
void traza_stats_free(traza_stats *s);

/* Event counts in `nslices` equal slices of [from, to] (the filter's window, else
 * the trace span), by timestamp. counts must hold nslices values. */
int traza_density(traza_trace *t, const traza_filter *f, size_t nslices, uint64_t *counts, int64_t *from, int64_t *to,
                  traza_err *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
