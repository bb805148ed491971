/* Cortex-M (ARMv7-M, Thumb-2): the clock is the DWT cycle counter (CYCCNT) when the
 * core has one that counts, else the SysTick timer at the processor clock (QEMU's
 * mps2 boards emulate no DWT). Both are widened to 64 bits in software, which needs
 * an event (or a tz_cm_ticks() call) at least every 2^32 cycles (DWT) or every 2^24
 * cycles (SysTick; 0.67 s at 25 MHz). */
#ifndef TZ_ARCH_H
#define TZ_ARCH_H
#include <stdint.h>
#define TZ_ARCH TZR_ARCH_CORTEX_M
uint64_t tz_cm_ticks(void) __attribute__((no_instrument_function));
/* Starts the clock; returns its enum tzr_clock: 1 (DWT CYCCNT), 2 (SysTick, programmed here) or 3 (SysTick
 * as an RTOS programs it, TZ_TASKS). */
int tz_cm_clock_init(void) __attribute__((no_instrument_function));
#ifdef TZ_TASKS
void tz_cm_os_tick(void) __attribute__((no_instrument_function)); /* the kernel's tick hook */
uint64_t tz_cm_ticks_last(void) __attribute__((no_instrument_function)); /* the latest reading */
#endif
static inline __attribute__((no_instrument_function, always_inline)) uint64_t tz_arch_ticks(void)
{
    return tz_cm_ticks();
}
#endif
