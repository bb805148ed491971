/* Printing trace metadata as text or JSON (info and list share it). */
#ifndef TZ_CLI_INFO_PRINT_H
#define TZ_CLI_INFO_PRINT_H

#include "cli/cli.h"

void cli_info_json(tz_buf *b, const traza_trace_info *info);
/* The same object, left open for more members. */
void cli_info_json_members(tz_buf *b, const traza_trace_info *info);
void cli_info_text(tz_buf *b, const traza_trace_info *info);
/* Prints a new trace's metadata: JSON with --json, else "<verb> 'name' (...): N events...". */
void cli_print_new_trace(traza_cli *cli, const char *verb, const traza_trace_info *info);

#endif
