/* x86_64 entry hooks and the exit trampoline of the traza runtime.
 *
 * __fentry__ (gcc -pg -mfentry): called as the first instruction of a function, so
 * 8(%rsp) is the slot of the function's own return address. It saves the argument
 * registers, calls tz_x86_enter(self, slot) which may replace the return address by
 * tz_exit_tramp. The runtime's C code is built with -mgeneral-regs-only, so vector
 * registers need no saving.
 * tz_exit_tramp: the traced function returns here; return values (rax, rdx; xmm0/1
 * untouched) are kept, tz_x86_exit(sp) gives back the original return address. */
	.text
	.globl __fentry__
	.type __fentry__, @function
	.p2align 4
__fentry__:
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
	.size __fentry__, .-__fentry__

	.globl tz_exit_tramp
	.type tz_exit_tramp, @function
	.p2align 4
tz_exit_tramp:
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
