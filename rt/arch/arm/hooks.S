/* 32-bit ARM Linux hooks. Two ways in:
 * - -finstrument-functions (ARM or Thumb-2 code): __cyg_profile_func_enter/exit in
 *   the platform glue; exits come from the compiler.
 * - -pg -marm -fno-omit-frame-pointer: gcc calls __gnu_mcount_nc after the prologue
 *   as `push {lr}; bl __gnu_mcount_nc`: [sp] = the function's return address (lr),
 *   lr = the return into the function, fp = the highest word the prologue pushed (the
 *   saved lr, or the saved fp of a function that keeps lr in its register). The C side
 *   (arch.c) reads the prologue to find the stack pointer at entry (fp + 4 plus the
 *   argument registers a variadic function pushes first) and replaces the return
 *   address where the function will take it from: the frame slot [fp] when the
 *   prologue saved lr there, and the stacked copy that is popped back into lr; the
 *   function then returns into tz_exit_tramp.
 *   Thumb-2 frames (r7 at the bottom of the frame) do not say where lr was saved, so
 *   Thumb-2 -pg code is not traced (the runtime says once to add -marm);
 *   `traza patch` still switches its sites off (`ldr.w lr, [sp], #4`) and on.
 * - -fpatchable-function-entry (Thumb-2: =3, three 16-bit `nop`s; ARM: =2, two `nop`s)
 *   at the very start of each function; `traza patch --enable` turns the selected ones
 *   into `push {lr}; bl/blx tz_pfe_entry` (Thumb 2+4 bytes, ARM 4+4). The hook runs
 *   BEFORE the prologue: [sp] = the function's return address (lr at entry), lr = the
 *   return into the function (bit 0 set for Thumb). It saves the original on the shadow
 *   stack, replaces the stacked copy by tz_exit_tramp (ARM code, even address: the
 *   function's `bx lr` / `pop {pc}` interworks into ARM state), pops it into lr and
 *   returns into the function, which saves and restores lr as it likes and finally
 *   returns into the trampoline. Argument registers r0-r3 and d0-d7 are preserved. */
	.syntax unified
	.arm
	.text
	.globl __gnu_mcount_nc
	.type __gnu_mcount_nc, %function
	.p2align 2
__gnu_mcount_nc:
	push {r0-r4, ip, lr}      /* 7 words: the stacked return address is at sp + 28 */
	mov r0, lr                /* the return into the traced function */
	add r1, sp, #28
	mov r2, fp
	mov r4, sp
	bic sp, sp, #7            /* AAPCS: 8-byte aligned stack for C */
	bl tz_arm_enter
	mov sp, r4
	pop {r0-r4, ip, lr}
	mov ip, lr
	pop {lr}                  /* the (maybe replaced) return address of the function */
	bx ip
	.size __gnu_mcount_nc, .-__gnu_mcount_nc

	.globl tz_pfe_entry
	.type tz_pfe_entry, %function
	.p2align 2
tz_pfe_entry:
	push {r0-r4, ip, lr}      /* 7 words + the site's push: sp 8-byte aligned again */
	vpush {d0-d7}             /* hard-float arguments (the C code and libc may use VFP) */
	mov r0, lr                /* the return into the function (Thumb bit kept) */
	add r1, sp, #92           /* the stacked return address of the function */
	bl tz_pfe_enter
	vpop {d0-d7}
	pop {r0-r4, ip, lr}
	mov ip, lr
	pop {lr}                  /* the (maybe replaced) return address of the function */
	bx ip
	.size tz_pfe_entry, .-tz_pfe_entry

	.globl tz_exit_tramp
	.type tz_exit_tramp, %function
	.p2align 2
tz_exit_tramp:
	push {r0-r4, lr}          /* return values r0-r3 (lr: padding) */
	vpush {d0-d1}             /* hard-float return values */
	add r0, sp, #40           /* the stack pointer the function returned with */
	mov r4, sp
	bic sp, sp, #7
	bl tz_arm_exit
	mov sp, r4
	mov ip, r0                /* the original return address (ARM or Thumb) */
	vpop {d0-d1}
	pop {r0-r4, lr}
	bx ip
	.size tz_exit_tramp, .-tz_exit_tramp
	.section .note.GNU-stack,"",%progbits
