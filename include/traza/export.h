/* traza — exporting a stored trace (or the events of a filter) to a file format. */
#ifndef TRAZA_EXPORT_H
#define TRAZA_EXPORT_H

#include <stddef.h>
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

/* Experimental API: it may change between minor versions; its declarations are seen
 * only with TRAZA_EXPERIMENTAL_API defined (doc/architecture.md, "Stable and
 * experimental API"). */
#ifdef TRAZA_EXPERIMENTAL_API

/* Where text goes: fn(arg, data, len) takes the next len bytes (not NUL-terminated);
 * a nonzero return stops the writer, which returns it. */
typedef int (*traza_write_fn)(void *arg, const char *data, size_t len);

/* ---- events as text: `traza query`'s table, CSV and JSON --------------------------- */

typedef enum traza_text_format {
    TRAZA_TEXT_TABLE = 0,     /* fixed-width columns, then the details as name=value */
    TRAZA_TEXT_CSV = 1,       /* RFC 4180, the columns of the csv exporter */
    TRAZA_TEXT_JSON = 2,      /* an array of objects */
    TRAZA_TEXT_JSON_TICKS = 3 /* the same, times as strings (exact in a browser beyond 2^53) */
} traza_text_format;

/* A writer of a trace's events as text. It holds one buffer, reused for every row. */
typedef struct traza_event_text traza_event_text;

/* NULL when out of memory. */
traza_event_text *traza_event_text_open(traza_trace *t, traza_text_format fmt, traza_write_fn fn, void *arg);
/* Each passes its text to fn in one call: the head (the table's and CSV's header
 * line, JSON's '['), an event (in JSON an object, after a ',' from the second on; fn
 * gets it whole, so a caller may reopen the object to add fields), the tail (JSON's
 * "]\n"). 0, -1 when out of memory, or fn's nonzero return. */
int traza_event_text_header(traza_event_text *w);
int traza_event_text_row(traza_event_text *w, const traza_event *ev);
int traza_event_text_footer(traza_event_text *w);
void traza_event_text_close(traza_event_text *w);

#endif /* TRAZA_EXPERIMENTAL_API */

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
