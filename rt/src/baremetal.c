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
 * Override the weak tz_bm_sink_* functions to send the dump elsewhere (UART, ...). */
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

static tz_thread bm_thread;
static uint8_t bm_buf[TZ_BM_BUFSIZE] __attribute__((aligned(8)));
static int bm_state; /* 0 not started, 1 recording, 2 off */
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

/* host nanoseconds (semihosting SYS_ELAPSED / SYS_TICKFREQ), 0 when unavailable */
uint64_t tz_plat_ns(void)
{
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
        tz_rt_g.mode = TZR_MODE_RING;
        tz_rt_g.block_size = TZ_BM_BLOCK;
        tz_rt_g.nblocks = TZ_BM_BUFSIZE / TZ_BM_BLOCK;
        tz_cm_clock_init();
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

void traza_rt_event(uint32_t id, int64_t value)
{
    uint32_t m = irq_save();
    tz_thread *t = tz_plat_thread();
    if (t)
        tz_user(t, id, value);
    irq_restore(m);
}

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
