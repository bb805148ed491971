/* x86_64 entry hooks and the exit trampoline of the traza runtime.
 *
 * __fentry__ (gcc -pg -mfentry): called as the first instruction of a function, so
 * 8(%rsp) is the slot of the function's own return address.
 *
 * Fast paths (assembly, no call into C): the thread has its state, recording is on,
 * the block has room (p < end; TZ_RESERVE bytes past `end` hold any one event), the
 * shadow stack is not full and nothing has to be unwound (entry: the slot lies below
 * the innermost open frame's slot -- no longjmp, no tail call; exit: the innermost
 * open frame is the one returning), and the tick delta is in [0, 2^61). They write the
 * same bytes as the C code (core.c: varint head, zigzag varint function delta) and
 * keep the same state. Everything else takes the slow path: the C code (core.c), which
 * also hands blocks over when one fills.
 *
 * Signals: a fast path runs with the thread's `busy` word set (from its test to its
 * last store), so a signal handler's hooks that land inside it queue their records
 * (the C path, core.c); the fast path then finds `qn` non-zero and has them written
 * (tz_x86_drain) after its own record. busy and qn are tested with one compare.
 *
 * Slow entry: saves the argument registers, calls tz_x86_enter(self, slot) which may
 * replace the return address by tz_exit_tramp. The runtime's C code is built with
 * -mgeneral-regs-only, so vector registers need no saving.
 * tz_exit_tramp: the traced function returns here; return values (rax, rdx; xmm0/1
 * untouched) are kept, every other general register is dead (caller-saved). Slow
 * exit: tz_x86_exit(sp) gives back the original return address. */
#include "offsets.h"

	.hidden tz_rt_g
/* -DTZ_EXP_FAKE_TSC: a fake clock (+64 per event), only to measure what rdtsc costs */
#ifdef TZ_EXP_FAKE_TSC
.macro TZ_TICKS
	movq TZ_OFF_LAST_TSC(%r11), %rax
	addq $64, %rax
	movq %rax, %rdx
	shrq $32, %rdx
	movl %eax, %eax
.endm
#else
.macro TZ_TICKS
	rdtsc
.endm
#endif
	.hidden tz_tls_thread
	.hidden tz_exit_tramp

/* LEB128 varint of \v (a 64-bit register; \v8/\v32: its low byte/dword) at (%rsi),
 * advancing %rsi; \t32/\t8 (%ecx/%cl) is scratch. */
.macro VARINT v, v32, v8
	cmpq $0x80, \v
	jb 8f
	cmpq $0x4000, \v
	jae 7f
	movl \v32, %ecx          /* two bytes: (v & 0x7f) | 0x80, v >> 7 */
	shll $1, %ecx
	movb \v8, %cl
	orb $0x80, %cl
	movw %cx, (%rsi)
	addq $2, %rsi
	jmp 9f
7:	movl \v32, %ecx
	orb $0x80, %cl
	movb %cl, (%rsi)
	incq %rsi
	shrq $7, \v
	cmpq $0x80, \v
	jae 7b
8:	movb \v8, (%rsi)
	incq %rsi
9:
.endm

	.text
	.globl __fentry__
	.type __fentry__, @function
	.p2align 4
__fentry__:
	movq tz_tls_thread@gottpoff(%rip), %r11
	movq %fs:(%r11), %r11                /* t */
	testq %r11, %r11
	jz .Lenter_slow
	cmpq $0, TZ_OFF_BUSY(%r11)           /* busy or records queued by a handler */
	jne .Lenter_slow
	movl $1, TZ_OFF_BUSY(%r11)
	movl TZ_OFF_DEPTH(%r11), %r10d
	cmpl $256, %r10d
	jae .Lenter_unbusy
	cmpl $0, tz_rt_g+TZ_RT_OFF_ENABLED(%rip)
	je .Lenter_unbusy
	/* the red zone below this leaf's stack pointer is free */
	movq %rax, -8(%rsp)
	movq %rdx, -16(%rsp)
	movq %rcx, -24(%rsp)
	movq %rsi, -32(%rsp)
	leaq (%r10,%r10,2), %r10
	leaq TZ_OFF_STACK(%r11,%r10,8), %r10 /* &stack[depth] */
	leaq 8(%rsp), %rcx                   /* slot */
	cmpq %rcx, 8-TZ_SHADOW_SIZE(%r10)    /* below the innermost frame's slot? */
	jbe .Lenter_bail
	movq TZ_OFF_P(%r11), %rsi
	cmpq TZ_OFF_END(%r11), %rsi
	jae .Lenter_bail
	TZ_TICKS
	shlq $32, %rdx
	orq %rdx, %rax                       /* now */
	movq %rax, %rdx
	subq TZ_OFF_LAST_TSC(%r11), %rdx     /* delta */
	movq %rdx, %rcx
	shrq $61, %rcx
	jnz .Lenter_bail
	movq %rax, TZ_OFF_LAST_TSC(%r11)
	leaq 0(,%rdx,4), %rax                /* delta << 2 | TZR_K_ENTRY */
	VARINT %rax, %eax, %al
	movq (%rsp), %rax
	decq %rax                            /* func: inside the hook's call */
	movq %rax, %rdx
	subq TZ_OFF_LAST_FUNC(%r11), %rdx
	movq %rax, TZ_OFF_LAST_FUNC(%r11)
	leaq (%rdx,%rdx), %rcx               /* zigzag */
	sarq $63, %rdx
	xorq %rcx, %rdx
	VARINT %rdx, %edx, %dl
	movq %rsi, TZ_OFF_P(%r11)
	incq TZ_OFF_EVENTS(%r11)
	incl TZ_OFF_DEPTH(%r11)
	movq 8(%rsp), %rcx
	movq %rcx, 0(%r10)                   /* shadow: ret, slot, func */
	leaq 8(%rsp), %rcx
	movq %rcx, 8(%r10)
	movq %rax, 16(%r10)
	movl $0, TZ_OFF_BUSY(%r11)
	cmpl $0, TZ_OFF_QN(%r11)
	jne .Lenter_drain
.Lenter_done:
	movq -8(%rsp), %rax
	movq -16(%rsp), %rdx
	movq -24(%rsp), %rcx
	movq -32(%rsp), %rsi
	/* Instead of returning into the function and overwriting its return address,
	 * call its body from here: the call puts the address of tz_exit_tramp (the next
	 * instruction) into the same slot, and the function's `ret` is then predicted
	 * by the CPU's return stack (a return into an overwritten slot never is). */
	popq %r11                            /* the function's body */
	leaq 8(%rsp), %rsp                   /* its return address is in the shadow stack */
	jmp .Lcall_body
.Lenter_drain:	/* a handler queued records during ours: write them (keeps the red zone) */
	subq $32, %rsp
	pushq %rdi
	pushq %r8
	pushq %r9
	movq %r11, %rdi
	call tz_x86_drain
	popq %r9
	popq %r8
	popq %rdi
	addq $32, %rsp
	jmp .Lenter_done
.Lenter_bail:
	movq -8(%rsp), %rax
	movq -16(%rsp), %rdx
	movq -24(%rsp), %rcx
	movq -32(%rsp), %rsi
.Lenter_unbusy:
	movl $0, TZ_OFF_BUSY(%r11)
.Lenter_slow:
	pushq %rdi
	pushq %rsi
	pushq %rdx
	pushq %rcx
	pushq %r8
	pushq %r9
	pushq %rax
	subq $8, %rsp
	movq 64(%rsp), %rdi      /* return address into the traced function */
	leaq 72(%rsp), %rsi      /* the slot of its own return address */
	call tz_x86_enter
	testl %eax, %eax
	jnz 2f
1:	addq $8, %rsp
	popq %rax
	popq %r9
	popq %r8
	popq %rcx
	popq %rdx
	popq %rsi
	popq %rdi
	ret
2:	/* first event of this thread: the set-up calls libc, keep the vector args */
	subq $128, %rsp
	movdqu %xmm0, 0(%rsp)
	movdqu %xmm1, 16(%rsp)
	movdqu %xmm2, 32(%rsp)
	movdqu %xmm3, 48(%rsp)
	movdqu %xmm4, 64(%rsp)
	movdqu %xmm5, 80(%rsp)
	movdqu %xmm6, 96(%rsp)
	movdqu %xmm7, 112(%rsp)
	call tz_x86_slow
	movdqu 0(%rsp), %xmm0
	movdqu 16(%rsp), %xmm1
	movdqu 32(%rsp), %xmm2
	movdqu 48(%rsp), %xmm3
	movdqu 64(%rsp), %xmm4
	movdqu 80(%rsp), %xmm5
	movdqu 96(%rsp), %xmm6
	movdqu 112(%rsp), %xmm7
	addq $128, %rsp
	testl %eax, %eax
	jz 1b
	movq 64(%rsp), %rdi
	leaq 72(%rsp), %rsi
	call tz_x86_enter
	jmp 1b
	.p2align 4
.Lcall_body:
	call *%r11                           /* returns to tz_exit_tramp, just below */
	.size __fentry__, .-__fentry__

	.globl tz_exit_tramp
	.type tz_exit_tramp, @function
tz_exit_tramp:
	movq tz_tls_thread@gottpoff(%rip), %r11
	movq %fs:(%r11), %r11                /* t (it exists: its entry hooked this exit) */
	cmpq $0, TZ_OFF_BUSY(%r11)
	jne .Lexit_slow
	movl $1, TZ_OFF_BUSY(%r11)
	movl TZ_OFF_DEPTH(%r11), %r10d
	leaq (%r10,%r10,2), %r10
	leaq TZ_OFF_STACK-TZ_SHADOW_SIZE(%r11,%r10,8), %r10 /* &stack[depth - 1] */
	leaq -8(%rsp), %rcx
	cmpq %rcx, 8(%r10)                   /* the innermost frame returns? */
	jne .Lexit_unbusy
	cmpl $0, tz_rt_g+TZ_RT_OFF_ENABLED(%rip)
	je .Lexit_unbusy
	movq TZ_OFF_P(%r11), %rsi
	cmpq TZ_OFF_END(%r11), %rsi
	jae .Lexit_unbusy
	movq %rax, %r8
	movq %rdx, %r9
	TZ_TICKS
	shlq $32, %rdx
	orq %rdx, %rax
	movq %rax, %rdx
	subq TZ_OFF_LAST_TSC(%r11), %rdx
	movq %rdx, %rcx
	shrq $61, %rcx
	jnz .Lexit_bail
	movq %rax, TZ_OFF_LAST_TSC(%r11)
	leaq 1(,%rdx,4), %rax                /* delta << 2 | TZR_K_EXIT */
	VARINT %rax, %eax, %al
	movq %rsi, TZ_OFF_P(%r11)
	incq TZ_OFF_EVENTS(%r11)
	movq (%r10), %r10                    /* the original return address, then pop */
	decl TZ_OFF_DEPTH(%r11)
	movl $0, TZ_OFF_BUSY(%r11)
	cmpl $0, TZ_OFF_QN(%r11)
	jne .Lexit_drain
	movq %r8, %rax
	movq %r9, %rdx
	jmp *%r10
.Lexit_drain:	/* the caller's frame is above %rsp: the space below is free */
	pushq %r10
	pushq %r8
	pushq %r9
	subq $8, %rsp
	movq %r11, %rdi
	call tz_x86_drain
	addq $8, %rsp
	popq %rdx
	popq %rax
	popq %r10
	jmp *%r10
.Lexit_bail:
	movq %r8, %rax
	movq %r9, %rdx
.Lexit_unbusy:
	movl $0, TZ_OFF_BUSY(%r11)
.Lexit_slow:
	pushq %rax
	pushq %rdx
	leaq 16(%rsp), %rdi      /* the stack pointer after the traced function's ret */
	call tz_x86_exit
	movq %rax, %r11
	popq %rdx
	popq %rax
	jmp *%r11
	.size tz_exit_tramp, .-tz_exit_tramp
	.section .note.GNU-stack,"",@progbits
