/* traza diff: the structure sections — cycle types of two .tzg files, sequence-search
 * patterns of two traces. */
#ifndef TZ_CLI_DIFF_STRUCTURE_H
#define TZ_CLI_DIFF_STRUCTURE_H

#include "cli/cli.h"

/* traza diff A.tzg B.tzg: the cycle types of the two grammars (loop_header: an address,
 * an event type name or auto, NULL for the ones the files store; elf: NULL, or A's and
 * B's programs). An exit status. */
int diff_grammars(traza_cli *cli, const char *a, const char *b, const char *loop_header, const char *const *elf,
                  const traza_diff_opts *o, long top);
/* The patterns section of A B: text (at most top rows) or, when json, a JSON array.
 * NULL with err set. */
char *diff_patterns_section(traza_trace *a, traza_trace *b, const char *const *patterns, size_t npatterns,
                            const traza_diff_opts *o, int json, long top, traza_err *err);

#endif
