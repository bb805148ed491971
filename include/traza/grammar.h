/* traza — grammar compression of symbol sequences (program counters, event types):
 * Sequitur, ReSequitur and Cyclitur (Amiar et al., IESS 2013), the .tzg file format,
 * and analyses that read the grammar without expanding it.
 *
 * A grammar has rules 0..nrules-1; rule 0 is the start rule S. A rule body is a
 * sequence of r-pairs (symbol, repetition count) written a^n; Sequitur grammars have
 * every count 1. Symbols are any 64-bit value (terminals) or rule indexes. */
#ifndef TRAZA_GRAMMAR_H
#define TRAZA_GRAMMAR_H

#include <stddef.h>
#include <stdint.h>
#include "traza/error.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

typedef enum traza_galgo { TRAZA_G_SEQUITUR = 0, TRAZA_G_RESEQUITUR = 1, TRAZA_G_CYCLITUR = 2 } traza_galgo;

const char *traza_galgo_name(traza_galgo a);
int traza_galgo_parse(const char *name); /* -1 if unknown */

typedef struct traza_gsym {
    uint64_t value; /* terminal value, or rule index when is_rule */
    uint64_t rep;   /* repetition count >= 1 */
    uint32_t is_rule;
} traza_gsym;

typedef struct traza_grammar {
    traza_galgo algo;
    int has_loop_header;          /* a loop header is recorded (Cyclitur, or given for analyses) */
    uint64_t loop_header;
    uint32_t nrules;
    uint64_t *off;       /* nrules+1 offsets into syms: body of r is syms[off[r]..off[r+1]) */
    traza_gsym *syms;
    uint8_t *is_cycle;   /* per rule: a Cyclitur cycle rule (kept even if used once) */
    /* derived by traza_grammar_finish(): */
    uint64_t *len;       /* expansion length per rule (|S| = len[0] = |w|) */
    uint64_t *cum;       /* per body position: offset of that r-pair inside its rule */
    uint32_t depth;      /* longest path from S to a terminal, in rules */
    /* symbol names (event type names when the input was a stored trace), by value,
     * values strictly increasing; nnames = 0 when there are none. Stored in .tzg v2. */
    size_t nnames;
    uint64_t *name_vals;
    char **names;
} traza_grammar;

/* ---- building --------------------------------------------------------------- */

typedef struct traza_gbuilder traza_gbuilder;

/* loop_header is used by Cyclitur only (NULL otherwise). */
traza_gbuilder *traza_gbuilder_new(traza_galgo algo, const uint64_t *loop_header, traza_err *err);
int traza_gbuilder_push(traza_gbuilder *b, uint64_t sym, traza_err *err);
/* Ends the input and returns the grammar; the builder is freed either way. */
traza_grammar *traza_gbuilder_finish(traza_gbuilder *b, traza_err *err);
void traza_gbuilder_free(traza_gbuilder *b);

traza_grammar *traza_grammar_build(const uint64_t *seq, size_t n, traza_galgo algo, const uint64_t *loop_header,
                                   traza_err *err);

/* ---- choosing a loop header ------------------------------------------------------- */

/* A loop-header candidate, scored over the whole expansion of a grammar. */
typedef struct traza_gheader {
    uint64_t symbol;
    uint64_t occurrences;     /* times it occurs in w */
    uint64_t back_entries;    /* occurrences right after a greater or equal symbol (addresses: a backward jump) */
    uint64_t cycles, distinct_cycles; /* w cut at it (traza_grammar_cycles) */
    double regular;           /* share of w in cycles that occur at least twice */
    double largest;           /* share of w of its longest cycle */
    uint64_t first;           /* index in w of its first occurrence */
    int in_call;              /* addresses: it runs inside a function its loop calls: more than half
                                 of `regular` is in cycles that land, out of sequence, at most 8
                                 bytes after an instruction that jumps away only later in the
                                 cycle (a return from a call made before the cycle began) */
    int return_point;         /* addresses: a call of its loop returns to it: more than half of
                                 `regular` is in cycles whose jump to it lands at most 8 bytes
                                 after one of their own jumps */
} traza_gheader;

/* Candidates tried by traza_grammar_pick_loop_header. */
#define TRAZA_GHEADER_CANDIDATES 32

/* Ranks loop-header candidates over the whole expansion of g (any algorithm), read from
 * the grammar in O(|G|) per candidate. Candidates: when the symbols are addresses,
 * the max/2 (rounded up) symbols most often entered from a greater or equal one (a
 * loop's backward jump); then, up to max, the most frequent symbols occurring twice
 * or more.
 * Ranked best first: the candidates whose `regular` is within 0.01 of the best, by
 * (addresses) not inside a call, not a return point, mostly entered by a backward
 * jump (back_entries > occurrences / 2), fewer distinct cycles, the earlier first
 * occurrence, the smaller symbol; then the others, the more regular first. *out
 * (calloc'ed, free() it) holds *n >= 1 entries; no candidate is an error. */
int traza_grammar_rank_loop_headers(const traza_grammar *g, int addresses, size_t max, traza_gheader **out, size_t *n,
                                    traza_err *err);

/* The best candidate of traza_grammar_rank_loop_headers on the Sequitur grammar of
 * seq's first `sample` symbols (0: all of them), as addresses. `why` (may be NULL)
 * receives the five best with their cycle counts. */
int traza_grammar_pick_loop_header(const uint64_t *seq, size_t n, size_t sample, uint64_t *loop_header, char *why, size_t whysize,
                          traza_err *err);

/* Validates structure (indexes, counts, acyclicity) and computes len/cum/depth. A
 * grammar whose expansion would exceed 2^63 symbols is rejected. */
int traza_grammar_finish(traza_grammar *g, traza_err *err);
void traza_grammar_free(traza_grammar *g);

/* Replaces g's symbol names with copies of names[k] for vals[k] (any order; a value
 * given twice is an error; names non-empty, at most 4096 bytes, no NUL). */
int traza_grammar_set_names(traza_grammar *g, const uint64_t *vals, const char *const *names, size_t n,
                            traza_err *err);
/* The name of terminal value v, or NULL. O(log nnames). */
const char *traza_grammar_name(const traza_grammar *g, uint64_t v);

/* ---- metrics ------------------------------------------------------------------ */

typedef struct traza_gstats {
    uint64_t size;     /* Size(G): r-pairs in all bodies + number of rules */
    double comp;       /* Size(G) / |w| */
    uint64_t length;   /* |w| */
    uint64_t rules;
    uint32_t depth;
    uint64_t cycles, distinct_cycles; /* 0 when no loop header is known */
} traza_gstats;

int traza_grammar_stats(const traza_grammar *g, traza_gstats *st, traza_err *err);

/* Property checks (for tests): digram uniqueness, rule utility (uses counted with
 * repetition; cycle rules and S exempt), no consecutive repetition (when rle).
 * Return 0 or -1 with the first violation in err. */
int traza_grammar_check(const traza_grammar *g, int rle, traza_err *err);

/* ---- random access ------------------------------------------------------------- */

/* The symbol at index i of the expansion (0-based). O(depth * log body). */
int traza_grammar_at(const traza_grammar *g, uint64_t i, uint64_t *out, traza_err *err);
/* Calls fn for every symbol of [i, j) in order; fn returns non-zero to stop.
 * O(depth + (j - i)). */
typedef int (*traza_gsym_fn)(void *user, uint64_t sym);
int traza_grammar_extract(const traza_grammar *g, uint64_t i, uint64_t j, traza_gsym_fn fn, void *user,
                          traza_err *err);

/* ---- .tzg files -------------------------------------------------------------- */

enum { TRAZA_TZG_ZSTD = 1, TRAZA_TZG_XZ = 2 };

int traza_tzg_encode(const traza_grammar *g, int backend, unsigned char **out, size_t *outlen, traza_err *err);
traza_grammar *traza_tzg_decode(const unsigned char *data, size_t len, traza_err *err);
int traza_tzg_write(const traza_grammar *g, const char *path, int backend, traza_err *err);
traza_grammar *traza_tzg_read(const char *path, traza_err *err);

/* ---- cycle analyses (need a loop header) ------------------------------------ */

typedef struct traza_gcycle {
    uint64_t hash;     /* identity of the cycle's content */
    uint64_t length;   /* in symbols */
    uint64_t count;    /* occurrences */
    uint64_t first;    /* index in w of the first occurrence */
} traza_gcycle;

/* Distinct cycles, most frequent first. A cycle starts at index 0 or at an
 * occurrence of loop_header and runs to the next occurrence of loop_header or the end. */
int traza_grammar_cycles(const traza_grammar *g, uint64_t loop_header, traza_gcycle **out, size_t *n, traza_err *err);
/* Positions of the occurrences of the cycle of identity `hash`/`length`. */
int traza_grammar_cycle_positions(const traza_grammar *g, uint64_t loop_header, uint64_t hash, uint64_t length,
                                  uint64_t **pos, size_t *n, traza_err *err);

/* The cycle sequence, run-length encoded: cycle index (into the table of
 * traza_grammar_cycles) and repetition, in order. */
typedef struct traza_gcrun {
    uint32_t cycle;
    uint64_t rep;
    uint64_t pos;      /* index in w of the run's first cycle */
} traza_gcrun;
int traza_grammar_cycle_runs(const traza_grammar *g, uint64_t loop_header, const traza_gcycle *tab, size_t ntab,
                             traza_gcrun **out, size_t *n, traza_err *err);

/* The cycle sequence as a grammar over cycle indexes, derived from g's rule structure
 * in O(|G|) time and memory (never one entry per cycle or per change of cycle):
 * terminals are indexes into tab (from traza_grammar_cycles), r-pair counts keep the
 * runs, rule 0 expands to the whole sequence (len[0] = number of cycles). wlen (may be
 * NULL) receives per rule the length in symbols of w of its expansion; free() it. */
int traza_grammar_cycle_grammar(const traza_grammar *g, uint64_t loop_header, const traza_gcycle *tab, size_t ntab,
                                traza_grammar **out, uint64_t **wlen, traza_err *err);

/* Anomalies on the cycle sequence (from traza_grammar_cycle_grammar): transitions
 * C_a -> C_b with P(b | a) < rare, counted on the cycle grammar in O(|G|); the spans
 * around them (rare transitions at most 2 cycles apart are merged; a rare run a^n is
 * one transition), ranked by score = sum of -log2 P. Only subtrees holding a rare
 * transition are visited; after `limit` rare transitions the scan stops (truncated). */
typedef struct traza_ganomaly {
    uint64_t start, end;   /* [start, end) in w */
    uint64_t from_k, to_k; /* cycle indexes (0-based, inclusive) in the cycle sequence */
    double score;
} traza_ganomaly;
typedef struct traza_ganomaly_info {
    uint64_t cycles;           /* length of the cycle sequence */
    uint64_t rare_transitions; /* occurrences of rare transitions (a rare run a^n counts once) */
    uint64_t scanned;          /* rare transitions visited */
    int truncated;             /* the scan stopped at `limit` */
} traza_ganomaly_info;
int traza_grammar_anomalies(const traza_grammar *cg, const uint64_t *wlen, const traza_gcycle *tab, size_t ntab,
                            double rare, uint64_t limit, traza_ganomaly **out, size_t *n, traza_ganomaly_info *info,
                            traza_err *err);

/* Covering of [i, j) by maximal grammar symbols (for comparing cycles at rule level). */
int traza_grammar_cover(const traza_grammar *g, uint64_t i, uint64_t j, traza_gsym **out, size_t *n,
                        traza_err *err);

/* One edit of the script that turns a stretch A of the expansion into a stretch B. */
typedef struct traza_gedit {
    char op;         /* '-': value is A's symbol at off_a, deleted; '+': B's at off_b, inserted */
    uint64_t off_a;  /* offset in A (from its start) where the edit sits */
    uint64_t off_b;  /* offset in B */
    uint64_t value;  /* the symbol */
} traza_gedit;
/* Longest stretch traza_grammar_diff expands. */
#define TRAZA_GDIFF_MAX_LEN (UINT64_C(1) << 24)
/* The shortest edit script (insertions and deletions, in order) from [a, a+la) to
 * [b, b+lb) of the expansion, symbol by symbol (Myers' O(ND) algorithm: time
 * O((la + lb) * D), memory O(D^2) for D edits). More than max_edits edits: an error
 * that says so. *out is freed by the caller. */
int traza_grammar_diff(const traza_grammar *g, uint64_t a, uint64_t la, uint64_t b, uint64_t lb, size_t max_edits,
                       traza_gedit **out, size_t *n, traza_err *err);

/* ---- reading symbol streams ---------------------------------------------------- */

enum { TRAZA_GIN_TEXT = 0, TRAZA_GIN_RAW32 = 32, TRAZA_GIN_RAW64 = 64 };
/* Reads a file (xz/zstd/gzip transparently) and calls fn for every symbol: TEXT =
 * one hex address per line (0x optional; empty and '#' lines skipped), or CSV lines
 * `time,address[,...]` (the address is the second field; a header line is skipped);
 * RAW32/RAW64 = little-endian words. fn returns non-zero to fail (err set by it). */
int traza_grammar_read(const char *path, int fmt, int (*fn)(void *user, uint64_t sym), void *user,
                       traza_err *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
