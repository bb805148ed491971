/* Cortex-M: the cycle clock (see arch.h). The hooks come from -finstrument-functions
 * (baremetal.c), so there is no return-address trampoline here. */
#include "rt_internal.h"

#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)

static uint32_t cm_src, cm_last;
static uint64_t cm_acc;


int tz_cm_clock_init(void)
{
    DEMCR |= 1u << 24; /* TRCENA: enables the DWT */
    DWT_CYCCNT = 0;
    DWT_CTRL |= 1u;    /* CYCCNTENA */
    uint32_t a = DWT_CYCCNT;
    if (DWT_CYCCNT != a) { /* it counts every cycle */
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
