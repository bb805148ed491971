/* traza tracer runtime, FreeRTOS awareness: include this header at the end of
 * FreeRTOSConfig.h and link the RTOS build of the runtime (built with TZ_TASKS, see
 * doc/tracer-freertos.md). Each task gets its own shadow stack and call depth, every
 * switch goes into the trace (the importer makes each task a producer with its calls
 * and Running states), and the clock reads SysTick as the kernel programs it instead
 * of reprogramming it (or the DWT cycle counter when the core has one).
 *
 * The kernel's trace macros expand inside tasks.c, where pxCurrentTCB is visible. A
 * FreeRTOSConfig.h that needs its own traceTASK_SWITCHED_IN or traceTASK_INCREMENT_TICK
 * defines it before this include and calls TRAZA_FREERTOS_SWITCHED_IN() /
 * TRAZA_FREERTOS_INCREMENT_TICK() from it. */
#ifndef TRAZA_RT_FREERTOS_H
#define TRAZA_RT_FREERTOS_H

#ifndef __ASSEMBLER__
/* Called when `task` (its TCB) starts running; `name` must stay valid (the TCB's);
 * `clock_hz`: the processor clock, the rate of the trace's clock (SysTick from the
 * processor clock, the port's default, or the DWT cycle counter). */
void traza_rt_task_switched_in(const void *task, const char *name, uint32_t clock_hz)
    __attribute__((no_instrument_function));
/* Called on each kernel tick: counts the SysTick periods the clock is made of. */
void traza_rt_os_tick(void) __attribute__((no_instrument_function));
#endif

#define TRAZA_FREERTOS_SWITCHED_IN() \
    traza_rt_task_switched_in(pxCurrentTCB, pxCurrentTCB->pcTaskName, (uint32_t)(configCPU_CLOCK_HZ))
#define TRAZA_FREERTOS_INCREMENT_TICK() traza_rt_os_tick()

#ifndef traceTASK_SWITCHED_IN
#define traceTASK_SWITCHED_IN() TRAZA_FREERTOS_SWITCHED_IN()
#endif
#ifndef traceTASK_INCREMENT_TICK
#define traceTASK_INCREMENT_TICK(count) TRAZA_FREERTOS_INCREMENT_TICK()
#endif

#endif
