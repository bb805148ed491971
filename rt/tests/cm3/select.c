/* A Cortex-M3 firmware for selection by patching (tests/rt/t_cortexm_patch.sh): built
 * with -fpatchable-function-entry=3 (three 16-bit NOPs per function, untraced until
 * `traza patch --enable` turns them into `push {lr}; bl tz_pfe_entry`). Every function
 * counts its own calls; at the end the firmware writes the counts to the host through
 * semihosting (SYS_WRITE0) as `name=count` lines, then dumps the trace. */
#include <stdint.h>
#include "traza_rt.h"

volatile uint32_t sink;
static uint32_t state = 12345;
static uint32_t n_sensor_read, n_filter, n_crc_byte, n_process, n_fact, n_wide, n_critical_update;

__attribute__((noinline)) uint32_t sensor_read(void)
{
    n_sensor_read++;
    state = state * 1103515245u + 12345u;
    return state >> 16;
}

__attribute__((noinline)) uint32_t filter(uint32_t x)
{
    static uint32_t acc;
    n_filter++;
    acc = (acc * 3 + x) / 4;
    return acc;
}

__attribute__((noinline)) uint32_t crc_byte(uint32_t crc, uint32_t b)
{
    n_crc_byte++;
    crc ^= b & 0xffu;
    for (int k = 0; k < 8; k++)
        crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    return crc;
}

__attribute__((noinline)) uint32_t process(uint32_t x)
{
    n_process++;
    uint32_t f = filter(x);
    return crc_byte(0xffffffffu, f);
}

__attribute__((noinline)) uint32_t fact(uint32_t n)
{
    n_fact++;
    return n <= 1 ? 1 : n * fact(n - 1);
}

/* six arguments (two on the stack) and a 64-bit result: the hook runs before the
 * prologue, so the stacked arguments must be where the function looks for them */
__attribute__((noinline)) uint64_t wide(uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t e, uint32_t f)
{
    n_wide++;
    return ((uint64_t)(a + b + c) << 32) | (d * e + f);
}

__attribute__((noinline)) void critical_update(uint32_t v)
{
    n_critical_update++;
    TRAZA_EVENT(1, v);
    sink += v;
}

/* the reporting itself is no site */
static __attribute__((noinline, patchable_function_entry(0, 0))) void semihost_write0(const char *s)
{
    register int r0 __asm__("r0") = 0x04;
    register const char *r1 __asm__("r1") = s;
    __asm__ __volatile__("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

static __attribute__((patchable_function_entry(0, 0))) void put_count(const char *name, uint32_t n)
{
    char buf[48], *p = buf;
    while (*name)
        *p++ = *name++;
    *p++ = '=';
    char d[10];
    int k = 0;
    do
        d[k++] = (char)('0' + n % 10);
    while ((n /= 10) != 0);
    while (k)
        *p++ = d[--k];
    *p++ = '\n';
    *p = 0;
    semihost_write0(buf);
}

int main(void)
{
    uint32_t i = 0;
    do {
        sink ^= process(sensor_read());
        if (++i % 4 == 0)
            critical_update(i);
    } while (i < 8);
    sink += fact(5);
    uint64_t w = wide(1, 2, 3, 4, 5, 6);
    put_count("crc_byte", n_crc_byte);
    put_count("critical_update", n_critical_update);
    put_count("fact", n_fact);
    put_count("filter", n_filter);
    put_count("process", n_process);
    put_count("sensor_read", n_sensor_read);
    put_count("wide", n_wide);
    put_count("wide_result_hi", (uint32_t)(w >> 32));
    put_count("wide_result_lo", (uint32_t)w);
    return traza_rt_dump() == 0 ? 0 : 1;
}
