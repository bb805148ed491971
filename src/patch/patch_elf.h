/* Finding and rewriting the entry-hook call sites of an x86_64 or 32-bit ARM ELF
 * program (libelf; ARM: patch_arm.c). */
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
    int isa;           /* TZ_ISA_*: x86_64 (0), ARM or Thumb-2 code */
    int form;          /* ARM: TZ_FORM_PG (push {lr}; bl __gnu_mcount_nc) or TZ_FORM_PFE */
} tz_site;

enum { TZ_ISA_X86_64 = 0, TZ_ISA_ARM = 1, TZ_ISA_THUMB = 2 };
enum { TZ_FORM_PG = 0, TZ_FORM_PFE = 1 };

typedef struct tz_sites {
    tz_site *v;
    size_t n;
    uint64_t target;   /* the hook (__fentry__, or its GOT slot; ARM: bit 0 = Thumb); 0 = unknown */
    int kind;          /* how the hook is called: 0 e8 rel32, 1 67 e8 rel32, 2 ff 15 rel32 */
    int thumb_only;    /* ARM: an M-profile core (Cortex-M: Thumb code only, no blx) */
} tz_sites;

int tz_sites_find(const char *path, tz_sites *s, traza_err *err);
/* Copies `in` to `out` with the sites rewritten to their `want` state. */
int tz_sites_write(const char *in, const char *out, const tz_sites *s, traza_err *err);
void tz_sites_free(tz_sites *s);

/* 32-bit ARM (patch_arm.c): the sites of an EM_ARM ELF with symbol table syms, and
 * one site's rewrite at p. */
#include "util/elfsym.h"
int tz_arm_sites_find(Elf *e, const tz_elfsyms *syms, const char *path, tz_sites *s, traza_err *err);
int tz_arm_site_put(uint8_t *p, const tz_site *st, const tz_sites *s, const char *in, traza_err *err);
/* 1 when the build attributes (.ARM.attributes, the "aeabi" Tag_CPU_arch_profile)
 * name an M-profile core, 0 otherwise (absent or unreadable: nothing is assumed). */
int tz_arm_is_mprofile(const uint8_t *attr, size_t n);

#endif
