/* Runs an analysis tool from a subcommand's argv: TRACE plus --OPTION VALUE pairs
 * typed by the tool's option table (boolean options take no value). */
#ifndef TZ_ANALYSIS_CLI_H
#define TZ_ANALYSIS_CLI_H

#include "cli/cli.h"

int cli_run_analysis(traza_cli *cli, const char *cmd, const char *tool, int argc, char **argv);

#endif
