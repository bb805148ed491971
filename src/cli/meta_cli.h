/* Trace metadata on the command line: KEY=VALUE arguments and --where selections. */
#ifndef TZ_META_CLI_H
#define TZ_META_CLI_H

#include "cli/cli.h"

/* Splits "KEY=VALUE" in place into kv (pointing into arg); checks the key. Returns 0,
 * or EXIT_USAGE with the message printed for `cmd`. */
int cli_meta_arg(const char *cmd, char *arg, traza_kv *kv);

/* A --where selection: KEY=VALUE, KEY!=VALUE, KEY~GLOB or KEY!~GLOB. */
typedef struct cli_meta_where {
    char *key;
    const char *value;
    int negate, glob;
} cli_meta_where;
/* Parses arg (modified in place). Returns 0, or EXIT_USAGE with the message printed. */
int cli_meta_where_parse(const char *cmd, char *arg, cli_meta_where *w);
/* The value of a key for selections: name, format, alias, or a metadata key; NULL
 * when the trace has none. */
const char *cli_meta_value(const traza_trace_info *info, const char *key);
/* 1 if the trace matches every selection. */
int cli_meta_matches(const traza_trace_info *info, const cli_meta_where *w, size_t n);

#endif
