/* Internal: pieces of the Chrome JSON importer shared with its fuzz harness. */
#ifndef TZ_CHROME_INTERNAL_H
#define TZ_CHROME_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include "traza/import.h"

/* Reads a whole (possibly compressed) file through tz_input; *out is NUL-terminated. */
int tz_input_slurp(const char *path, char **out, size_t *len, traza_err *err);
/* Parses; returns 0, 1 when an unclosed top-level array was closed, -1 with
 * "path:line:column: invalid JSON: ..." on error. */
int tz_chrome_parse(const char *path, const char *data, size_t len, json_t **root, traza_err *err);
/* The event array of a parsed document. */
int tz_chrome_events(const char *path, json_t *root, json_t **events, traza_err *err);
/* Writes the events of a parsed document into w (time unit ns). */
int tz_chrome_import_json(traza_ctx *ctx, traza_writer *w, const char *path, json_t *root, int strict, traza_err *err);

#endif
