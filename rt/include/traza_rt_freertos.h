/* traza tracer runtime, FreeRTOS awareness: include this header at the end of
 * FreeRTOSConfig.h and link the RTOS build of the runtime (built with TZ_TASKS, see
 * doc/tracer-freertos.md). Each task and each traced interrupt handler gets its own
 * shadow stack and call depth; every switch, handler entry and exit, and task state
 * change goes into the trace (the importer makes each task and handler a producer
 * with its calls, and gives each task Running/Ready/Blocked/Suspended states); the
 * clock is the DWT cycle counter when the core has one that counts, else SysTick read
 * as the kernel programs it (never reprogrammed).
 *
 * The kernel's trace macros expand inside tasks.c, queue.c and the port, where
 * pxCurrentTCB is visible in tasks.c only: the block macros name no task (the running
 * one blocks). A FreeRTOSConfig.h that needs its own definition of one of the macros
 * below defines it before this include and calls the TRAZA_FREERTOS_* macro from it.
 *
 * Interrupts: the Cortex-M ports call traceISR_ENTER() in their SysTick handler and
 * traceISR_EXIT() / traceISR_EXIT_TO_SCHEDULER() there and in portYIELD_FROM_ISR();
 * an application handler calls TRAZA_ISR_ENTER("name") first and TRAZA_ISR_EXIT()
 * last (a later portYIELD_FROM_ISR's exit is then ignored). Only the handler that
 * entered leaves (keyed by its exception number), so a portYIELD_FROM_ISR in an
 * untraced handler does nothing. The handler's function itself is compiled with
 * __attribute__((no_instrument_function)) (TRAZA_ISR), or its own entry and exit are
 * recorded on the interrupted task. */
#ifndef TRAZA_RT_FREERTOS_H
#define TRAZA_RT_FREERTOS_H

#ifndef __ASSEMBLER__
#include <stdint.h>
/* Called when `task` (its TCB) starts running; `name` must stay valid (the TCB's);
 * `clock_hz`: the processor clock, the rate of the trace's clock (SysTick from the
 * processor clock, the port's default, or the DWT cycle counter). */
void traza_rt_task_switched_in(const void *task, const char *name, uint32_t clock_hz)
    __attribute__((no_instrument_function));
/* `task` (NULL: the running one) becomes Ready (0), Blocked (1) or Suspended (2,
 * enum tzr_task_state); for the running task, the state it takes at its switch out. */
void traza_rt_task_state(const void *task, const char *name, int state) __attribute__((no_instrument_function));
/* An interrupt handler starts (`name`: a string that stays valid) / returns. */
void traza_rt_isr_enter(const char *name) __attribute__((no_instrument_function));
void traza_rt_isr_exit(void) __attribute__((no_instrument_function));
/* Called on each kernel tick: counts the SysTick periods the clock is made of. */
void traza_rt_os_tick(void) __attribute__((no_instrument_function));
#endif

#define TRAZA_ISR __attribute__((no_instrument_function))
#define TRAZA_ISR_ENTER(name) traza_rt_isr_enter(name)
#define TRAZA_ISR_EXIT() traza_rt_isr_exit()

#define TRAZA_FREERTOS_SWITCHED_IN() \
    traza_rt_task_switched_in(pxCurrentTCB, pxCurrentTCB->pcTaskName, (uint32_t)(configCPU_CLOCK_HZ))
#define TRAZA_FREERTOS_INCREMENT_TICK() traza_rt_os_tick()
#define TRAZA_FREERTOS_READY(tcb) traza_rt_task_state((tcb), (tcb)->pcTaskName, 0)
#define TRAZA_FREERTOS_BLOCK() traza_rt_task_state(0, 0, 1)
#define TRAZA_FREERTOS_SUSPEND(tcb) traza_rt_task_state((tcb), (tcb)->pcTaskName, 2)

#ifndef traceTASK_SWITCHED_IN
#define traceTASK_SWITCHED_IN() TRAZA_FREERTOS_SWITCHED_IN()
#endif
#ifndef traceTASK_INCREMENT_TICK
#define traceTASK_INCREMENT_TICK(count) TRAZA_FREERTOS_INCREMENT_TICK()
#endif
#ifndef traceMOVED_TASK_TO_READY_STATE
#define traceMOVED_TASK_TO_READY_STATE(tcb) TRAZA_FREERTOS_READY(tcb)
#endif
#ifndef traceTASK_SUSPEND
#define traceTASK_SUSPEND(tcb) TRAZA_FREERTOS_SUSPEND(tcb)
#endif
/* every way a task blocks (each is followed by the switch out) */
#ifndef traceTASK_DELAY
#define traceTASK_DELAY() TRAZA_FREERTOS_BLOCK()
#endif
#ifndef traceTASK_DELAY_UNTIL
#define traceTASK_DELAY_UNTIL(t) TRAZA_FREERTOS_BLOCK()
#endif
#ifndef traceBLOCKING_ON_QUEUE_RECEIVE
#define traceBLOCKING_ON_QUEUE_RECEIVE(q) TRAZA_FREERTOS_BLOCK()
#endif
#ifndef traceBLOCKING_ON_QUEUE_PEEK
#define traceBLOCKING_ON_QUEUE_PEEK(q) TRAZA_FREERTOS_BLOCK()
#endif
#ifndef traceBLOCKING_ON_QUEUE_SEND
#define traceBLOCKING_ON_QUEUE_SEND(q) TRAZA_FREERTOS_BLOCK()
#endif
#ifndef traceBLOCKING_ON_STREAM_BUFFER_RECEIVE
#define traceBLOCKING_ON_STREAM_BUFFER_RECEIVE(b) TRAZA_FREERTOS_BLOCK()
#endif
#ifndef traceBLOCKING_ON_STREAM_BUFFER_SEND
#define traceBLOCKING_ON_STREAM_BUFFER_SEND(b) TRAZA_FREERTOS_BLOCK()
#endif
#ifndef traceTASK_NOTIFY_TAKE_BLOCK
#define traceTASK_NOTIFY_TAKE_BLOCK(i) TRAZA_FREERTOS_BLOCK()
#endif
#ifndef traceTASK_NOTIFY_WAIT_BLOCK
#define traceTASK_NOTIFY_WAIT_BLOCK(i) TRAZA_FREERTOS_BLOCK()
#endif
/* the ports' SysTick handler (the only traceISR_ENTER of the Cortex-M ports) */
#ifndef traceISR_ENTER
#define traceISR_ENTER() traza_rt_isr_enter("SysTick")
#endif
#ifndef traceISR_EXIT
#define traceISR_EXIT() traza_rt_isr_exit()
#endif
#ifndef traceISR_EXIT_TO_SCHEDULER
#define traceISR_EXIT_TO_SCHEDULER() traza_rt_isr_exit()
#endif

#endif
