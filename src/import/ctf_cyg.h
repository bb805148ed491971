/* Internal: the call stacks of LTTng's function-instrumentation events
 * (lttng_ust_cyg_profile[_fast]:func_entry / func_exit, from gcc
 * -finstrument-functions) for the CTF importer. Each entry/exit pair of a thread
 * becomes a state named for the function (level = call depth on the thread's
 * producer), beside the punctual events the importer writes for every CTF event. */
#ifndef TZ_CTF_CYG_H
#define TZ_CTF_CYG_H

#include <stdint.h>
#include "traza/import.h"

enum { TZ_CYG_NONE, TZ_CYG_ENTRY, TZ_CYG_EXIT };

typedef struct tz_cyg tz_cyg;

/* TZ_CYG_ENTRY / TZ_CYG_EXIT for the event classes of the two cyg-profile providers,
 * else TZ_CYG_NONE. */
int tz_cyg_kind(const char *event_class);
/* Functions are named from the symbol table `symbols` (nm's output: the symbol at
 * that exact address), else from the ELF program `elf` when it holds the address (at
 * its link addresses), else "0x..." (both NULL: always). NULL on error (err set). */
tz_cyg *tz_cyg_new(traza_writer *w, const char *path, const char *symbols, const char *elf, traza_err *err);
/* One entry or exit on the thread whose producer is `thread`. An exit without its
 * address (the _fast provider) closes the innermost open call; one with an address
 * closes that function's innermost open call (calls opened inside it whose exits
 * were not recorded end with it). 0 or -1 (err set). */
int tz_cyg_event(tz_cyg *g, int kind, int32_t thread, int64_t ts, int has_addr, uint64_t addr);
/* Closes the calls still open at their thread's last event. 0 or -1. */
int tz_cyg_finish(tz_cyg *g);
/* Calls written; calls without a recorded exit (ended at their thread's last event
 * or with an enclosing call); exits matching no open call (no call written). */
int64_t tz_cyg_calls(const tz_cyg *g);
int64_t tz_cyg_unended(const tz_cyg *g);
int64_t tz_cyg_unmatched_exits(const tz_cyg *g);
void tz_cyg_free(tz_cyg *g);

#endif
