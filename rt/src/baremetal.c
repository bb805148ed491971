/* Bare-metal glue of the tracer runtime (no libc, no OS): one execution context, a
 * static circular buffer in RAM (flight recorder: the newest blocks survive), the
 * -finstrument-functions hooks with interrupts masked around the buffer update, and
 * the dump written at the end through ARM semihosting (SYS_OPEN/SYS_WRITE/SYS_CLOSE
 * to a file on the host), calibrated with SYS_ELAPSED/SYS_TICKFREQ (host time).
 *
 * Build-time settings: TZ_BM_BUFSIZE (buffer bytes, default 4096), TZ_BM_BLOCK (block
 * bytes, default 1024), TZ_BM_OUT (host file, default "traza-rt.tzr"), TZ_BM_EXE (the
 * program name put in the dump; `traza import` takes $TRAZA_RT_EXE over it),
 * TZ_SHADOW_MAX (shadow stack depth; 32 suits a microcontroller).
 * Override the weak tz_bm_sink_* functions to send the dump elsewhere (UART, ...).
 *
 * The ring and the thread state live in the section .noinit (the linker script keeps it
 * out of the zeroed .bss): a reset leaves them as they were until the first traced call
 * starts a new recording, so a debugger attached after a reset still reads the last
 * run. The control block traza_rt_control (TZRC_*, traza_rt_format.h) tells a debugger
 * where they are: `traza record --target gdb://...` reads the ring of a running target
 * through it, and `traza import --format rtram` a RAM image (doc/tracer-live.md).
 * TZ_BM_CLOCK_HZ: the event clock's frequency for the control block (default 0:
 * unknown; an RTOS gives it at its first task switch). */
#include "rt_internal.h"
#include "traza_rt.h"

#ifndef TZ_BM_BUFSIZE
#define TZ_BM_BUFSIZE 4096
#endif
#ifndef TZ_BM_BLOCK
#define TZ_BM_BLOCK 1024
#endif
#ifndef TZ_BM_OUT
#define TZ_BM_OUT "traza-rt.tzr"
#endif
#ifndef TZ_BM_EXE
#define TZ_BM_EXE "firmware.elf"
#endif

TZ_API void __cyg_profile_func_enter(void *fn, void *site) TZ_NOINSTR;
TZ_API void __cyg_profile_func_exit(void *fn, void *site) TZ_NOINSTR;
int tz_bm_sink_open(void) __attribute__((weak)) TZ_NOINSTR;
int tz_bm_sink_write(void *user, const void *data, size_t n) __attribute__((weak)) TZ_NOINSTR;
void tz_bm_sink_close(void) __attribute__((weak)) TZ_NOINSTR;

#ifndef TZ_BM_CLOCK_HZ
#define TZ_BM_CLOCK_HZ 0
#endif

#define TZ_NOINIT __attribute__((section(".noinit")))
static tz_thread bm_thread TZ_NOINIT;
static uint8_t bm_buf[TZ_BM_BUFSIZE] TZ_NOINIT __attribute__((aligned(8)));
static int bm_state; /* 0 not started, 1 recording, 2 off */

/* the thread's counters are 32-bit here (tz_count), as the control block says */
_Static_assert(sizeof(tz_count) == 4 && sizeof(uintptr_t) == 4, "the control block holds 32-bit words");
TZ_API volatile uint32_t traza_rt_control[TZRC_WORDS] = {
    TZRC_MAGIC, TZRC_VERSION, (uint32_t)(uintptr_t)traza_rt_control, TZ_ARCH, (uint32_t)(uintptr_t)bm_buf,
    TZ_BM_BLOCK, TZ_BM_BUFSIZE / TZ_BM_BLOCK, TZ_BM_CLOCK_HZ, (uint32_t)(uintptr_t)&bm_thread.p,
    (uint32_t)(uintptr_t)&bm_thread.seq, (uint32_t)(uintptr_t)&bm_thread.events,
    (uint32_t)(uintptr_t)&bm_thread.overflow,
};
static int bm_handle;

static TZ_NOINSTR int semihost(int op, const void *arg)
{
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ __volatile__("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

static inline TZ_NOINSTR uint32_t irq_save(void)
{
    uint32_t m;
    __asm__ __volatile__("mrs %0, primask\n\tcpsid i" : "=r"(m)::"memory");
    return m;
}

static inline TZ_NOINSTR void irq_restore(uint32_t m) { __asm__ __volatile__("msr primask, %0" ::"r"(m) : "memory"); }

uint64_t tz_plat_ticks(void) { return tz_arch_ticks(); }

#ifdef TZ_TASKS
static uint32_t bm_clock_hz; /* the RTOS's processor clock, once a task started */
#endif

/* host nanoseconds (semihosting SYS_ELAPSED / SYS_TICKFREQ), 0 when unavailable; with
 * an RTOS that gave its processor clock, the nominal time of the cycle clock (the
 * host's time through an emulator or a debugger is no measure of the target's) */
uint64_t tz_plat_ns(void)
{
#ifdef TZ_TASKS
    if (bm_clock_hz) /* of the latest reading: the ticks just paired with it */
        return tz_cm_ticks_last() * 1000000000u / bm_clock_hz;
#endif
    uint32_t el[2] = {0, 0};
    if (semihost(0x30, el) != 0)
        return 0;
    int f = semihost(0x31, 0); /* host ticks per second (QEMU: 10^9) */
    if (f <= 0 || f > 1000000000)
        return 0;
    return ((uint64_t)el[1] << 32 | el[0]) * (uint32_t)(1000000000 / f);
}

tz_thread *tz_plat_thread(void)
{
    if (bm_state == 0) {
        bm_state = 1;
        /* a new recording: the state a reset left (.noinit) is dropped */
        uint8_t *z = (uint8_t *)&bm_thread;
        for (size_t i = 0; i < sizeof bm_thread; i++)
            z[i] = 0;
        tz_rt_g.mode = TZR_MODE_RING;
        tz_rt_g.block_size = TZ_BM_BLOCK;
        tz_rt_g.nblocks = TZ_BM_BUFSIZE / TZ_BM_BLOCK;
        tz_rt_g.clock = (uint32_t)tz_cm_clock_init(); /* enum tzr_clock */
        tz_rt_g.tsc_a = tz_plat_ticks();
        tz_rt_g.ns_a = tz_plat_ns();
        tz_thread_init(&bm_thread, 0, bm_buf, tz_rt_g.nblocks, tz_rt_g.block_size);
        tz_rt_g.threads = &bm_thread;
    }
    return bm_state == 1 ? &bm_thread : 0;
}

tz_thread *tz_plat_thread_peek(void) { return bm_state == 1 ? &bm_thread : 0; }


int tz_bm_sink_open(void)
{
    const char *name = TZ_BM_OUT;
    uint32_t args[3] = {(uint32_t)(uintptr_t)name, 5 /* "wb" */, sizeof TZ_BM_OUT - 1};
    bm_handle = semihost(0x01, args);
    return bm_handle < 0 ? -1 : 0;
}

int tz_bm_sink_write(void *user, const void *data, size_t n)
{
    uint32_t args[3] = {(uint32_t)bm_handle, (uint32_t)(uintptr_t)data, (uint32_t)n};
    return semihost(0x05, args) == 0 ? 0 : -1; /* returns the bytes not written */
}

void tz_bm_sink_close(void)
{
    uint32_t args[1] = {(uint32_t)bm_handle};
    semihost(0x02, args);
}

void __cyg_profile_func_enter(void *fn, void *site)
{
    uint32_t m = irq_save();
    tz_thread *t = tz_plat_thread();
    if (t)
        tz_enter(t, (uintptr_t)fn, 0, 0);
    irq_restore(m);
}

void __cyg_profile_func_exit(void *fn, void *site)
{
    uint32_t m = irq_save();
    tz_thread *t = tz_plat_thread_peek();
    if (t)
        tz_exit_func(t, (uintptr_t)fn);
    irq_restore(m);
}

#ifdef TZ_RET_HOOKS
#ifdef TZ_TASKS
#error "patchable entries (TZ_RET_HOOKS) need the return addresses in each task's saved shadow stack: not with TZ_TASKS"
#endif
/* -fpatchable-function-entry sites that `traza patch` turned into `push {lr}; bl
 * tz_pfe_entry` (rt/arch/cortex_m/arch.c): `self` is the return into the function
 * (the bl is 4 bytes before it), `stacked` the copy of its return address the site
 * pushed, replaced by the exit trampoline when the shadow stack has room. */
void tz_cm_pfe_enter(uintptr_t self, uintptr_t *stacked) TZ_NOINSTR;
uintptr_t tz_cm_pfe_exit(uintptr_t sp) TZ_NOINSTR;

void tz_cm_pfe_enter(uintptr_t self, uintptr_t *stacked)
{
    uint32_t m = irq_save();
    tz_thread *t = tz_plat_thread();
    if (t && tz_enter(t, (self & ~(uintptr_t)1) - 4, (uintptr_t)stacked, *stacked))
        *stacked = (uintptr_t)&tz_exit_tramp;
    irq_restore(m);
}

/* the trampoline's: `sp` as the function returned; gives the original return address */
uintptr_t tz_cm_pfe_exit(uintptr_t sp)
{
    uint32_t m = irq_save();
    uintptr_t ret = tz_exit(&bm_thread, sp);
    irq_restore(m);
    return ret;
}
#endif

void traza_rt_event(uint32_t id, int64_t value)
{
    uint32_t m = irq_save();
    tz_thread *t = tz_plat_thread();
    if (t)
        tz_user(t, id, value);
    irq_restore(m);
}

#ifdef TZ_TASKS
/* RTOS tasks and interrupt handlers (TZ_BM_TASKS slots at most, default 8; more are
 * run on the shadow stack of the last one, and counted as shadow overflows): slot 0
 * is the context before the first task (main), the others are keyed by the kernel's
 * task handle or, for a handler, by its exception number. Handlers nest TZ_BM_ISR_NEST
 * deep (default 8); deeper ones are left to the handler they interrupted. */
#ifndef TZ_BM_TASKS
#define TZ_BM_TASKS 8
#endif
#ifndef TZ_BM_ISR_NEST
#define TZ_BM_ISR_NEST 8
#endif
#include "traza_rt_freertos.h"

static struct bm_task {
    const void *handle;
    uint32_t flags; /* TZR_TASK_ISR */
    tz_count switches;
    tz_task_stack saved;
} bm_tasks[TZ_BM_TASKS + 1];
/* The name of each slot (the kernel's, a pointer into its task control block; an
 * interrupt handler's), by task id: a debugger reading the ring of a running target
 * reads a task's name through it when the task first appears in the records (`traza
 * record --target`, doc/tracer-live.md). */
TZ_API const char *volatile traza_rt_task_names[TZ_BM_TASKS + 1] = {"main"};
static uint32_t bm_ntasks = 1, bm_cur;
static uint32_t bm_resume[TZ_BM_ISR_NEST], bm_nisr; /* the contexts the handlers interrupted */
static uint32_t bm_task_of_isr; /* the task running under the handlers (bm_cur when none) */

static TZ_NOINSTR uint32_t bm_slot(const void *handle, const char *name, uint32_t flags, tz_thread *t)
{
    uint32_t i = 1;
    while (i < bm_ntasks && !(bm_tasks[i].handle == handle && bm_tasks[i].flags == flags))
        i++;
    if (i == bm_ntasks) {
        if (bm_ntasks <= TZ_BM_TASKS)
            bm_ntasks++;
        else { /* every slot taken: the last one is reused */
            i = TZ_BM_TASKS;
            if (t)
                t->overflow++;
        }
        bm_tasks[i].handle = handle;
        traza_rt_task_names[i] = name;
        bm_tasks[i].flags = flags;
    }
    return i;
}

static inline TZ_NOINSTR uint32_t exception_number(void)
{
    uint32_t ipsr;
    __asm__ __volatile__("mrs %0, ipsr" : "=r"(ipsr));
    return ipsr & 0x1ffu;
}

void traza_rt_task_switched_in(const void *task, const char *name, uint32_t clock_hz)
{
    uint32_t m = irq_save();
    tz_thread *t = tz_plat_thread();
    if (!bm_clock_hz && clock_hz) {
        bm_clock_hz = clock_hz; /* from now on the calibration is the nominal one */
        traza_rt_control[TZRC_W_CLOCK_HZ] = clock_hz;
        tz_rt_g.tsc_a = 0;
        tz_rt_g.ns_a = 0;
    }
    uint32_t i = bm_slot(task, name, 0, t);
    if (t && i != bm_cur && !bm_nisr) { /* the kernel switches tasks outside handlers (PendSV) */
        bm_tasks[i].switches++;
        tz_task_switch(t, i, &bm_tasks[bm_cur].saved, &bm_tasks[i].saved, TZR_EXT_TASK, 0);
        bm_cur = i;
    }
    irq_restore(m);
}

void traza_rt_task_state(const void *task, const char *name, int state)
{
    uint32_t m = irq_save();
    tz_thread *t = tz_plat_thread();
    uint32_t i = task ? bm_slot(task, name, 0, t) : bm_nisr ? bm_task_of_isr : bm_cur;
    if (t && i)
        tz_task_state(t, i, (uint32_t)state);
    irq_restore(m);
}

void traza_rt_isr_enter(const char *name)
{
    uint32_t m = irq_save();
    tz_thread *t = tz_plat_thread();
    uint32_t i = bm_slot((const void *)(uintptr_t)exception_number(), name, TZR_TASK_ISR, t);
    if (t && i != bm_cur && bm_nisr < TZ_BM_ISR_NEST) {
        if (!bm_nisr)
            bm_task_of_isr = bm_cur;
        bm_resume[bm_nisr++] = bm_cur;
        bm_tasks[i].switches++;
        tz_task_switch(t, i, &bm_tasks[bm_cur].saved, &bm_tasks[i].saved, TZR_EXT_ISR_ENTER, 1);
        bm_cur = i;
    }
    irq_restore(m);
}

void traza_rt_isr_exit(void)
{
    uint32_t m = irq_save();
    tz_thread *t = tz_plat_thread_peek();
    /* only the handler that entered: a second exit of it (traceISR_EXIT in
     * portYIELD_FROM_ISR after TRAZA_ISR_EXIT) is no-op */
    if (t && bm_nisr && bm_tasks[bm_cur].handle == (const void *)(uintptr_t)exception_number()) {
        uint32_t r = bm_resume[--bm_nisr];
        tz_task_switch(t, r, &bm_tasks[bm_cur].saved, &bm_tasks[r].saved, TZR_EXT_ISR_EXIT,
                       (bm_tasks[r].flags & TZR_TASK_ISR) != 0);
        bm_cur = r;
    }
    irq_restore(m);
}

void traza_rt_os_tick(void) { tz_cm_os_tick(); }

int tz_plat_task_chunks(tz_put_fn put, void *user)
{
    int n = 0;
    for (uint32_t i = 0; i < bm_ntasks; i++) {
        const char *name = traza_rt_task_names[i];
        uint8_t c[TZR_TASK_FIXED + 32];
        size_t len = 0;
        while (name && name[len] && len < 32)
            len++;
        put32(c, i);
        put32(c + 4, bm_tasks[i].flags);
        put64(c + 8, bm_tasks[i].switches);
        tz_copy(c + TZR_TASK_FIXED, name, len);
        if (tz_write_chunk(put, user, TZR_CHUNK_TASK, c, TZR_TASK_FIXED + len) < 0)
            return -1;
        n++;
    }
    return n;
}
#endif

void traza_rt_enable(int on) { tz_rt_g.enabled = on; }

int traza_rt_dump(void)
{
    if (bm_state != 1)
        return 0;
    uint32_t m = irq_save();
    bm_state = 2;
    int rc = tz_bm_sink_open();
    if (rc == 0) {
        rc = tz_write_dump(tz_bm_sink_write, 0, TZ_ARCH, 0, TZ_BM_EXE, 1);
        tz_bm_sink_close();
    }
    irq_restore(m);
    return rc;
}
