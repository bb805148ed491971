/* Finding and rewriting the entry-hook call sites of an x86_64 ELF program (libelf). */
#ifndef TZ_PATCH_ELF_H
#define TZ_PATCH_ELF_H

#include <stddef.h>
#include <stdint.h>
#include "traza/error.h"

typedef struct tz_site {
    char *name;        /* the function */
    uint64_t addr;     /* the call (or NOP) instruction */
    uint64_t off;      /* its file offset */
    int len;           /* 5 (call rel32) or 6 (addr32 call rel32, call *GOT(%rip)) */
    int enabled;       /* 1: call, 0: NOP */
    int want;          /* the state to write */
} tz_site;

typedef struct tz_sites {
    tz_site *v;
    size_t n;
    uint64_t target;   /* the hook (__fentry__, or its GOT slot); 0 = unknown */
    int kind;          /* how the hook is called: 0 e8 rel32, 1 67 e8 rel32, 2 ff 15 rel32 */
} tz_sites;

int tz_sites_find(const char *path, tz_sites *s, traza_err *err);
/* Copies `in` to `out` with the sites rewritten to their `want` state. */
int tz_sites_write(const char *in, const char *out, const tz_sites *s, traza_err *err);
void tz_sites_free(tz_sites *s);

#endif
