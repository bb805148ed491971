/* The bare-metal Cortex-M runtime as one translation unit (no libc). */
#include "core.c"
#include "baremetal.c"
#include "../arch/cortex_m/arch.c"
