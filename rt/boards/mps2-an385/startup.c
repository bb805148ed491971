/* Minimal start-up for the mps2-an385 board (Cortex-M3) under QEMU: vector table,
 * reset handler (copies .data, clears .bss), calls main, then ends the simulation
 * through semihosting (SYS_EXIT, also tz_board_exit). Built without instrumentation.
 * An RTOS port provides SVC_Handler, PendSV_Handler and SysTick_Handler (FreeRTOS:
 * #define vPortSVCHandler SVC_Handler, ... in FreeRTOSConfig.h); unset, they fault. */
#include <stdint.h>

extern uint32_t __data_start[], __data_end[], __data_load[], __bss_start[], __bss_end[], __stack_top[];
int main(void);
void tz_reset(void) __attribute__((noreturn));
void tz_fault(void) __attribute__((noreturn));
void tz_board_exit(int code);
void SVC_Handler(void) __attribute__((weak, alias("tz_fault")));
void PendSV_Handler(void) __attribute__((weak, alias("tz_fault")));
void SysTick_Handler(void) __attribute__((weak, alias("tz_fault")));
/* external interrupts QEMU's mps2-an385 models and the demos use: the CMSDK APB
 * timers (TIMER0 at 0x40000000, IRQ 8; TIMER1 at 0x40001000, IRQ 9) */
void TIMER0_IRQHandler(void) __attribute__((weak, alias("tz_fault")));
void TIMER1_IRQHandler(void) __attribute__((weak, alias("tz_fault")));
void *memset(void *d, int c, unsigned n);
void *memcpy(void *d, const void *s, unsigned n);

void tz_board_exit(int code)
{
    /* AArch32 SYS_EXIT: r1 = the reason; ADP_Stopped_ApplicationExit = 0x20026 is a
     * normal end (exit status 0), ADP_Stopped_RunTimeErrorUnknown = 0x20023 is 1 */
    register int r0 __asm__("r0") = 0x18;
    register int r1 __asm__("r1") = code == 0 ? 0x20026 : 0x20023;
    __asm__ __volatile__("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

void tz_reset(void)
{
    for (uint32_t *s = __data_load, *d = __data_start; d < __data_end;)
        *d++ = *s++;
    for (uint32_t *d = __bss_start; d < __bss_end;)
        *d++ = 0;
    tz_board_exit(main());
    for (;;)
        ;
}

void tz_fault(void)
{
    tz_board_exit(1);
    for (;;)
        ;
}

__attribute__((section(".vectors"), used)) static const void *const vectors[16 + 10] = {
    __stack_top, (void *)tz_reset, (void *)tz_fault, (void *)tz_fault, (void *)tz_fault, (void *)tz_fault,
    (void *)tz_fault, 0, 0, 0, 0, (void *)SVC_Handler, 0, 0, (void *)PendSV_Handler, (void *)SysTick_Handler,
    /* IRQ 0 to 9 */
    (void *)tz_fault, (void *)tz_fault, (void *)tz_fault, (void *)tz_fault, (void *)tz_fault, (void *)tz_fault,
    (void *)tz_fault, (void *)tz_fault, (void *)TIMER0_IRQHandler, (void *)TIMER1_IRQHandler,
};

/* the compiler may emit calls to these (no libc here) */
void *memset(void *d, int c, unsigned n)
{
    uint8_t *p = d;
    while (n--)
        *p++ = (uint8_t)c;
    return d;
}

void *memcpy(void *d, const void *s, unsigned n)
{
    uint8_t *p = d;
    const uint8_t *q = s;
    while (n--)
        *p++ = *q++;
    return d;
}
