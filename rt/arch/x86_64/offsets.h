/* Offsets into tz_thread and tz_rt for the assembly fast paths (hooks.S); checked
 * against the C layout by static assertions in arch.c. */
#ifndef TZ_X86_OFFSETS_H
#define TZ_X86_OFFSETS_H
#define TZ_OFF_DEPTH 12
#define TZ_OFF_BUSY 16            /* u32 busy, then u32 qn: tested together */
#define TZ_OFF_QN 20
#define TZ_OFF_P 56
#define TZ_OFF_END 64
#define TZ_OFF_LAST_TSC 72
#define TZ_OFF_LAST_FUNC 80
#define TZ_OFF_EVENTS 104
#define TZ_OFF_STACK 160          /* stack[0]; the sentinel `base` is stack[-1] */
#define TZ_SHADOW_SIZE 24         /* ret, slot, func */
#define TZ_RT_OFF_ENABLED 4
#endif
