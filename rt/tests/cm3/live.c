/* A Cortex-M3 firmware read live by `traza record --target gdb://...` (tests/rt/t_live.sh):
 * LIVE_CALLS calls of work(), each followed by an untraced pause of LIVE_PAUSE loop
 * turns, then an endless untraced loop (the recording ends by its duration). Built
 * three times: paced (a pause the polls keep up with: every record arrives), with
 * -DLIVE_BURST without pauses (the ring wraps between polls: the overwritten blocks
 * are counted), and slow (ten times the pause, calls for as long as it runs: a trace
 * that grows while it is recorded). */
#include <stdint.h>
#include "traza_rt.h"

#ifndef LIVE_CALLS
#define LIVE_CALLS 500
#endif
#ifndef LIVE_PAUSE
#define LIVE_PAUSE 20000
#endif

volatile uint32_t live_calls; /* the calls made, for a debugger to compare */
volatile uint32_t live_sink;

__attribute__((noinline)) void work(uint32_t i)
{
    live_sink += i * 2654435761u;
    live_calls++;
}

__attribute__((noinline, no_instrument_function)) static void pause(void)
{
#ifndef LIVE_BURST
    for (volatile uint32_t k = 0; k < LIVE_PAUSE; k++)
        ;
#endif
}

int main(void)
{
    for (uint32_t i = 0; i < LIVE_CALLS; i++) {
        work(i);
        pause();
    }
    for (;;)
        live_sink++;
}
