/* 32-bit ARM: the C side of __gnu_mcount_nc and the exit trampoline (hooks.S). */
#include "rt_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void tz_arm_enter(uintptr_t self, uintptr_t *stacked, uintptr_t *fp) TZ_NOINSTR;
uintptr_t tz_arm_exit(uintptr_t sp) TZ_NOINSTR;
void tz_pfe_enter(uintptr_t self, uintptr_t *stacked) TZ_NOINSTR;

/* The frame of an ARM -pg function, read from its prologue, which gcc (-marm
 * -fno-omit-frame-pointer) lays out as
 *     [push {rN-r3} | sub sp, sp, #P]   arguments passed partly in registers: a variadic
 *                                       function pushes r0-r3 from its first unnamed one
 *     push {..., fp[, lr]}              fp and lr are the highest registers pushed
 *     [vpush {d8-...}]
 *     add fp, sp, #K                    fp = the highest pushed word
 *     [sub sp, sp, #L ...]              the locals (large frames: ip loaded, sub sp, ip)
 *     push {lr}; bl __gnu_mcount_nc     the site, at self - 8
 * The stack pointer at entry, which the function returns with, is fp + 4 + P, and lr
 * is saved at [fp] when the list holds it. With -mapcs-frame:
 *     mov ip, sp; [push {rN-r3} | sub sp, sp, #P]; push {..., fp, ip, lr, pc};
 *     [vpush]; sub fp, ip, #K; [vpush]
 * the entry stack pointer is fp + K and lr is saved at [fp - 4]. */
typedef struct {
    uintptr_t entry_sp;
    uintptr_t *lr_slot; /* where the prologue saved lr (NULL: it stays in its register) */
} tz_arm_frame;

static int TZ_NOINSTR frame_alloc(uint32_t w)
{
    return (w & 0xfffff000u) == 0xe24dd000u ||  /* sub sp, sp, #imm */
           w == 0xe04dd00cu ||                  /* sub sp, sp, ip */
           (w & 0xfffff000u) == 0xe59fc000u ||  /* ldr ip, [pc, #imm] */
           (w & 0xfff0f000u) == 0xe300c000u ||  /* movw ip, #imm */
           (w & 0xfff0f000u) == 0xe340c000u;    /* movt ip, #imm */
}

/* vpush {sN-...} / {dN-...}: the bytes pushed, 0 for another instruction */
static uint32_t TZ_NOINSTR vpush_bytes(uint32_t w)
{
    return (w & 0xffff0e00u) == 0xed2d0a00u ? (w & 0xff) * 4 : 0;
}

static uint32_t TZ_NOINSTR arm_imm(uint32_t w)
{
    uint32_t rot = ((w >> 8) & 15) * 2, imm = w & 0xff;
    return rot ? (imm >> rot) | (imm << (32 - rot)) : imm;
}

/* 0 if the prologue is not one of the above (no frame pointer: fp is not this frame's) */
static int TZ_NOINSTR arm_frame(uintptr_t self, uintptr_t fp, tz_arm_frame *f)
{
    const uint32_t *p = (const uint32_t *)(self - 8);
    for (int i = 0; i < 8 && frame_alloc(p[-1]); i++)
        p--;
    if (vpush_bytes(p[-1]))
        p--;
    uint32_t set = *--p, w = *--p, vpush = vpush_bytes(w);
    if (vpush)
        w = *--p;
    if ((set & 0xfffff000u) == 0xe24cb000u) { /* sub fp, ip, #K (APCS frame) */
        if ((w & 0xffffd800u) != 0xe92dd800u)
            return 0; /* push {..., fp, ip, lr, pc} */
        w = p[-1];
        if ((w & 0xfffffff0u) == 0xe92d0000u || w == 0xe52d3004u || (w & 0xffffff00u) == 0xe24dd000u)
            p--; /* the argument registers */
        if (p[-1] != 0xe1a0c00du)
            return 0; /* mov ip, sp */
        f->entry_sp = fp + arm_imm(set);
        f->lr_slot = (uintptr_t *)fp - 1;
        return 1;
    }
    if ((set & 0xfffff000u) != 0xe28db000u)
        return 0; /* add fp, sp, #K */
    uint32_t list;
    if (w == 0xe52db004u) /* str fp, [sp, #-4]! */
        list = 1u << 11;
    else if ((w & 0xffff0000u) == 0xe92d0000u) /* push {list} */
        list = w & 0xffff;
    else
        return 0;
    /* fp and lr are pushed highest, and fp points at the highest word */
    if (!(list & (1u << 11)) || (list & 0xb000u) ||
        arm_imm(set) != vpush + 4u * (uint32_t)(__builtin_popcount(list) - 1))
        return 0;
    w = p[-1];
    uint32_t pretend = 0;
    if ((w & 0xfffffff0u) == 0xe92d0000u) /* push {rN-r3} */
        pretend = 4u * (uint32_t)__builtin_popcount(w & 15);
    else if (w == 0xe52d3004u) /* str r3, [sp, #-4]! */
        pretend = 4;
    else if ((w & 0xffffff00u) == 0xe24dd000u && (w & 0xff) <= 16) /* sub sp, sp, #P */
        pretend = w & 0xff;
    f->entry_sp = fp + 4 + pretend;
    f->lr_slot = list & (1u << 14) ? (uintptr_t *)fp : NULL;
    return 1;
}

/* Said once per cause, on stderr, when the first such function is called: a program
 * the tracer cannot follow records nothing, and the user learns which flag to add.
 * Also appended to the file TRAZA_RT_NOTE names (traza record sets it), so that the
 * recorder knows the reason was given and does not add a vaguer guess of its own. */
static void TZ_NOINSTR arm_untraced(int thumb, uintptr_t func)
{
    static int said[2];
    if (__atomic_exchange_n(&said[thumb], 1, __ATOMIC_RELAXED))
        return;
    char msg[256];
    int n = thumb ? snprintf(msg, sizeof msg,
                             "traza-rt: the program was compiled as Thumb: add -marm (Thumb -pg frames do not "
                             "say where the return address is; the -pg call at %#lx and the other Thumb "
                             "ones are not traced)\n",
                             (unsigned long)func)
                  : snprintf(msg, sizeof msg,
                             "traza-rt: frame pointers are missing: add -fno-omit-frame-pointer (the -pg "
                             "call at %#lx and the others in functions without one are not traced)\n",
                             (unsigned long)func);
    if (n <= 0)
        return;
    size_t len = (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1;
    if (write(2, msg, len) < 0)
        return;
    const char *note = getenv("TRAZA_RT_NOTE");
    int fd = note && *note ? open(note, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    if (fd >= 0) {
        if (write(fd, msg, len) < 0) {
            /* the reason is on stderr already */
        }
        close(fd);
    }
}

void tz_arm_enter(uintptr_t self, uintptr_t *stacked, uintptr_t *fp)
{
    tz_thread *t = tz_plat_thread();
    if (!t)
        return;
    if (self & 1) {
        arm_untraced(1, (self & ~(uintptr_t)1) - 6); /* Thumb: push {lr} is 2 bytes, bl 4 */
        return;
    }
    tz_arm_frame f;
    uintptr_t ret = *stacked;
    /* fp is above the site's stack pointer, within this frame */
    if ((uintptr_t)fp <= (uintptr_t)stacked || (uintptr_t)fp - (uintptr_t)stacked > (1u << 20) ||
        !arm_frame(self, (uintptr_t)fp, &f) || (f.lr_slot && *f.lr_slot != ret)) {
        arm_untraced(0, self - 8);
        return;
    }
    /* self - 4: the bl instruction, inside the function. The frame is identified by
     * the word below the entry stack pointer, as for the other hooks. */
    if (tz_enter(t, self - 4, f.entry_sp - 4, ret)) {
        if (f.lr_slot)
            *f.lr_slot = (uintptr_t)&tz_exit_tramp; /* loaded into pc or lr by the epilogue */
        *stacked = (uintptr_t)&tz_exit_tramp; /* popped into lr (a function that keeps it there returns with it) */
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
