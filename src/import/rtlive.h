/* Internal: recording a bare-metal traza runtime's ring from a running target through
 * a GDB server (util/rsp.h): the control block is found by its symbol in the program;
 * every poll interrupts the target, reads what it wrote since the last poll and lets
 * it run again (QEMU's gdbstub reads memory only while the target is stopped). */
#ifndef TZ_RTLIVE_H
#define TZ_RTLIVE_H

#include <signal.h>
#include <stdint.h>
#include "traza/error.h"
#include "util/util.h"

typedef struct tz_rtlive_opts {
    const char *host, *port;
    const char *program;      /* the ELF file the target runs */
    int interval_ms;          /* between polls */
    int duration_ms;          /* stop after this long; 0: until the target exits or *stop */
    const volatile sig_atomic_t *stop; /* set (by a signal handler) to end; NULL-safe */
    int timeout_ms;           /* per reply of the GDB server */
} tz_rtlive_opts;

typedef struct tz_rtlive_stats {
    uint64_t polls, bytes;    /* polls made, event bytes taken */
    uint64_t events, lost_blocks, overflow; /* the target's counters at the last poll */
    int target_exited;        /* the target ended (what it wrote after the last poll is not read) */
} tz_rtlive_stats;

/* Records until the duration ends, *stop is set or the target exits; the runtime dump
 * of what was taken into out. 0 or -1. */
int tz_rtlive_record(const tz_rtlive_opts *o, tz_buf *out, tz_rtlive_stats *st, traza_err *err);

#endif
