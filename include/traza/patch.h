/* traza — selective instrumentation of a linked program without recompiling: the
 * entry-hook call sites of an x86_64 or 32-bit ARM ELF program (built with -pg
 * -mfentry, -pg on ARM, or -fpatchable-function-entry), each switched on (a call of
 * the hook) or off (NOPs) in a patched copy; and the overhead budget that picks the
 * functions to leave untraced from an earlier recording's call counts. */
#ifndef TRAZA_PATCH_H
#define TRAZA_PATCH_H

#include <stddef.h>
#include <stdint.h>
#include "traza/error.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)
/* Experimental API: it may change between minor versions; its declarations are seen
 * only with TRAZA_EXPERIMENTAL_API defined (doc/architecture.md, "Stable and
 * experimental API"). */
#ifdef TRAZA_EXPERIMENTAL_API

/* The instruction set of a site's code. */
enum { TRAZA_PATCH_ISA_X86_64 = 0, TRAZA_PATCH_ISA_ARM = 1, TRAZA_PATCH_ISA_THUMB = 2 };
/* How an ARM site calls its hook: push {lr}; bl __gnu_mcount_nc (-pg), or the NOPs of
 * -fpatchable-function-entry turned into push {lr}; bl tz_pfe_entry. */
enum { TRAZA_PATCH_FORM_PG = 0, TRAZA_PATCH_FORM_PFE = 1 };

/* One function's site. A caller reads name, addr and enabled and sets want; the other
 * fields say how traza_patch_write rewrites it. */
typedef struct traza_patch_site {
    char *name;        /* the function */
    uint64_t addr;     /* the call (or NOP) instruction */
    uint64_t off;      /* its file offset */
    int len;           /* 5 (call rel32) or 6 (addr32 call rel32, call *GOT(%rip)) */
    int enabled;       /* 1: call, 0: NOP */
    int want;          /* the state to write (traza_patch_sites_find sets it to enabled) */
    int isa;           /* TRAZA_PATCH_ISA_* */
    int form;          /* ARM: TRAZA_PATCH_FORM_* */
} traza_patch_site;

typedef struct traza_patch_sites {
    traza_patch_site *v;
    size_t n;
    uint64_t target;   /* the hook (__fentry__, or its GOT slot; ARM: bit 0 = Thumb); 0 = unknown */
    int kind;          /* how the hook is called: 0 e8 rel32, 1 67 e8 rel32, 2 ff 15 rel32 */
    int thumb_only;    /* ARM: an M-profile core (Cortex-M: Thumb code only, no blx) */
} traza_patch_sites;

/* The sites of the ELF program at path. */
int traza_patch_sites_find(const char *path, traza_patch_sites *s, traza_err *err);
/* Copies `in` to `out` with the sites rewritten to their `want` state. */
int traza_patch_write(const char *in, const char *out, const traza_patch_sites *s, traza_err *err);
void traza_patch_sites_free(traza_patch_sites *s);

/* What the budget estimates (traza_patch_budget). */
typedef struct traza_patch_estimate {
    double base_ns;      /* the run time without tracing: run_ns - recorded_calls x cost_ns */
    double kept_calls;   /* calls of the functions left traced */
    double overhead_pct; /* kept_calls x cost_ns / base_ns x 100 */
} traza_patch_estimate;

/* Which functions to leave untraced so that the tracing of the rest costs at most
 * budget_pct of the program's own run time. A recording of run_ns holding
 * recorded_calls traced calls of cost_ns each ran base_ns = run_ns - recorded_calls x
 * cost_ns without them; the overhead of tracing `calls` is calls x cost_ns / base_ns
 * (relative to the untraced run, never to the traced one). calls[i] are the recorded
 * calls of candidate function i; off[i] is set to 1 for the functions to leave
 * untraced, the most called first, until the overhead is at most budget_pct, and to 0
 * for the others. -1 (nothing set) when base_ns is not positive: the cost per call is
 * more than the recording allows. */
int traza_patch_budget(const int64_t *calls, size_t n, double recorded_calls, double run_ns, double cost_ns,
                       double budget_pct, unsigned char *off, traza_patch_estimate *est, traza_err *err);

#endif /* TRAZA_EXPERIMENTAL_API */
#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
