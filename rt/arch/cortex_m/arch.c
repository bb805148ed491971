/* Cortex-M: the cycle clock (see arch.h), and with TZ_RET_HOOKS the entry hook of the
 * patchable entries and the exit trampoline (the -finstrument-functions hooks are in
 * baremetal.c and need neither). */
#include "rt_internal.h"

#ifdef TZ_RET_HOOKS
/* tz_pfe_entry: a site `traza patch --enable` wrote over the three 16-bit NOPs of
 * -fpatchable-function-entry=3 is `push {lr}; bl tz_pfe_entry`, before the prologue:
 * [sp] = the function's return address (lr at entry: bit 0 set, or an EXC_RETURN
 * value in a handler), lr = the return into the function. The hook keeps r0-r3 (and
 * s0-s15 for hard-float arguments), aligns the stack to 8 bytes for C, lets
 * tz_cm_pfe_enter replace the stacked copy by the trampoline, pops it into lr and
 * returns into the function through ip (AAPCS lets a call clobber ip).
 * tz_exit_tramp: the function returns into it; it keeps r0-r3 (and s0-s1), gets the
 * original return address from the shadow stack and branches there (bx also performs
 * an exception return from a handler). */
#if defined(__ARM_FP) && !defined(__SOFTFP__)
#define TZ_CM_VPUSH_ARGS "vpush {s0-s15}\n\t"
#define TZ_CM_VPOP_ARGS "vpop {s0-s15}\n\t"
#define TZ_CM_VPUSH_RET "vpush {s0-s1}\n\t"
#define TZ_CM_VPOP_RET "vpop {s0-s1}\n\t"
#else
#define TZ_CM_VPUSH_ARGS ""
#define TZ_CM_VPOP_ARGS ""
#define TZ_CM_VPUSH_RET ""
#define TZ_CM_VPOP_RET ""
#endif
__asm__(".section .text.tz_pfe_entry,\"ax\",%progbits\n\t"
        ".syntax unified\n\t"
        ".thumb\n\t"
        ".globl tz_pfe_entry\n\t"
        ".type tz_pfe_entry, %function\n\t"
        ".thumb_func\n\t"
        ".p2align 1\n"
        "tz_pfe_entry:\n\t"
        "push {r0-r4, lr}\n\t"      /* 6 words: the site's push is at sp + 24 */
        "mov r0, lr\n\t"
        "add r1, sp, #24\n\t"
        TZ_CM_VPUSH_ARGS
        "mov r4, sp\n\t"
        "bic r2, r4, #7\n\t"
        "mov sp, r2\n\t"
        "bl tz_cm_pfe_enter\n\t"
        "mov sp, r4\n\t"
        TZ_CM_VPOP_ARGS
        "pop {r0-r4, lr}\n\t"
        "mov ip, lr\n\t"
        "pop {lr}\n\t"              /* the (maybe replaced) return address */
        "bx ip\n\t"
        ".size tz_pfe_entry, .-tz_pfe_entry\n\t"
        ".section .text.tz_exit_tramp,\"ax\",%progbits\n\t"
        ".globl tz_exit_tramp\n\t"
        ".type tz_exit_tramp, %function\n\t"
        ".thumb_func\n\t"
        ".p2align 1\n"
        "tz_exit_tramp:\n\t"
        "push {r0-r4, lr}\n\t"      /* return values r0-r3 (lr: padding) */
        "add r0, sp, #24\n\t"       /* sp as the function returned */
        TZ_CM_VPUSH_RET
        "mov r4, sp\n\t"
        "bic r1, r4, #7\n\t"
        "mov sp, r1\n\t"
        "bl tz_cm_pfe_exit\n\t"
        "mov sp, r4\n\t"
        "mov ip, r0\n\t"
        TZ_CM_VPOP_RET
        "pop {r0-r4, lr}\n\t"
        "bx ip\n\t"
        ".size tz_exit_tramp, .-tz_exit_tramp\n\t"
        ".text");
#endif

#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)

static uint32_t cm_src, cm_last;
static uint64_t cm_acc;


#define ICSR (*(volatile uint32_t *)0xE000ED04u)

static int dwt_counts(void)
{
    DEMCR |= 1u << 24; /* TRCENA: enables the DWT */
    DWT_CYCCNT = 0;
    DWT_CTRL |= 1u;    /* CYCCNTENA */
    uint32_t a = DWT_CYCCNT;
    return DWT_CYCCNT != a; /* it counts every cycle */
}

#ifdef TZ_TASKS
/* RTOS firmware: SysTick belongs to the kernel (period RVR + 1, one interrupt per
 * period, counted by tz_cm_os_tick from the kernel's tick hook); the time is
 * periods * (RVR + 1) + the count into the current period. A period that ended but
 * whose interrupt has not run yet is pending in ICSR, or active (the hook has not run
 * yet in this interrupt). Timestamps increase by at least one tick per reading, which
 * keeps the order of the events before the kernel starts SysTick. */
static volatile uint32_t cm_periods;
static volatile int cm_counted; /* the hook ran in the current SysTick interrupt */

uint64_t tz_cm_ticks_last(void) { return cm_acc; }

void tz_cm_os_tick(void)
{
    uint32_t ipsr;
    __asm__ __volatile__("mrs %0, ipsr" : "=r"(ipsr));
    if ((ipsr & 0x1ffu) == 15u) { /* from the SysTick interrupt, not a replay of pended ticks */
        cm_periods++;
        cm_counted = 1;
    }
}

int tz_cm_clock_init(void)
{
    cm_src = dwt_counts() ? 1 : 3;
    cm_last = cm_src == 1 ? DWT_CYCCNT : 0;
    return (int)cm_src;
}

uint64_t tz_cm_ticks(void)
{
    if (cm_src == 1) {
        uint32_t now = DWT_CYCCNT;
        cm_acc += now - cm_last;
        cm_last = now;
        return cm_acc;
    }
    uint32_t ipsr;
    __asm__ __volatile__("mrs %0, ipsr" : "=r"(ipsr));
    int in_tick = (ipsr & 0x1ffu) == 15u;
    if (!in_tick)
        cm_counted = 0;
    uint32_t reload = SYST_RVR & 0xffffffu, c1 = SYST_CVR;
    uint32_t pend = (ICSR >> 26) & 1u; /* PENDSTSET */
    uint32_t c2 = SYST_CVR;
    if (c2 > c1) /* wrapped between the two reads: the pending bit is set now */
        pend = 1;
    if (in_tick && !cm_counted)
        pend = 1;
    uint64_t v = ((uint64_t)cm_periods + pend) * (reload + 1u) + (reload - (c2 > reload ? reload : c2));
    /* strictly increasing, so events keep their order where SysTick does not run yet
     * or a masked interrupt lets periods go uncounted */
    cm_acc = v > cm_acc ? v : cm_acc + 1;
    return cm_acc;
}
#else
int tz_cm_clock_init(void)
{
    if (dwt_counts()) {
        cm_src = 1;
        cm_last = DWT_CYCCNT;
    } else {
        SYST_RVR = 0xffffffu;
        SYST_CSR = 5u; /* enabled, processor clock, no interrupt */
        /* QEMU shows 0 until the first reload (hardware: one clock later) */
        while (SYST_CVR == 0)
            ;
        cm_src = 2;
        cm_last = SYST_CVR;
    }
    return (int)cm_src;
}

uint64_t tz_cm_ticks(void)
{
    uint32_t now, d;
    if (cm_src == 1) {
        now = DWT_CYCCNT;
        d = now - cm_last;
    } else {
        now = SYST_CVR;
        d = (cm_last - now) & 0xffffffu; /* SysTick counts down */
    }
    cm_last = now;
    cm_acc += d;
    return cm_acc;
}
#endif
