/* Perfetto's clocks, as its trace processor reads them: a packet's timestamp is in
 * the clock its timestamp_clock_id names (or its sequence's default clock, from
 * TracePacketDefaults), and is turned into the trace clock (ClockSnapshot's
 * primary_trace_clock, BOOTTIME by default) through the latest ClockSnapshot that
 * read both clocks at one instant. Clock ids 64 to 127 belong to their packet
 * sequence; an incremental clock's timestamps are deltas from the previous one on
 * that clock, starting from its snapshot value; unit_multiplier_ns scales a clock's
 * units to nanoseconds. */
#ifndef TRAZA_IMPORT_PERFETTO_CLOCK_H
#define TRAZA_IMPORT_PERFETTO_CLOCK_H

#include "perfetto_trace.pb-c.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tz_pf_clock tz_pf_clock;

typedef struct tz_pf_clocks {
    tz_pf_clock *clocks;
    size_t nclocks, capclocks;
    uint32_t trace_clock; /* builtin id */
    int trace_clock_set;  /* fixed by the first snapshot */
    struct tz_pf_seq_default *defaults;
    size_t ndefaults, capdefaults;
} tz_pf_clocks;

void tz_pf_clocks_init(tz_pf_clocks *c);
void tz_pf_clocks_free(tz_pf_clocks *c);

/* Reads a snapshot taken on sequence seq. 0, or -1 when out of memory. */
int tz_pf_clocks_snapshot(tz_pf_clocks *c, uint32_t seq, const Perfetto__Protos__ClockSnapshot *s);

/* Sets the default clock of sequence seq. 0, or -1 when out of memory. */
int tz_pf_clocks_default(tz_pf_clocks *c, uint32_t seq, uint32_t clock_id);

/* The trace-clock time of a packet timestamp ts on sequence seq (clock_id: the
 * packet's own, when has_clock). 1 and *out; 0 when no snapshot relates its clock to
 * the trace clock (*why says which clock); -1 when the result leaves int64. */
int tz_pf_clocks_convert(tz_pf_clocks *c, uint32_t seq, int has_clock, uint32_t clock_id, uint64_t ts, int64_t *out,
                         uint32_t *why);

#endif
