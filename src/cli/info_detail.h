/* The lists of `traza info`: event types and producers with their event counts. */
#ifndef TZ_CLI_INFO_DETAIL_H
#define TZ_CLI_INFO_DETAIL_H

#include "traza/traza.h"
#include "util/util.h"

/* Appends the event types (by count, most first) and the producer tree (each with its
 * path and its own events) of t, counted in st: as text lines, or as JSON members
 * ("type_list", "more_types", "producer_list", "more_producers") to put inside an
 * object. Each list stops after a screenful, saying how many are left, unless `all`.
 * Returns 0, or -1 when out of memory. */
int cli_info_details(tz_buf *b, traza_trace *t, const traza_stats *st, int all, int json);

#endif
