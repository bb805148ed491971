/* traza grammar: shared declarations of the sub-verb files. */
#ifndef TZ_GRAMMAR_CLI_H
#define TZ_GRAMMAR_CLI_H

#include "cli/cli.h"
#include "traza/grammar.h"
#include "traza/elf.h"
#include "util/util.h"

/* Options common to the grammar sub-verbs. */
typedef struct grammar_opts {
    const char *out;
    const char *algo;
    const char *loop_header;      /* address, or "auto" */
    const char *trace;
    const char *producer;
    const char *elf;
    const char *svg;
    int raw;             /* 0, 32 or 64 */
    int backend;
    int json;
    int quiet;
    long top;
    const char *from_etm; /* compress: a CoreSight snapshot directory */
} grammar_opts;

/* Parses options; returns the index of the first positional argument, or -1
 * (EXIT_OK: help printed) / -2 (usage error). */
int grammar_cli_parse(traza_cli *cli, const char *verb, int argc, char **argv, grammar_opts *o);
traza_grammar *grammar_cli_load(const char *path);
/* The best loop header of g's expansion (traza_grammar_rank_loop_headers), the first
 * candidates printed on stderr unless quiet. 0, or the exit status (error printed). */
int grammar_cli_auto_loop_header(const traza_grammar *g, int addresses, int quiet, uint64_t *loop_header);
/* The loop header to analyse with: --loop-header (auto: chosen on g), else the one
 * stored in the file. */
int grammar_cli_loop_header(const traza_grammar *g, const grammar_opts *o, uint64_t *loop_header);
int grammar_cli_parse_u64(const char *s, uint64_t *v);
/* A grammar symbol as text: R<n> for a rule; a terminal by its stored name, else its
 * function and offset in elf (may be NULL), else in hex; ^rep when repeated. */
void grammar_cli_sym_text(const traza_grammar *g, const traza_gsym *s, const traza_elf *elf, tz_buf *b);

int grammar_cmd_cycles(traza_cli *cli, int argc, char **argv);
int grammar_cmd_cycle_time(traza_cli *cli, int argc, char **argv);
int grammar_cmd_compare(traza_cli *cli, int argc, char **argv);
int grammar_cmd_anomalies(traza_cli *cli, int argc, char **argv);

#endif
