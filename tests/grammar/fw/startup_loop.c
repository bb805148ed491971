/* A bare-metal program for QEMU's mps2-an385 (with rt/boards/mps2-an385/startup.c):
 * a start-up loop longer than 200 000 instructions, then a main loop of MAIN_ITERS
 * iterations that calls idle_hook (placed before the loop, at a lower address: the
 * call is a backward jump, as a FreeRTOS idle hook's) and, every 16th iteration, work.
 * Builds that differ from VARIANT 0 in one function: VARIANT 1 adds three
 * instructions to work's loop body (main, after it, moves), VARIANT 2 calls work
 * every 8th iteration (an instruction of main changes, nothing moves). */
#include <stdint.h>

#ifndef VARIANT
#define VARIANT 0
#endif
#define STARTUP_ITERS 60000
#define MAIN_ITERS 30000

volatile uint32_t sink;
static uint32_t table[64] = {3, 1, 4, 1, 5, 9, 2, 6};

__attribute__((noinline)) void idle_hook(void)
{
    sink++;
}

__attribute__((noinline)) void work(uint32_t k)
{
    uint32_t s = 0;
    for (uint32_t i = 0; i < 4; i++) {
        s += table[(k + i) & 63];
#if VARIANT == 1
        __asm__ volatile("nop\n\tnop\n\tnop");
#endif
    }
    sink = s;
}

__attribute__((noinline)) static uint32_t calibrate(void)
{
    uint32_t acc = 1;
    for (uint32_t i = 0; i < STARTUP_ITERS; i++)
        acc = acc * 31 + i;
    return acc;
}

int main(void)
{
    sink = calibrate();
    for (uint32_t k = 0; k < MAIN_ITERS; k++) {
        idle_hook();
        if ((k & (VARIANT == 2 ? 7 : 15)) == 0)
            work(k);
    }
    return 0;
}
