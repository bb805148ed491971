/* Internal interface between the freestanding core (core.c), the platform glue
 * (linux.c, baremetal.c) and the per-architecture hooks (arch/<arch>/). */
#ifndef TZ_RT_INTERNAL_H
#define TZ_RT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "traza_rt_format.h"
#include "arch.h"

#define TZ_API __attribute__((visibility("default")))

#define TZ_NOINSTR __attribute__((no_instrument_function))
#ifndef TZ_SHADOW_MAX
#define TZ_SHADOW_MAX 256 /* shadow stack depth per thread */
#endif
#ifndef TZ_STACK_SNAPSHOT
#define TZ_STACK_SNAPSHOT 64 /* innermost open functions written at a block start */
#endif
/* A block never holds more than this many bytes of events beyond the reserve check. */
#define TZ_RESERVE 48

/* event and block counters: 32 bits on a microcontroller (smaller code) */
#ifdef TZ_RING_ONLY
typedef uint32_t tz_count;
#else
typedef uint64_t tz_count;
#endif

typedef struct tz_shadow {
    uintptr_t ret;   /* the original return address */
    uintptr_t slot;  /* where it was on the stack (x86_64: address of the slot) */
    uintptr_t func;  /* the function (runtime address) */
} tz_shadow;

#ifndef TZ_QCAP
#define TZ_QCAP 128 /* records a signal handler can queue while its thread writes one */
#endif
typedef struct tz_qrec {
    uint64_t tsc;
    uint64_t a;      /* entry: the function; user: the id */
    int64_t v;       /* user: the value */
    uint32_t kind;   /* TZR_K_* */
} tz_qrec;

typedef struct tz_thread {
    struct tz_thread *next;       /* list of all threads (for the final dump) */
    uint32_t tid;
    uint32_t depth;
    /* Signals on the same thread (not in TZ_RING_ONLY): `busy` is set while a record
     * is being written; a signal handler's hooks that find it set append their records
     * to `q` (qn claimed atomically) and the interrupted writer appends them after its
     * own. The hooks' fast paths test both words at once (one 8-byte compare). */
    volatile uint32_t busy;
    volatile uint32_t qn;
    uint8_t *mem;                 /* nblocks * block_size bytes */
    size_t nblocks, block_size;
    size_t cur;                   /* current block index */
    uint8_t *p, *end;             /* write position and limit (end - TZ_RESERVE) */
    uint64_t last_tsc;
    uintptr_t last_func;          /* runtime address of the block's previous entry (starts at load_bias) */
    tz_count seq, first_seq;
    tz_count events, lost, overwritten, overflow;
#ifndef TZ_RING_ONLY
    tz_shadow base;               /* stack[-1] for the assembly fast paths: slot = UINTPTR_MAX */
#endif
    tz_shadow stack[TZ_SHADOW_MAX];
#ifdef TZ_TASKS
    uint32_t task;                /* RTOS firmware: the running task's id + 1 (0: no task yet) */
    uint32_t in_isr;              /* ... and that "task" is an interrupt handler */
#endif
#ifndef TZ_RING_ONLY
    uint32_t qopen;               /* queued entries whose exits are still to come */
    tz_qrec q[TZ_QCAP];
#endif
} tz_thread;

typedef struct tz_rt {
    int mode;                     /* TZR_MODE_RING or TZR_MODE_STREAM */
    volatile int enabled;
    uintptr_t load_bias;
    size_t block_size, nblocks;   /* per thread */
    tz_thread *threads;           /* pushed atomically */
    uint64_t tsc_a, ns_a;
    uint32_t clock;               /* enum tzr_clock: where tz_plat_ticks() comes from */
} tz_rt;

extern tz_rt tz_rt_g;

/* ---- platform glue ---- */
uint64_t tz_plat_ticks(void) TZ_NOINSTR;
uint64_t tz_plat_ns(void) TZ_NOINSTR;          /* 0 when there is no clock: calibrate offline */
tz_thread *tz_plat_thread(void) TZ_NOINSTR;    /* this thread's state, created on demand; NULL if impossible */
tz_thread *tz_plat_thread_peek(void) TZ_NOINSTR; /* the state if it exists (no set-up) */
int tz_plat_can_record(void) TZ_NOINSTR;         /* 1 if a state could be created for this thread */
/* Streaming: writes one whole chunk. Returns 0 or -1. */
int tz_plat_write(const void *data, size_t n) TZ_NOINSTR;

/* ---- core ---- */
void tz_thread_init(tz_thread *t, uint32_t tid, uint8_t *mem, size_t nblocks, size_t block_size) TZ_NOINSTR;
/* The forked child's copy of the thread that called fork(): an empty buffer under a
 * new tid, the open functions kept (they return in the child too). */
void tz_thread_restart(tz_thread *t, uint32_t tid) TZ_NOINSTR;
/* Entry of function `func` (runtime address) whose return address lives at `slot`.
 * Returns 1 if the exit is to be hooked (the caller replaces *slot). */
int tz_enter(tz_thread *t, uintptr_t func, uintptr_t slot, uintptr_t ret) TZ_NOINSTR;
/* Exit through the trampoline; sp = the stack pointer after the return. Returns the
 * original return address. */
uintptr_t tz_exit(tz_thread *t, uintptr_t sp) TZ_NOINSTR;
/* Closes the hooked frames whose return-address slot is below sp (unwound by a C++
 * exception caught by the function whose stack pointer is sp). */
void tz_unwound(tz_thread *t, uintptr_t sp) TZ_NOINSTR;
/* Exit reported by the compiler (-finstrument-functions). */
void tz_exit_func(tz_thread *t, uintptr_t func) TZ_NOINSTR;
void tz_user(tz_thread *t, uint32_t id, int64_t value) TZ_NOINSTR;
/* Writes the records signal handlers queued (the hooks' fast paths call it when they
 * see some after their own record). */
void tz_drain(tz_thread *t) TZ_NOINSTR;
#ifdef TZ_TASKS
/* A switched-out task's open functions (the -finstrument-functions hooks need only these). */
typedef struct tz_task_stack {
    uint32_t depth;
    uintptr_t func[TZ_SHADOW_MAX];
} tz_task_stack;
/* Switches the shadow stack to task `id`: saves the running task's into *out, loads
 * *in, records the switch (a `sub` record: TZR_EXT_TASK, TZR_EXT_ISR_ENTER or
 * TZR_EXT_ISR_EXIT, with the new context's open functions); `isr` when that context
 * is an interrupt handler. */
void tz_task_switch(tz_thread *t, uint32_t id, tz_task_stack *out, const tz_task_stack *in, int sub, int isr) TZ_NOINSTR;
/* Records that task `id` becomes `state` (enum tzr_task_state). */
void tz_task_state(tz_thread *t, uint32_t id, uint32_t state) TZ_NOINSTR;
/* Writes the TASK chunks (names, switch counts); returns how many, or -1. */
int tz_plat_task_chunks(int (*put)(void *, const void *, size_t), void *user) TZ_NOINSTR;
#endif
/* Streaming: flushes the thread's current block. */
void tz_flush_thread(tz_thread *t) TZ_NOINSTR;
/* Serialises the whole dump through `put` (file header, info, blocks, threads, calib, end). */
typedef int (*tz_put_fn)(void *user, const void *data, size_t n);
int tz_write_dump(tz_put_fn put, void *user, int arch, uint32_t pid, const char *exe, int header) TZ_NOINSTR;
int tz_write_header(tz_put_fn put, void *user, int arch, uint32_t pid, const char *exe) TZ_NOINSTR;
int tz_write_chunk(tz_put_fn put, void *user, uint32_t type, const void *payload, size_t n) TZ_NOINSTR;

/* the exit trampoline (arch) */
void tz_exit_tramp(void);

#endif
