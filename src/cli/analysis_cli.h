/* Runs an analysis tool from a subcommand's argv: TRACE plus --OPTION VALUE pairs
 * typed by the tool's option table (boolean options take no value). */
#ifndef TZ_ANALYSIS_CLI_H
#define TZ_ANALYSIS_CLI_H

#include "cli/cli.h"

/* The --save/--replace lines of the analyses' usage texts. */
#define CLI_SAVE_HELP                                                                          \
    "  --save NAME --replace  the saved result's name; a name holding a result made by another\n" \
    "              tool or with other options is an error unless --replace; the same run\n"      \
    "              again writes its result anew (exit 0)\n"

int cli_run_analysis(traza_cli *cli, const char *cmd, const char *tool, int argc, char **argv);

#endif
