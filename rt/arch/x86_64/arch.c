/* x86_64: the C side of the hooks (arch/x86_64/hooks.S). */
#include "rt_internal.h"

int tz_x86_enter(uintptr_t self, uintptr_t *slot) TZ_NOINSTR;
int tz_x86_slow(void) TZ_NOINSTR;
uintptr_t tz_x86_exit(uintptr_t sp) TZ_NOINSTR;

/* Returns 1 when the thread has no state yet: the hook then saves the vector
 * registers, calls tz_x86_slow and comes back. */
int tz_x86_enter(uintptr_t self, uintptr_t *slot)
{
    tz_thread *t = tz_plat_thread_peek();
    if (!t)
        return tz_plat_can_record();
    /* self - 1: inside the hook call, the first instruction of the function */
    if (tz_enter(t, self - 1, (uintptr_t)slot, *slot))
        *slot = (uintptr_t)&tz_exit_tramp;
    return 0;
}

int tz_x86_slow(void) { return tz_plat_thread() != NULL; }

uintptr_t tz_x86_exit(uintptr_t sp)
{
    return tz_exit(tz_plat_thread_peek(), sp);
}
