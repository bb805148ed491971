/* The Linux 32-bit ARM runtime as one translation unit. */
#define _GNU_SOURCE
#include "core.c"
#include "linux.c"
#include "../arch/arm/arch.c"
