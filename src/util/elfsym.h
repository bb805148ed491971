/* The symbol table of an ELF file read with libelf, for the library's ELF readers
 * (traza/elf.h, the rtdump importer, the patcher). */
#ifndef TZ_ELFSYM_H
#define TZ_ELFSYM_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>
#include "traza/error.h"

typedef struct tz_elfsym {
    const char *name;   /* in the Elf's string table: lives as long as the Elf */
    uint64_t value;     /* st_value (EM_ARM functions: bit 0 = Thumb) */
    uint64_t addr;      /* the address: value without the Thumb bit */
    uint64_t size;
    unsigned shndx;     /* st_shndx: never SHN_UNDEF */
    unsigned type;      /* STT_* */
} tz_elfsym;

typedef struct tz_elfsyms {
    tz_elfsym *v;       /* the defined, named symbols in symbol-table order */
    size_t n;
    size_t *by_addr;    /* indexes of the functions (STT_FUNC) by address */
    size_t nfunc;
    uint64_t addr_mask; /* EM_ARM: ~1 (the Thumb bit), else ~0 */
} tz_elfsyms;

/* Reads the SHT_SYMTAB of e; path names the file in errors. A file without one
 * (stripped) fails with TRAZA_E_FORMAT. */
int tz_elfsyms_read(Elf *e, const char *path, tz_elfsyms *s, traza_err *err);
/* The same, falling back to the dynamic symbol table (SHT_DYNSYM: the exported
 * functions) of a stripped shared object or program. */
int tz_elfsyms_read_any(Elf *e, const char *path, tz_elfsyms *s, traza_err *err);
void tz_elfsyms_free(tz_elfsyms *s);
/* 1 if the dynamic symbol table of e has an undefined symbol called name (the
 * program imports it), else 0. */
int tz_elf_imports(Elf *e, const char *name);
/* The first defined symbol called name, or NULL. */
const tz_elfsym *tz_elfsyms_find(const tz_elfsyms *s, const char *name);
/* The innermost function containing addr (a size 0 covers one byte; on EM_ARM bit 0
 * of addr is ignored), or NULL. */
const tz_elfsym *tz_elfsyms_func_at(const tz_elfsyms *s, uint64_t addr);

#endif
