/* traza — the function symbols of an ELF program (32/64-bit, either byte order),
 * to name code addresses: the function containing an address, and the offset in it.
 * On 32-bit ARM (EM_ARM) bit 0 of a function symbol and of a looked-up address is the
 * Thumb bit, not an address bit. */
#ifndef TRAZA_ELF_H
#define TRAZA_ELF_H

#include <stdint.h>
#include "traza/error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)
/* Experimental API: it may change between minor versions; its declarations are seen
 * only with TRAZA_EXPERIMENTAL_API defined (doc/architecture.md, "Stable and
 * experimental API"). */
#ifdef TRAZA_EXPERIMENTAL_API

typedef struct traza_elf traza_elf;

/* Reads the symbol table (.symtab) of the ELF file at path. NULL and err set if the
 * file cannot be read, is not ELF, or has no symbol table (stripped). */
traza_elf *traza_elf_open(const char *path, traza_err *err);
/* The name of the function containing addr (a symbol of size 0 covers its first
 * byte), *off set to addr minus the function's start; NULL if none contains addr.
 * The name lives as long as e. */
const char *traza_elf_func_at(const traza_elf *e, uint64_t addr, uint64_t *off);
/* The address of the first defined symbol called name (any type; the Thumb bit of a
 * function cleared): 0, or -1 (err says the symbol is missing). */
int traza_elf_symbol(const traza_elf *e, const char *name, uint64_t *addr, traza_err *err);
/* As traza_elf_symbol, with the symbol's size in bytes (st_size; 0 when not given). */
int traza_elf_symbol_sized(const traza_elf *e, const char *name, uint64_t *addr, uint64_t *size, traza_err *err);
void traza_elf_close(traza_elf *e);

#endif /* TRAZA_EXPERIMENTAL_API */
#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
