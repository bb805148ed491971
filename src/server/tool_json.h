/* Front-end code the CLI shares with the server: a registered tool described as
 * JSON, for `traza tools --json` and the server's /api/tools (one description,
 * written once). */
#ifndef TZ_TOOL_JSON_H
#define TZ_TOOL_JSON_H

#include "traza/tool.h"
#include "util/util.h"

/* 1 when the option's value names a file (an --svg drawing, an output file). */
int tz_tool_option_names_file(const traza_tool_option *o);
/* {"name","kind","summary","origin","options":[{"name","type","default","help",
 * "required","repeatable","allowed"}]}; "allowed" lists the values of a boolean,
 * or of a text option whose help starts with them (else null). no_files: the
 * options that name a file are left out. */
void tz_tool_json(tz_buf *b, const traza_tool *t, int no_files);

#endif
