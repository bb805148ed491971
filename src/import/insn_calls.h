/* Function calls found in an instruction trace (Tarmac, ITF text): a call instruction
 * executed (BL, BLR, BLX, and the conditional BL<cc>/BLX<cc>) opens a frame whose
 * function starts at the next executed instruction; the frame closes when execution
 * reaches its return address (the call's address + 4, or + 2 after a 16-bit Thumb
 * BLX): a RET, a BX LR, a POP {PC} alike, whatever the instruction set. Reaching the
 * return address of a frame further down (longjmp, an exception's unwinding) closes
 * the frames above it too. Each frame becomes a state of the core named by its
 * function (its symbol with an ELF, else its address "0x2109bc"), nested by level: the
 * call-stack views read it like a recorded call. */
#ifndef TZ_INSN_CALLS_H
#define TZ_INSN_CALLS_H

#include <stddef.h>
#include <stdint.h>
#include "traza/import.h"
#include "import/csvutil.h"
#include "util/elfsym.h"

typedef struct tz_insn_frame {
    uint64_t call_pc;   /* the call instruction: the frame returns to call_pc + 2 or + 4 */
    uint64_t func;      /* the first instruction of the called function */
    int64_t start;
} tz_insn_frame;

typedef struct tz_insn_calls {
    traza_writer *w;
    traza_err *err;
    int32_t producer;
    tz_insn_frame *st;
    size_t n, cap;
    int pending;        /* the last instruction was a call */
    uint64_t pending_pc;
    int64_t last_ts;
    tz_namecache types; /* function name -> event type */
    const char *const *reserved; /* the importer's own type names (NULL-ended): a function
                                    of one of these names is named NAME() */
    int elf_fd;
    Elf *elf;
    tz_elfsyms syms;    /* nfunc 0: no ELF */
    int64_t ncalls, open_at_end;
} tz_insn_calls;

/* Starts finding the calls of `producer` (one finder per core); elf: a program to
 * name the functions with, or NULL. 0 or -1 (err set: the ELF). */
int tz_insn_calls_init(tz_insn_calls *c, traza_writer *w, int32_t producer, const char *elf, traza_err *err);
/* Is this mnemonic (the instruction's first word, any case, .W/.N ignored) a call? */
int tz_insn_is_call(const char *mnemonic, size_t len);
/* One executed instruction (in time order): 0 or -1 (err set). */
int tz_insn_calls_step(tz_insn_calls *c, int64_t ts, uint64_t pc, int is_call);
/* The end: frames still open end at the last instruction's time (counted in
 * open_at_end). 0 or -1. */
int tz_insn_calls_finish(tz_insn_calls *c);
void tz_insn_calls_free(tz_insn_calls *c);
/* The trace parameters calls.found and (when some are) calls.open_at_end. 0 or -1. */
int tz_insn_calls_report(traza_writer *w, int64_t found, int64_t open_at_end, traza_err *err);

#endif
