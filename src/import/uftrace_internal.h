/* Internal: parsers of the uftrace importer, shared with its fuzz harness. */
#ifndef TZ_UFTRACE_INTERNAL_H
#define TZ_UFTRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "traza/error.h"

typedef int (*tz_uftrace_sym_fn)(void *user, uint64_t addr, uint64_t size, const char *name, size_t nlen);
/* Parses a .sym file ("ADDR [SIZE] TYPE NAME" lines, '#' comments), which is also
 * nm's output (its "U NAME" lines of undefined symbols are passed over). */
int tz_uftrace_parse_syms(const char *path, const char *text, size_t len, tz_uftrace_sym_fn fn, void *user, traza_err *err);
/* Checks the binary header of an info file; returns the header size (text follows). */
int tz_uftrace_parse_info_header(const char *path, const unsigned char *data, size_t len, uint64_t *feat, traza_err *err);

#endif
