/* FreeRTOS configuration of the traza demo firmware (mps2-an385, Cortex-M3 at 25 MHz
 * under QEMU): preemptive, 1 kHz tick, heap_4, software timers, task notifications.
 * The trace macros log the task switches for the firmware's own report and hand
 * every switch, state change and tick interrupt to the tracer runtime
 * (traza_rt_freertos.h, included last). */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configCPU_CLOCK_HZ 25000000UL
#define configTICK_RATE_HZ 1000
#define configUSE_PREEMPTION 1
#define configUSE_TIME_SLICING 1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configUSE_TICKLESS_IDLE 0
#define configMAX_PRIORITIES 5
#define configMINIMAL_STACK_SIZE 256
#define configMAX_TASK_NAME_LEN 12
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configIDLE_SHOULD_YIELD 1
#define configTASK_NOTIFICATION_ARRAY_ENTRIES 1
#define configQUEUE_REGISTRY_SIZE 0
#define configUSE_TIMERS 1
#define configTIMER_TASK_PRIORITY 4
#define configTIMER_QUEUE_LENGTH 4
#define configTIMER_TASK_STACK_DEPTH 256
#define configKERNEL_INTERRUPT_PRIORITY (7 << 5)
#define configMAX_SYSCALL_INTERRUPT_PRIORITY (2 << 5)
#define configSUPPORT_STATIC_ALLOCATION 0
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configTOTAL_HEAP_SIZE (16 * 1024)
#define configUSE_IDLE_HOOK 1
#define configUSE_TICK_HOOK 0
#define configUSE_MALLOC_FAILED_HOOK 1
#define configCHECK_FOR_STACK_OVERFLOW 2
#define configUSE_MUTEXES 1
#define configUSE_COUNTING_SEMAPHORES 1
#define configUSE_TRACE_FACILITY 0
#define configGENERATE_RUN_TIME_STATS 0
#define INCLUDE_vTaskDelay 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_xTaskGetSchedulerState 1

/* the board's vector table names (rt/boards/mps2-an385/startup.c) */
#define vPortSVCHandler SVC_Handler
#define xPortPendSVHandler PendSV_Handler
#define xPortSysTickHandler SysTick_Handler

#ifndef __ASSEMBLER__
void demo_assert_failed(const char *file, int line);
/* the firmware's own record of the switches (main.c): the task switched out, the
 * state the kernel's lists give it then ('R' ready, 'B' blocked, 'S' suspended), the
 * task switched in */
void demo_log_switch(const char *out, char state, const char *in);
extern void *volatile demo_prev_task;
extern volatile char demo_prev_state;
#endif
#define configASSERT(x) \
    do { \
        if (!(x)) \
            demo_assert_failed(__FILE__, __LINE__); \
    } while (0)

/* The switch log: these expand in tasks.c, where the kernel's lists are visible; the
 * state is read as eTaskGetState() does, from the lists the task is on. A switch is
 * a different task coming in (the kernel also calls these when the running task
 * goes on). */
#define DEMO_TASK_STATE(tcb) \
    (listLIST_ITEM_CONTAINER(&(tcb)->xEventListItem) == &xPendingReadyList ? 'R' \
     : listLIST_ITEM_CONTAINER(&(tcb)->xStateListItem) == &pxReadyTasksLists[(tcb)->uxPriority] ? 'R' \
     : listLIST_ITEM_CONTAINER(&(tcb)->xStateListItem) == &xSuspendedTaskList && \
             listLIST_ITEM_CONTAINER(&(tcb)->xEventListItem) == NULL && \
             (tcb)->ucNotifyState[0] != taskWAITING_NOTIFICATION \
         ? 'S' \
         : 'B')
#define traceTASK_SWITCHED_OUT() \
    do { \
        demo_prev_task = pxCurrentTCB; \
        demo_prev_state = DEMO_TASK_STATE(pxCurrentTCB); \
    } while (0)
#define traceTASK_SWITCHED_IN() \
    do { \
        if ((void *)pxCurrentTCB != demo_prev_task) \
            demo_log_switch(demo_prev_task ? ((TCB_t *)demo_prev_task)->pcTaskName : "main", \
                            demo_prev_task ? demo_prev_state : '-', pxCurrentTCB->pcTaskName); \
        TRAZA_FREERTOS_SWITCHED_IN(); \
    } while (0)
#include "traza_rt_freertos.h"

#endif
