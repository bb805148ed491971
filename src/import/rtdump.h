/* Internal: parsing of traza runtime dumps (.tzr, doc/formats/tzr.md) into per-thread
 * function-call intervals, independent of the store (the fuzz harness uses it alone). */
#ifndef TZ_RTDUMP_H
#define TZ_RTDUMP_H

#include <stddef.h>
#include <stdint.h>
#include "traza/error.h"
#include "traza/import.h"
#include "traza/store.h"
#include "../../rt/include/traza_rt_format.h"

/* A thread's operation, decoded. The thread keeps its operations encoded
 * (rtdump_ops.c), 2 to 6 bytes each against 17 decoded: a dump holds tens of
 * millions of them. */
typedef struct tz_rtd_op {
    uint64_t tsc;
    uint64_t a;    /* entry: function address (ELF vaddr); user: index in the thread's users[];
                    * TZ_RTD_SYNC: the number of frames; TZ_RTD_SYNC_FRAME: a function */
    uint8_t kind;  /* TZR_K_ENTRY, TZR_K_EXIT, TZR_K_USER, TZ_RTD_SYNC, TZ_RTD_SYNC_FRAME */
} tz_rtd_op;

/* A user event's id and value. */
typedef struct tz_rtd_user {
    uint64_t tsc, id;
    int64_t value;
} tz_rtd_user;

/* After lost or corrupt blocks, a block's stack snapshot realigns the nesting: a
 * TZ_RTD_SYNC op (a = the number of frames) followed by that many TZ_RTD_SYNC_FRAME
 * ops (a = a function open at that moment, outermost first). */
enum { TZ_RTD_SYNC = 16, TZ_RTD_SYNC_FRAME = 17 };

/* A span of time an RTOS task spent in one state: Running (from its switch in to the
 * next switch), or Ready / Blocked / Suspended (from a STATE record or its switch out
 * to its next state). */
enum { TZ_RTD_RUNNING = -1 }; /* else enum tzr_task_state */
typedef struct tz_rtd_run {
    uint64_t start, end;
    int state;
    int open_start, open_end; /* began before the window (no switch seen) / still in it at its end */
} tz_rtd_run;

typedef struct tz_rtd_thread {
    uint32_t tid;             /* thread id; RTOS task: the task id */
    uint64_t events, lost, overwritten, overflow, first_seq;
    int has_stats;
    uint64_t last_seq;
    int has_blocks;
    uint64_t first_tsc;
    uint64_t *open;          /* functions open at the first block (outermost first) */
    size_t nopen;
    uint8_t *ops;             /* the operations, encoded (tz_rtd_ops_put; read with a tz_rtd_cursor) */
    size_t nops, ops_len, ops_cap;
    uint64_t ops_tsc, ops_func; /* the last operation's tick and entry address (what the next is coded against) */
    tz_rtd_user *users;       /* the user events' ids and values */
    size_t nusers, ucap;
    size_t nsync;             /* ops that are TZ_RTD_SYNC or TZ_RTD_SYNC_FRAME (not events) */
    /* RTOS tasks only */
    char *name;               /* from the TASK chunk; NULL if none */
    uint32_t owner;           /* the thread whose buffer holds the task's events */
    int has_open;             /* the open functions are known (first TASK record seen) */
    int isr;                  /* an interrupt handler (ISR records, TASK chunk flag) */
    uint64_t entries;         /* the TASK chunk's count: switches in, or handler entries */
    int pending;              /* the state it takes at its switch out (STATE records while it runs) */
    tz_rtd_run *runs;
    size_t nruns, runcap;
} tz_rtd_thread;

typedef struct tz_rtdump {
    unsigned version, arch, ptr_size, mode;
    uint32_t pid;
    uint32_t clock;           /* enum tzr_clock (INFO chunk) */
    uint64_t load_bias;
    char *exe;
    int has_calib;
    uint64_t tsc_a, ns_a, tsc_b, ns_b;
    double ns_per_tick;       /* of the calibration */
    tz_rtd_thread *threads;
    size_t nthreads;
    tz_rtd_thread *tasks;     /* RTOS tasks (TASK records), replayed like threads */
    size_t ntasks;
    uint64_t task_switches;   /* TASK records that are switches (not a block's start) */
    int truncated;            /* stream dump without its end (program killed): read up to the last whole chunk */
    uint64_t truncated_bytes; /* bytes of a partial last chunk that were dropped */
    uint64_t bad_blocks;      /* corrupt stretches skipped (a block failing its checksum, up to the next whole block) */
} tz_rtdump;

/* Imports a whole dump held in memory into w (names from the program it records, or
 * $TRAZA_RT_EXE); `name` is for error messages. Corrupt blocks are skipped and
 * reported (skipped.bad_blocks), a failure when opts says strict. 0 or -1. */
int tz_rtdump_import(traza_ctx *ctx, traza_writer *w, const uint8_t *data, size_t len, const char *name,
                     const traza_import_opts *opts, traza_err *err);
/* Parses a whole dump held in memory; `name` is for error messages. */
int tz_rtdump_parse(tz_rtdump *d, const uint8_t *data, size_t len, const char *name, traza_err *err);
void tz_rtdump_free(tz_rtdump *d);
/* The events the dump holds (entries, exits, user events, task switches). */
uint64_t tz_rtdump_events_read(const tz_rtdump *d);

/* One call interval of a thread: the function at `addr`, nesting level (0 = outermost),
 * start and end in ticks; `open_start`/`open_end` when the start was before the
 * recording window or the end after it. */
typedef struct tz_rtd_call {
    uint64_t addr;
    uint64_t start, end;
    int level;
    int open_start, open_end;
} tz_rtd_call;

/* Nesting a replay follows at most; deeper entries are refused. */
#define TZ_RTD_MAX_OPEN 4096

/* Appends an operation to t's encoded operations. 0, or -1 out of memory. */
int tz_rtd_ops_put(tz_rtd_thread *t, uint8_t kind, uint64_t tsc, uint64_t a);

/* Reads a thread's operations in order. */
typedef struct tz_rtd_cursor {
    const uint8_t *p, *end;
    uint64_t tsc, func;
} tz_rtd_cursor;
void tz_rtd_cursor_init(tz_rtd_cursor *c, const tz_rtd_thread *t);

/* The codes of the encoding (rtdump_ops.c). */
enum { TZ_RTD_OP_ENTRY, TZ_RTD_OP_EXIT, TZ_RTD_OP_USER, TZ_RTD_OP_SYNC, TZ_RTD_OP_SYNC_FRAME };

/* A varint of the encoding: tz_rtd_ops_put writes whole operations only, so one that
 * starts before the end finishes before it. */
static inline uint64_t tz_rtd_uleb(const uint8_t **pp)
{
    const uint8_t *p = *pp;
    uint64_t v = *p++;
    if (v >= 0x80) {
        v &= 0x7f;
        for (unsigned s = 7; s < 64; s += 7) {
            uint8_t b = *p++;
            v |= (uint64_t)(b & 0x7f) << s;
            if (!(b & 0x80))
                break;
        }
    }
    *pp = p;
    return v;
}

/* The next operation in *o: 1, or 0 after the last. */
static inline __attribute__((always_inline)) int tz_rtd_cursor_next(tz_rtd_cursor *c, tz_rtd_op *o)
{
    static const uint8_t kind_of[8] = {TZR_K_ENTRY, TZR_K_EXIT, TZR_K_USER, TZ_RTD_SYNC, TZ_RTD_SYNC_FRAME,
                                       TZ_RTD_SYNC_FRAME, TZ_RTD_SYNC_FRAME, TZ_RTD_SYNC_FRAME};
    if (c->p >= c->end)
        return 0;
    uint64_t h = tz_rtd_uleb(&c->p), a = 0;
    unsigned code = (unsigned)(h >> 1 & 7);
    uint64_t d = h & 1 ? tz_rtd_uleb(&c->p) : h >> 4;
    c->tsc += (uint64_t)((int64_t)(d >> 1) ^ -(int64_t)(d & 1));
    if (code != TZ_RTD_OP_EXIT) {
        a = tz_rtd_uleb(&c->p);
        if (code == TZ_RTD_OP_ENTRY)
            a = c->func += (uint64_t)((int64_t)(a >> 1) ^ -(int64_t)(a & 1));
    }
    *o = (tz_rtd_op){c->tsc, a, kind_of[code]};
    return 1;
}

/* The operation of index i (a walk from the first: for tests). 0, or -1 past the last. */
int tz_rtd_op_at(const tz_rtd_thread *t, size_t i, tz_rtd_op *o);

/* A thread's calls and user events in the order they start (rtdump_replay.c). */
typedef struct tz_rtd_replay {
    const tz_rtd_thread *t;
    uint32_t *ends;     /* by push order: the frame's duration (bit 31: its exit was seen, else
                         * the end is the gap's or the window's); TZ_RTD_LONG: in `far` */
    struct tz_rtd_far { size_t frame; uint64_t end; } *far; /* the ends of long or backward frames, by frame */
    size_t nframes, nfar, far_cap, far_pos;
    uint64_t *stack;    /* the addresses of the open frames */
    uint64_t *snap;     /* the frames a snapshot (TZ_RTD_SYNC) lists */
    size_t depth, next_frame;
    tz_rtd_cursor cur;
    const uint64_t *q_addr;   /* frames to push before the next op */
    size_t q_pos, q_n;
    uint64_t q_tsc;
} tz_rtd_replay;
#define TZ_RTD_LONG 0x7fffffffu

/* Walks the thread's operations once to find every call's end (exits without an
 * entry in the window are counted in *unmatched). 0, or -1 (calls nested deeper than
 * TZ_RTD_MAX_OPEN, out of memory). */
int tz_rtd_replay_open(tz_rtd_replay *r, const tz_rtd_thread *t, uint64_t *unmatched, traza_err *err);
/* The next item in start order: 1 with a call in *call or 2 with a user event in
 * *user, 0 after the last. */
int tz_rtd_replay_next(tz_rtd_replay *r, tz_rtd_call *call, const tz_rtd_user **user);
void tz_rtd_replay_close(tz_rtd_replay *r);
/* Ticks -> nanoseconds since the first calibration point (ticks as-is if uncalibrated). */
int64_t tz_rtdump_ns(const tz_rtdump *d, uint64_t tsc);

#endif
