/* 32-bit ARM Linux (ARM and Thumb-2 code): no user-readable cycle counter, so the
 * clock is CLOCK_MONOTONIC in nanoseconds (vDSO); the calibration is then 1:1. */
#ifndef TZ_ARCH_H
#define TZ_ARCH_H
#include <stdint.h>
#include <time.h>
#define TZ_ARCH TZR_ARCH_ARM
static inline __attribute__((no_instrument_function, always_inline)) uint64_t tz_arch_ticks(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif
