/* Internal: what traza's Perfetto exporter and importer agree on beyond Perfetto's
 * schema (src/export/perfetto_trace.proto). */
#ifndef TZ_PERFETTO_NAMES_H
#define TZ_PERFETTO_NAMES_H

/* The debug annotation that carries an event's cpu field. */
#define TZ_PF_CPU_ANNOTATION "traza.cpu"
/* The debug annotation that carries a variable's duration in ns (a Perfetto counter
 * value holds until the next one; a traza variable has its own end). */
#define TZ_PF_DUR_ANNOTATION "traza.dur"
/* The uuid of lane k > 0 of producer p: a child track of p's, named like p, that holds
 * the states overlapping without nesting in those of p's own track. */
#define TZ_PF_LANE_BIT (1ull << 62)
#define TZ_PF_LANE_UUID(k, p) (TZ_PF_LANE_BIT | (uint64_t)(k) << 32 | ((uint64_t)(p) + 1))
/* The one packet sequence traza writes. */
#define TZ_PF_SEQUENCE_ID 1u
/* Producer types that become Perfetto process and thread tracks, and back. */
#define TZ_PF_PROCESS_TYPE "Process"
#define TZ_PF_THREAD_TYPE "Thread"
/* The producer type of any other track. */
#define TZ_PF_TRACK_TYPE "Track"

#endif
