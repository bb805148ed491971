/* Internal: the 32-bit ARM half of the site finder and rewriter of traza/patch.h
 * (patch_arm.c), called by patch_elf.c (x86_64, libelf). */
#ifndef TZ_PATCH_ELF_H
#define TZ_PATCH_ELF_H

#include <stddef.h>
#include <stdint.h>
#include "traza/error.h"
#include "traza/patch.h"
#include "util/elfsym.h"

/* The sites of an EM_ARM ELF with symbol table syms, and one site's rewrite at p. */
int tz_arm_sites_find(Elf *e, const tz_elfsyms *syms, const char *path, traza_patch_sites *s, traza_err *err);
int tz_arm_site_put(uint8_t *p, const traza_patch_site *st, const traza_patch_sites *s, const char *in, traza_err *err);
/* 1 when the build attributes (.ARM.attributes, the "aeabi" Tag_CPU_arch_profile)
 * name an M-profile core, 0 otherwise (absent or unreadable: nothing is assumed). */
int tz_arm_is_mprofile(const uint8_t *attr, size_t n);

#endif
