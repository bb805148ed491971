/* The Linux x86_64 runtime as one translation unit, so the hot path (hook -> TLS ->
 * encode) is inlined without LTO. */
#define _GNU_SOURCE
#include "core.c"
#include "linux.c"
#include "../arch/x86_64/arch.c"
#include "unwind.c"
