/* The traza command-line front end: shared state and helpers for subcommands.
 * One file per subcommand (cmd_<name>.c); the list is commands.def. */
#ifndef TZ_CLI_H
#define TZ_CLI_H

#include <getopt.h>
#include <stdio.h>
#include "traza/traza.h"
#include "util/util.h"

/* Exit codes (DESIGN.md): 0 ok, 1 failure, 2 usage error. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

typedef struct traza_cli {
    traza_ctx *ctx;
    traza_stop stop;          /* the context's stop: the first SIGINT (main.c) */
    const char *ws_path;      /* -w / TRAZA_WORKSPACE / default */
    traza_workspace *ws;      /* opened on first use */
    int json;                 /* --json */
    int quiet;
    int verbose;
    int progress_tty;         /* stderr is a terminal: draw progress bars */
    int progress_shown;       /* a progress line is on the terminal */
    int plugins_loaded;       /* cli_registry has loaded the plugins */
    char **opt_argv;          /* the arguments and option table cli_getopt parses */
    const char *opt_short;
    const struct option *opt_long;
    char ws_buf[4096];
} traza_cli;

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(traza_cli *cli, int argc, char **argv);
    const char *usage;        /* full help text */
} cli_command;

#define CMD(name, summary) int cmd_##name(traza_cli *cli, int argc, char **argv); extern const char cmd_##name##_usage[];
#include "cli/commands.def"
#undef CMD

/* "<directory of the running traza>/REL" into OUT: the installed pieces traza loads
 * (plugins, the tracer runtime) are found relative to the binary, so one installed
 * under any PREFIX or DESTDIR finds its own. 0, or -1 (unknown or too long). */
int cli_exe_relative(char *out, size_t size, const char *rel);
/* The tool registry, the plugins of $TRAZA_PLUGIN_PATH (else ../lib/traza/plugins
 * beside the binary) loaded at the first call: the commands that run no tool do not
 * scan for them. */
traza_registry *cli_registry(traza_cli *cli);
/* The workspace's location (-w, else the default); NULL after printing why none. */
const char *cli_ws_location(traza_cli *cli);
/* Opens the workspace (once), creating it if needed: for the commands that add traces.
 * Returns NULL after printing the error. */
traza_workspace *cli_ws(traza_cli *cli);
/* Opens the workspace (once) if there is one, for the commands that read: with none,
 * prints that there is no trace `trace` (or, given NULL, no workspace) and returns
 * NULL; nothing is created. */
traza_workspace *cli_ws_existing(traza_cli *cli, const char *trace);
/* Opens a trace by name or id of an existing workspace; NULL after printing the error. */
traza_trace *cli_trace(traza_cli *cli, const char *name, int flags);

/* Prints "traza: <msg>" for a library error; returns the matching exit code. */
int cli_fail(traza_cli *cli, const traza_err *err);
/* cli_fail for a command that names a new trace (--name): a name already taken gets
 * the advice to choose another or remove the trace. */
int cli_fail_new_trace(traza_cli *cli, const traza_err *err);
/* cli_fail for a command that saves a result named by name_opt ("--save", "--name"):
 * a name already taken gets the advice of the options that choose another or replace
 * it. */
int cli_fail_saved(traza_cli *cli, const traza_err *err, const char *name_opt);
/* Prints "traza CMD: <msg>" and a hint to --help; returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Handles -h/--help for a command: prints usage, returns 1 if it did. */
int cli_print_usage(const char *cmd);

/* -o OUT of a command: an output file that appears whole or not at all (tz_outfile,
 * util.h). */
typedef tz_outfile cli_out;
/* 0, or -1 after printing why. */
int cli_out_open(cli_out *o, const char *path);
/* A number with an optional suffix k, M or G (10^3, 10^6, 10^9) into *out; -1 when
 * the text is not one. */
int cli_parse_scaled(const char *s, double *out);
/* Closes; renames or removes the temporary. -1 (errno set) when closing or renaming
 * fails; the temporary is then removed. */
int cli_out_close(cli_out *o, int ok);

/* Long options every data command shares. Use CLI_COMMON_LONGOPTS at the start of
 * a command's option table and cli_common_opt() in its switch's default case. */
enum { OPT_JSON = 1000, OPT_HELP_LONG, OPT_WS, OPT_QUIET, OPT_VERBOSE, OPT_FIRST_FREE = 1100 };
#define CLI_COMMON_LONGOPTS                                   \
    {"json", no_argument, NULL, OPT_JSON},                    \
    {"help", no_argument, NULL, 'h'},                         \
    {"workspace", required_argument, NULL, 'w'},              \
    {"quiet", no_argument, NULL, 'q'}
/* Returns 1 if it handled the option, 0 if unknown, -1 if the command should exit
 * with EXIT_OK (help printed), -2 for a usage error (message printed: an unknown
 * option is named, with the closest one of the table when there is one). */
int cli_common_opt(traza_cli *cli, const char *cmd, int opt);
/* getopt_long over a command's options (`shortopts` starting with ':'), remembered
 * for the errors cli_common_opt prints. */
int cli_getopt(traza_cli *cli, int argc, char **argv, const char *shortopts, const struct option *longopts);

/* The closest of a set of option names to a mistyped one, within a small edit
 * distance: cli_near_init, cli_near_add for each candidate, then .best (or NULL). */
typedef struct cli_near {
    const char *word;
    const char *best;
    size_t dist;
} cli_near;
void cli_near_init(cli_near *n, const char *word);
void cli_near_add(cli_near *n, const char *candidate);
/* "traza CMD: unknown option 'ARG'", "; did you mean '--BEST'?" when near->best is
 * set, and the hint to --help. Returns EXIT_USAGE. */
int cli_unknown_option(const char *cmd, const char *arg, const cli_near *near);
/* Whether `name` is one of the tool's options; if not, prints the unknown-option error
 * (with the closest of its options and of the common ones) and returns 0. */
int cli_tool_has_option(const char *cmd, const traza_tool *tool, const char *name);
/* TEXT of a tool (an error, an option's help) into OUT, each option 'NAME' of the tool
 * written --NAME (cli_words.c). OUT is truncated to SIZE. */
void cli_tool_words(const traza_tool *tool, const char *text, char *out, size_t size);
/* cli_fail for the error of a tool, its options written as the CLI's. */
int cli_fail_tool(traza_cli *cli, const traza_tool *tool, const traza_err *err);
/* The option advice cli_fail appends to a library message about what an option gives
 * (the library names no option), or NULL. */
const char *cli_hint(const char *msg);

/* For the commands whose output is not JSON (a file format, decompressed text): with
 * --json, prints that `what` has no JSON output and returns EXIT_USAGE; else 0. */
int cli_no_json(const traza_cli *cli, const char *cmd, const char *what);

/* Filter options shared by query, stats, density, export, filter, ... */
typedef struct cli_filter {
    traza_filter f;
    const char *from_s, *to_s;
    const char *types_s[64];
    size_t ntypes_s;
    const char *producers_s[64];
    size_t nproducers_s;
    int subtree;
    int absolute;              /* --absolute: times with a unit are not from the start */
    const char *categories_s[8];
    size_t ncategories_s;
    traza_param_cond conds[32];
    size_t nconds;
    char *cond_bufs[32];
    traza_regex_cond regexes[32];
    size_t nregexes;
    char *regex_bufs[32];
    const char *set_s;
    const char *during_s;      /* --during: a saved result of time ranges */
    int32_t *types;            /* the ids resolved by traza_filter_resolve */
    int32_t *producers;
} cli_filter;

enum {
    OPT_FROM = 1200, OPT_TO, OPT_TYPE, OPT_PRODUCER, OPT_SUBTREE, OPT_CATEGORY, OPT_WHERE, OPT_REGEX, OPT_SET, OPT_OVERLAP, OPT_ABSOLUTE,
    OPT_DURING
};
#define CLI_FILTER_LONGOPTS                                         \
    {"from", required_argument, NULL, OPT_FROM},                    \
    {"to", required_argument, NULL, OPT_TO},                        \
    {"type", required_argument, NULL, OPT_TYPE},                    \
    {"producer", required_argument, NULL, OPT_PRODUCER},            \
    {"subtree", no_argument, NULL, OPT_SUBTREE},                    \
    {"category", required_argument, NULL, OPT_CATEGORY},            \
    {"where", required_argument, NULL, OPT_WHERE},                  \
    {"regex", required_argument, NULL, OPT_REGEX},                  \
    {"set", required_argument, NULL, OPT_SET},                      \
    {"overlap", no_argument, NULL, OPT_OVERLAP},                   \
    {"absolute", no_argument, NULL, OPT_ABSOLUTE},                 \
    {"during", required_argument, NULL, OPT_DURING}
#define CLI_FILTER_HELP                                                                              \
    "Filters:\n"                                                                                     \
    "  --from T, --to T        time window: 1.5ms, 200us, 3s from the trace's start; raw ticks,\n"   \
    "                          or @T (@1571261796.5s), are absolute\n"                             \
    "  --absolute              times with a unit are absolute too\n"                                \
    "  --overlap               with a window: intervals overlapping it, not only starting in it\n"  \
    "  --type NAME             event type (repeatable)\n"                                           \
    "  --producer P            producer name or path a/b/c (repeatable); --subtree adds descendants\n" \
    "  --category C            punctual, state, link or variable (repeatable)\n"                    \
    "  --where 'PARAM OP VAL'  parameter condition, OP one of = != < > <= >= (repeatable)\n"        \
    "  --regex 'COL~RE'        PCRE2 on a column (type, producer, ts, end_ts, category, cpu, value,\n" \
    "                          level) or a parameter; 'COL!~RE' negates (repeatable)\n"             \
    "  --set RESULT            only events of a saved event set or group (GROUP/NODE: the\n"         \
    "                          events under one node of a group, e.g. seq:A,B/3)\n"         \
    "  --during RESULT         only events overlapping one of the time ranges of saved\n"       \
    "                          annotations (e.g. an aggregation's parts); without --from/--to\n" \
    "                          the window is the ranges' span\n"

void cli_filter_init(cli_filter *cf);
/* Returns 1 if the option was a filter option, 0 if not, -1 on a usage error. */
int cli_filter_opt(cli_filter *cf, const char *cmd, int opt, const char *arg);
/* Resolves names against the trace; prints errors; 0 or the exit code. */
int cli_filter_resolve(traza_cli *cli, cli_filter *cf, traza_trace *t);
void cli_filter_free(cli_filter *cf);

/* Progress on stderr when it is a terminal. */
void cli_progress(void *user, const char *what, uint64_t done, uint64_t total);
/* Erases the progress line if one is shown: call before printing anything else. */
void cli_progress_clear(traza_cli *cli);
/* The output callback of a tool run (traza_tool_call): text to stdout; user is the cli. */
void cli_tool_print(void *user, const char *text);

/* Writes a whole buffer to a file or "-" (stdout); prints the error and returns 1. */
int cli_write_file(const char *path, const char *data, size_t len);

#endif
