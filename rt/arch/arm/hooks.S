/* 32-bit ARM: no assembly hook. gcc's ARM -pg calls __gnu_mcount_nc only after the
 * prologue has saved lr in the frame, at a place the hook cannot know, so exits
 * cannot be hooked by return-address replacement there; the ARM runtime uses
 * -finstrument-functions (exits reported by the compiler), see arch.c. */
	.section .note.GNU-stack,"",%progbits
