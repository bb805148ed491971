/* 32-bit ARM Linux hooks. Two ways in:
 * - -finstrument-functions (ARM or Thumb-2 code): __cyg_profile_func_enter/exit in
 *   the platform glue; exits come from the compiler.
 * - -pg -marm -fno-omit-frame-pointer: gcc calls __gnu_mcount_nc after the prologue
 *   as `push {lr}; bl __gnu_mcount_nc`: [sp] = the function's return address (lr),
 *   lr = the return into the function, fp = sp at entry - 4 (ARM frames). The hook
 *   replaces the return address where the function will take it from: the frame slot
 *   [fp] when the prologue saved lr there, else (a leaf) the stacked copy that is
 *   popped back into lr; the function then returns into tz_exit_tramp.
 *   Thumb-2 frames (r7 at the bottom of the frame) do not say where lr was saved:
 *   Thumb-2 code uses -finstrument-functions. */
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
