/* traza demo firmware on FreeRTOS (mps2-an385 under QEMU): a producer task sends
 * items through a queue to a consumer task, a supervisor task runs a periodic
 * software timer and, when all items are consumed, writes the trace dump through
 * semihosting, reports the task switches the kernel's trace macro counted, and ends
 * the simulation. Built with -finstrument-functions, the kernel's port layer excluded
 * (doc/tracer-freertos.md). */
#include "FreeRTOS.h"
#include "queue.h"
#include "task.h"
#include "timers.h"
#include "traza_rt.h"

#define ITEMS 12

void tz_board_exit(int code);
volatile unsigned long demo_switches;
void *volatile demo_prev_task;

static QueueHandle_t queue;
static TaskHandle_t supervisor_task;
static volatile uint32_t consumed, timer_fired, checksum;

static void sh_write0(const char *s)
{
    register int r0 __asm__("r0") = 0x04; /* SYS_WRITE0 */
    register const char *r1 __asm__("r1") = s;
    __asm__ __volatile__("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

static void print_count(const char *label, unsigned long v)
{
    char b[48], d[12];
    size_t n = 0, k = 0;
    while (*label && n < 30)
        b[n++] = *label++;
    do
        d[k++] = (char)('0' + v % 10);
    while ((v /= 10) && k < sizeof d);
    while (k)
        b[n++] = d[--k];
    b[n++] = '\n';
    b[n] = 0;
    sh_write0(b);
}

void demo_assert_failed(const char *file, int line)
{
    sh_write0("assertion failed: ");
    sh_write0(file);
    print_count(" line ", (unsigned long)line);
    tz_board_exit(1);
}

void vApplicationMallocFailedHook(void) { demo_assert_failed("malloc", 0); }

void vApplicationStackOverflowHook(TaskHandle_t task, char *name)
{
    (void)task;
    demo_assert_failed(name, 0);
}

void vApplicationIdleHook(void) { __asm__ __volatile__("wfi"); }

static uint32_t produce_item(uint32_t i) { return (i * 2654435761u) >> 7; }

static void consume_item(uint32_t v)
{
    checksum ^= v;
    consumed++;
}

static void producer(void *arg)
{
    (void)arg;
    for (uint32_t i = 0; i < ITEMS; i++) {
        uint32_t v = produce_item(i);
        xQueueSend(queue, &v, portMAX_DELAY);
        vTaskDelay(2);
    }
    vTaskSuspend(NULL);
}

static void consumer(void *arg)
{
    (void)arg;
    for (;;) {
        uint32_t v;
        if (xQueueReceive(queue, &v, portMAX_DELAY) == pdPASS) {
            consume_item(v);
            if (consumed == ITEMS)
                xTaskNotifyGive(supervisor_task);
        }
    }
}

static void on_timer(TimerHandle_t t)
{
    (void)t;
    timer_fired++;
}

static void supervisor(void *arg)
{
    (void)arg;
    TimerHandle_t timer = xTimerCreate("period", 5, pdTRUE, NULL, on_timer);
    configASSERT(timer && xTimerStart(timer, 0) == pdPASS);
    ulTaskNotifyTake(pdTRUE, portMAX_DELAY);
    vTaskDelay(1);
    vTaskSuspendAll(); /* no more switches: the count below is the trace's */
    int rc = traza_rt_dump();
    print_count("switches=", demo_switches);
    print_count("consumed=", consumed);
    print_count("timer=", timer_fired);
    tz_board_exit(rc == 0 && consumed == ITEMS && timer_fired > 0 ? 0 : 1);
}

int main(void)
{
    queue = xQueueCreate(4, sizeof(uint32_t));
    configASSERT(queue);
    configASSERT(xTaskCreate(consumer, "consumer", configMINIMAL_STACK_SIZE, NULL, 3, NULL) == pdPASS);
    configASSERT(xTaskCreate(producer, "producer", configMINIMAL_STACK_SIZE, NULL, 2, NULL) == pdPASS);
    configASSERT(xTaskCreate(supervisor, "supervisor", configMINIMAL_STACK_SIZE, NULL, 1, &supervisor_task) == pdPASS);
    vTaskStartScheduler();
    return 1; /* not reached: the scheduler runs until the supervisor ends the simulation */
}
