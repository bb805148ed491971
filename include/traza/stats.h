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

/* The events that the statistics of a window count, one rule for the CLI, the server
 * and the reports: those whose interval [ts, end_ts] overlaps [from, to] (an event
 * without an end: ts in it), each with its duration clipped to the window. *q becomes
 * f (or no filter when NULL) under that rule, without offset and limit; *from and *to
 * the window (the trace's span where f gives no bound). */
void traza_stats_query(const traza_trace *t, const traza_filter *f, traza_filter *q, int64_t *from, int64_t *to);
/* The part of [ts, end_ts] inside [from, to], in ticks (0 when none). */
int64_t traza_stats_clip(int64_t ts, int64_t end_ts, int64_t from, int64_t to);

/* Counts events per type and per producer in the window of traza_stats_query. */
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
