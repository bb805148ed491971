/* Printing trace metadata as text or JSON (info and list share it). */
#ifndef TZ_CLI_INFO_PRINT_H
#define TZ_CLI_INFO_PRINT_H

#include "traza/traza.h"
#include "util/util.h"

void cli_info_json(tz_buf *b, const traza_trace_info *info);
void cli_info_text(tz_buf *b, const traza_trace_info *info);

#endif
