/* traza — exporting a stored trace (or the events of a filter) to a file format. */
#ifndef TRAZA_EXPORT_H
#define TRAZA_EXPORT_H

#include <stdio.h>
#include "traza/store.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

/* Choices an exporter may honour (zero = the defaults). */
typedef struct traza_export_opts {
    int absolute_time; /* chrome: timestamps as stored, not from the trace start */
} traza_export_opts;

typedef struct traza_exporter {
    const char *name;       /* "paje", "pjdump", "chrome", "csv" */
    const char *tool_name;  /* "export-paje", ... */
    const char *summary;
    /* Writes the events the filter selects (all when NULL) to `out`. The writer
     * checks every write; on error it returns -1 with err set. */
    int (*write)(traza_trace *t, const traza_filter *f, FILE *out, traza_err *err);
    /* The same with options; NULL when the exporter has none (write is used). */
    int (*write_opts)(traza_trace *t, const traza_filter *f, const traza_export_opts *o, FILE *out, traza_err *err);
} traza_exporter;

size_t traza_exporter_count(void);
const traza_exporter *traza_exporter_at(size_t i);
const traza_exporter *traza_exporter_find(const char *name);

/* Exports to a path ("-" = stdout), via a temporary file renamed into place so a
 * failed export never leaves a half-written file behind. */
int traza_export(traza_trace *t, const char *format, const traza_filter *f, const char *path, traza_err *err);
/* traza_export with options (o may be NULL). */
int traza_export_with(traza_trace *t, const char *format, const traza_filter *f, const traza_export_opts *o, const char *path,
                      traza_err *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
