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

typedef struct tz_rtring {
    uint32_t w[TZRC_WORDS]; /* the control block */
    uint64_t next_seq;      /* the next block to take (pend: the part of it taken) */
    tz_buf pend;            /* that block: its header, then the event bytes taken */
    tz_buf chunks;          /* the finished BLOCK chunks */
    uint64_t nchunks;
    uint64_t lost_blocks;   /* overwritten by the target before they were read in full */
    uint32_t events, overflow; /* the target's counters at the latest poll */
    int started;            /* the target's runtime has begun recording */
} tz_rtring;

/* Checks the control block (n bytes at `at` of the input `name`) and starts a reader. */
int tz_rtring_init(tz_rtring *r, const uint8_t *ctl, size_t n, const char *name, uint64_t at, traza_err *err);
/* Takes what the target wrote since the last poll; the target must not run meanwhile
 * (halted). *new_bytes (NULL-safe): the event bytes taken. 0 or -1. */
int tz_rtring_poll(tz_rtring *r, tz_rtring_read_fn rd, void *user, uint64_t *new_bytes, traza_err *err);
/* The whole dump of what was taken (exe: the program, for names; may be NULL) into
 * out. 0 or -1 (out of memory). */
int tz_rtring_dump(tz_rtring *r, const char *exe, tz_buf *out, traza_err *err);
void tz_rtring_free(tz_rtring *r);
/* A RAM image (len bytes; path for errors) holding the control block and the ring ->
 * the dump into out (exe: the program, may be NULL). 0 or -1. */
int tz_rtram_to_dump(const uint8_t *data, size_t len, const char *path, const char *exe, tz_buf *out, traza_err *err);

#endif
