/* x86_64: the cheapest good clock is the TSC (calibrated against CLOCK_MONOTONIC). */
#ifndef TZ_ARCH_H
#define TZ_ARCH_H
#include <stdint.h>
#define TZ_ARCH TZR_ARCH_X86_64
static inline __attribute__((no_instrument_function, always_inline)) uint64_t tz_arch_ticks(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}
#endif
