/* 32-bit ARM: the C side of __gnu_mcount_nc and the exit trampoline (hooks.S). */
#include "rt_internal.h"

void tz_arm_enter(uintptr_t self, uintptr_t *stacked, uintptr_t *fp) TZ_NOINSTR;
uintptr_t tz_arm_exit(uintptr_t sp) TZ_NOINSTR;
void tz_pfe_enter(uintptr_t self, uintptr_t *stacked) TZ_NOINSTR;

void tz_arm_enter(uintptr_t self, uintptr_t *stacked, uintptr_t *fp)
{
    /* fp must be this function's frame (ARM: sp at entry - 4), just above the copy */
    if ((uintptr_t)fp <= (uintptr_t)stacked || (uintptr_t)fp - (uintptr_t)stacked > 65536)
        return; /* no usable frame pointer (built without -fno-omit-frame-pointer?) */
    tz_thread *t = tz_plat_thread();
    if (!t)
        return;
    uintptr_t ret = *stacked;
    /* self - 4: the bl instruction, inside the function. The frame is identified by
     * fp (= sp at entry - 4 for leaves and non-leaves alike). */
    if (tz_enter(t, self - 4, (uintptr_t)fp, ret)) {
        if (*fp == ret)
            *fp = (uintptr_t)&tz_exit_tramp; /* lr saved by the prologue */
        *stacked = (uintptr_t)&tz_exit_tramp;  /* popped into lr (a leaf returns with it) */
    }
}

/* -fpatchable-function-entry sites turned into `push {lr}; bl tz_pfe_entry`: called
 * before the prologue, so `stacked` (sp at entry - 4) holds the return address; the
 * frame is identified by that slot, as on x86_64 (after the return sp = slot + 4). */
void tz_pfe_enter(uintptr_t self, uintptr_t *stacked)
{
    tz_thread *t = tz_plat_thread();
    if (!t)
        return;
    /* (self & ~1) - 4: the bl/blx instruction, inside the function (ARM and Thumb) */
    if (tz_enter(t, (self & ~(uintptr_t)1) - 4, (uintptr_t)stacked, *stacked))
        *stacked = (uintptr_t)&tz_exit_tramp;
}

uintptr_t tz_arm_exit(uintptr_t sp) { return tz_exit(tz_plat_thread_peek(), sp); }
