/* traza demo firmware on FreeRTOS (mps2-an385 under QEMU): a producer task sends
 * items through a queue to a consumer task, a supervisor task runs a periodic
 * software timer, and the CMSDK timer TIMER0 interrupts every 3 ms (its handler a
 * traced interrupt: TRAZA_ISR_ENTER/EXIT). When all items are consumed the supervisor
 * stops the timer, writes the trace dump through semihosting, prints the switch log
 * the kernel's trace macros kept (one line per switch: "sw <out> <state> <in>") and
 * the counts, and ends the simulation. Built with -finstrument-functions, the
 * kernel's port layer excluded (doc/tracer-freertos.md). */
#include "FreeRTOS.h"
#include "queue.h"
#include "task.h"
#include "timers.h"
#include "traza_rt.h"

#define ITEMS 12

void tz_board_exit(int code);
void *volatile demo_prev_task;
volatile char demo_prev_state;

#define LOG_MAX 256
static struct {
    const char *out, *in;
    char state;
} switch_log[LOG_MAX];
static volatile unsigned long demo_switches;

__attribute__((no_instrument_function)) void demo_log_switch(const char *out, char state, const char *in)
{
    if (demo_switches < LOG_MAX) {
        switch_log[demo_switches].out = out;
        switch_log[demo_switches].in = in;
        switch_log[demo_switches].state = state;
    }
    demo_switches++;
}

/* CMSDK APB timer 0 (IRQ 8), clocked at the 25 MHz of the core */
#define TIMER0_CTRL (*(volatile uint32_t *)0x40000000u)
#define TIMER0_RELOAD (*(volatile uint32_t *)0x40000008u)
#define TIMER0_INTCLEAR (*(volatile uint32_t *)0x4000000Cu)
#define NVIC_ISER0 (*(volatile uint32_t *)0xE000E100u)
#define NVIC_ICER0 (*(volatile uint32_t *)0xE000E180u)
#define NVIC_IPR8 (*(volatile uint8_t *)0xE000E408u)
#define TIMER0_IRQ 8

static QueueHandle_t queue;
static TaskHandle_t supervisor_task;
static volatile uint32_t consumed, timer_fired, checksum, irqs, last_irq_tick;

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

static void sample_in_irq(void)
{
    last_irq_tick = xTaskGetTickCountFromISR();
    irqs++;
}

/* the handler itself is not instrumented (its entry would be the interrupted task's) */
TRAZA_ISR void TIMER0_IRQHandler(void)
{
    TRAZA_ISR_ENTER("TIMER0");
    TIMER0_INTCLEAR = 1;
    sample_in_irq();
    TRAZA_ISR_EXIT();
}

static void timer0_start(uint32_t period_cycles)
{
    TIMER0_RELOAD = period_cycles - 1;
    TIMER0_CTRL = 1u | 8u; /* enabled, interrupt enabled */
    NVIC_IPR8 = 5u << 5;   /* below configMAX_SYSCALL_INTERRUPT_PRIORITY: may call FromISR APIs */
    NVIC_ISER0 = 1u << TIMER0_IRQ;
}

static void timer0_stop(void)
{
    TIMER0_CTRL = 0;
    NVIC_ICER0 = 1u << TIMER0_IRQ;
}

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
    vTaskSuspendAll(); /* no more switches: the log below is the trace's */
    timer0_stop();     /* no more interrupts of it */
    int rc = traza_rt_dump();
    for (unsigned long i = 0; i < demo_switches && i < LOG_MAX; i++) {
        char st[4] = {' ', switch_log[i].state, ' ', 0};
        sh_write0("sw ");
        sh_write0(switch_log[i].out);
        sh_write0(st);
        sh_write0(switch_log[i].in);
        sh_write0("\n");
    }
    print_count("switches=", demo_switches);
    print_count("consumed=", consumed);
    print_count("timer=", timer_fired);
    print_count("irqs=", irqs);
    tz_board_exit(rc == 0 && consumed == ITEMS && timer_fired > 0 && irqs > 0 && demo_switches <= LOG_MAX ? 0 : 1);
}

int main(void)
{
    queue = xQueueCreate(4, sizeof(uint32_t));
    configASSERT(queue);
    configASSERT(xTaskCreate(consumer, "consumer", configMINIMAL_STACK_SIZE, NULL, 3, NULL) == pdPASS);
    configASSERT(xTaskCreate(producer, "producer", configMINIMAL_STACK_SIZE, NULL, 2, NULL) == pdPASS);
    configASSERT(xTaskCreate(supervisor, "supervisor", configMINIMAL_STACK_SIZE, NULL, 1, &supervisor_task) == pdPASS);
    timer0_start(configCPU_CLOCK_HZ / 1000 * 3);
    vTaskStartScheduler();
    return 1; /* not reached: the scheduler runs until the supervisor ends the simulation */
}
