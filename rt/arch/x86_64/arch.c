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

void tz_x86_drain(tz_thread *t) TZ_NOINSTR;
void tz_x86_drain(tz_thread *t) { tz_drain(t); }

uintptr_t tz_x86_exit(uintptr_t sp)
{
    return tz_exit(tz_plat_thread_peek(), sp);
}

#include "offsets.h"
_Static_assert(offsetof(tz_thread, depth) == TZ_OFF_DEPTH, "hooks.S offsets");
_Static_assert(offsetof(tz_thread, busy) == TZ_OFF_BUSY && offsetof(tz_thread, qn) == TZ_OFF_QN, "hooks.S offsets");
_Static_assert(offsetof(tz_thread, p) == TZ_OFF_P, "hooks.S offsets");
_Static_assert(offsetof(tz_thread, end) == TZ_OFF_END, "hooks.S offsets");
_Static_assert(offsetof(tz_thread, last_tsc) == TZ_OFF_LAST_TSC, "hooks.S offsets");
_Static_assert(offsetof(tz_thread, last_func) == TZ_OFF_LAST_FUNC, "hooks.S offsets");
_Static_assert(offsetof(tz_thread, events) == TZ_OFF_EVENTS, "hooks.S offsets");
_Static_assert(offsetof(tz_thread, stack) == TZ_OFF_STACK, "hooks.S offsets");
_Static_assert(offsetof(tz_thread, base) + sizeof(tz_shadow) == TZ_OFF_STACK, "hooks.S offsets");
_Static_assert(sizeof(tz_shadow) == TZ_SHADOW_SIZE, "hooks.S offsets");
_Static_assert(offsetof(tz_shadow, ret) == 0 && offsetof(tz_shadow, slot) == 8 && offsetof(tz_shadow, func) == 16,
               "hooks.S offsets");
_Static_assert(offsetof(tz_rt, enabled) == TZ_RT_OFF_ENABLED, "hooks.S offsets");
_Static_assert(TZ_SHADOW_MAX == 256, "hooks.S compares the depth with 256");
