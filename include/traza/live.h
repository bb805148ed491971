/* traza — recording a bare-metal traza runtime's ring from a running target through a
 * GDB server (QEMU's gdbstub, OpenOCD, pyOCD, J-Link): the runtime's control block is
 * found by its symbol in the program; every poll interrupts the target, reads what it
 * wrote since the last poll and lets it run again (doc/tracer-live.md). */
#ifndef TRAZA_LIVE_H
#define TRAZA_LIVE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "traza/error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)
/* Experimental API: it may change between minor versions; its declarations are seen
 * only with TRAZA_EXPERIMENTAL_API defined (doc/architecture.md, "Stable and
 * experimental API"). */
#ifdef TRAZA_EXPERIMENTAL_API

typedef struct traza_live_stats {
    uint64_t polls, bytes;    /* polls made, event bytes taken */
    uint64_t events, lost_blocks, overflow; /* the target's counters at the last poll */
    int target_exited;        /* the target ended (what it wrote after the last poll is not read) */
    uint64_t tasks_named;     /* RTOS tasks and handlers whose name was read from the target */
    uint64_t tasks_unnamed;   /* ... whose name could not be (they stay "task N") */
    uint64_t dumps;           /* dumps taken by on_dump during the recording */
} traza_live_stats;

/* A dump of what was taken so far, during the recording (traza_live_opts.on_dump):
 * 0, or -1 to end the recording with err. The dump is valid during the call only. */
typedef int (*traza_live_dump_fn)(void *user, const unsigned char *dump, size_t len, const traza_live_stats *st,
                                  traza_err *err);

typedef struct traza_live_opts {
    const char *host, *port;  /* the GDB server */
    const char *program;      /* the ELF file the target runs */
    int interval_ms;          /* between polls */
    int duration_ms;          /* stop after this long; 0: until the target exits or *stop */
    const volatile sig_atomic_t *stop; /* set (by a signal handler) to end; NULL-safe */
    int timeout_ms;           /* per reply of the GDB server */
    /* Every refresh_ms (0: never), when events or task names arrived since the last
     * one, the dump of everything taken so far goes to on_dump, while the target runs
     * (the time it takes is taken from the wait before the next poll). */
    int refresh_ms;
    traza_live_dump_fn on_dump;
    void *user;
} traza_live_opts;

/* Records until the duration ends, *stop is set or the target exits; *dump (malloc'd,
 * *len bytes) is a runtime dump (.tzr) of what was taken, for traza_import. The names
 * of RTOS tasks are read from the target (the runtime's table traza_rt_task_names)
 * when a task first appears in the records. 0 or -1. */
int traza_live_record(const traza_live_opts *o, unsigned char **dump, size_t *len, traza_live_stats *st,
                      traza_err *err);

#endif /* TRAZA_EXPERIMENTAL_API */
#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
