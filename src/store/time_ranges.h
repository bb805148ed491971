/* Internal: the time ranges of a saved annotations result, as --during-like filters
 * read them. */
#ifndef TZ_TIME_RANGES_H
#define TZ_TIME_RANGES_H

#include <stddef.h>
#include <stdint.h>
#include "traza/store.h"

typedef struct tz_range {
    int64_t from, to; /* inclusive, from <= to */
} tz_range;

/* The ranges of the annotations of result `id` into *out (malloc'd, free()), sorted by
 * start and merged where they overlap or touch, so that they are disjoint; annotations
 * without a range are skipped. */
int tz_time_ranges(traza_trace *t, int64_t id, tz_range **out, size_t *n, traza_err *err);

#endif
