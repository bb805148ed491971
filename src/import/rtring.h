/* Internal: reading the ring of a bare-metal tracer runtime through its control block
 * (traza_rt_control, TZRC_* in traza_rt_format.h) from target memory — a live target
 * through a debugger, or a RAM image — into a traza runtime dump (.tzr). Blocks are
 * taken in sequence order, the block being written up to the write position (more of
 * it at the next poll); blocks the target overwrote before they were read are counted. */
#ifndef TZ_RTRING_H
#define TZ_RTRING_H

#include <stddef.h>
#include <stdint.h>
#include "traza/error.h"
#include "util/util.h"
#include "../../rt/include/traza_rt_format.h"

/* Reads n bytes of target memory at addr into buf: 0, or -1 with err set. */
typedef int (*tz_rtring_read_fn)(void *user, uint64_t addr, void *buf, size_t n, traza_err *err);

/* An RTOS task or interrupt handler that the records taken name (TASK, ISR and STATE
 * records), and its name once read from the target (tz_rtring_read_names). */
#define TZ_RTRING_NAME_MAX 32 /* name bytes at most (as the runtime's TASK chunks) */
enum { TZ_RTTASK_UNREAD, TZ_RTTASK_NAMED, TZ_RTTASK_UNNAMED };
typedef struct tz_rtring_task {
    uint32_t id;
    int isr;                  /* seen entering as an interrupt handler */
    int state;                /* TZ_RTTASK_* */
    char name[TZ_RTRING_NAME_MAX + 1];
} tz_rtring_task;

typedef struct tz_rtring {
    uint32_t w[TZRC_WORDS]; /* the control block */
    uint64_t next_seq;      /* the next block to take (pend: the part of it taken) */
    tz_buf pend;            /* that block: its header, then the event bytes taken */
    tz_buf chunks;          /* the finished BLOCK chunks */
    uint64_t nchunks;
    uint64_t lost_blocks;   /* overwritten by the target before they were read in full */
    uint32_t events, overflow; /* the target's counters at the latest poll */
    int started;            /* the target's runtime has begun recording */
    tz_rtring_task *tasks;  /* in order of first appearance */
    size_t ntasks, taskcap;
    size_t scanned;         /* event bytes of pend already looked at for tasks */
    int scan_off;           /* a record the scan cannot read: tasks are no longer looked for
                               (the importer says what is wrong with it) */
} tz_rtring;

/* Checks the control block (n bytes at `at` of the input `name`) and starts a reader. */
int tz_rtring_init(tz_rtring *r, const uint8_t *ctl, size_t n, const char *name, uint64_t at, traza_err *err);
/* Takes what the target wrote since the last poll; the target must not run meanwhile
 * (halted). *new_bytes (NULL-safe): the event bytes taken. 0 or -1. */
int tz_rtring_poll(tz_rtring *r, tz_rtring_read_fn rd, void *user, uint64_t *new_bytes, traza_err *err);
/* The whole dump of what was taken so far (exe: the program, for names; may be NULL)
 * into out, with a TASK chunk for each task named; the reader goes on polling after
 * it. 0 or -1 (out of memory). */
int tz_rtring_dump(tz_rtring *r, const char *exe, tz_buf *out, traza_err *err);
/* rtring_tasks.c: looks at the event bytes of pend not looked at yet for the tasks
 * they name (new ones are TZ_RTTASK_UNREAD). 0 or -1 (out of memory). */
int tz_rtring_scan_tasks(tz_rtring *r, traza_err *err);
/* Reads from the target (halted) the names of the tasks not read yet, through the
 * runtime's table of name pointers (`n` 32-bit pointers at `table`, indexed by task
 * id; table 0: none): at most TZ_RTRING_NAME_MAX bytes, NUL-terminated, printable.
 * A task whose name cannot be read so becomes TZ_RTTASK_UNNAMED (the importer calls it
 * "task N"). Returns the number of tasks named by this call. */
size_t tz_rtring_read_names(tz_rtring *r, tz_rtring_read_fn rd, void *user, uint64_t table, uint64_t n);
/* The tasks in each state (TZ_RTTASK_NAMED, TZ_RTTASK_UNNAMED). */
size_t tz_rtring_tasks_in(const tz_rtring *r, int state);
void tz_rtring_free(tz_rtring *r);
/* A RAM image (len bytes; path for errors) holding the control block and the ring ->
 * the dump into out (exe: the program, may be NULL). 0 or -1. */
int tz_rtram_to_dump(const uint8_t *data, size_t len, const char *path, const char *exe, tz_buf *out, traza_err *err);

#endif
