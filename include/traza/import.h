/* traza — importing trace files into a workspace. */
#ifndef TRAZA_IMPORT_H
#define TRAZA_IMPORT_H

#include <stddef.h>
#include <stdint.h>
#include "traza/store.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

typedef struct traza_import_opts {
    const char *format;   /* NULL or "auto" = detect by content */
    const char *name;     /* trace name; NULL = derived from the first file name */
    const char *map;      /* csv: the column map "ts=0,end=1,type=4,producer=5,..." */
    int time_unit;        /* override of the format's default unit; 0 = format default... */
    int has_time_unit;    /* ...unless this is set */
    int no_postprocess;   /* skip the derived trace some formats build after the import
                             (CTF: the processed kernel / provider trace, traza/ctf.h) */
    int strict;           /* an input the importer would skip (counted in the trace's
                             "skipped.*" parameters) is an error instead */
    const char *elf;      /* etm: an ELF program naming the functions of the ranges
                             (at its link addresses); NULL = the snapshot's ELF images only;
                             ctf: naming the functions of cyg-profile calls (NULL = by
                             address); tarmac, itf: naming the functions of the calls
                             found in the instructions (NULL = by address) */
    const char *symbols;  /* ctf: a symbol table in nm's output format ("ADDR TYPE NAME"
                             lines) naming the cyg-profile functions at those exact
                             addresses, before elf; NULL = none */
    double timestamp_hz;  /* etm: the frequency of the trace's timestamp counter; its
                             timestamps then become nanoseconds (time unit 10^-9 s).
                             0 = time stays in counter ticks */
    int replace;          /* a trace of that name is replaced (traza_writer_begin_replacing),
                             not an error */
    const traza_kv *params; /* parameters given to the trace besides the importer's (over
                               those of the same key), in the commit that publishes it;
                               checked as traza_meta_check does; nparams of them */
    size_t nparams;
    int layout;           /* traza_layout (traza/store.h): how the events are stored;
                             TRAZA_LAYOUT_AUTO = the importer's choice (packed for the
                             function traces of the tracer and uftrace, else rows) */
} traza_import_opts;

typedef struct traza_importer {
    const char *name;     /* "paje", "kptrace", "pc", "csv", ... */
    const char *tool_name; /* its name as a registered tool: "import-paje", ... */
    const char *summary;
    /* Confidence 0..100 that `head` (the first bytes of the file) is this format. */
    int (*detect)(const char *path, const unsigned char *head, size_t len);
    /* Reads the files into the writer (which the caller commits or aborts). */
    int (*read)(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths,
                const traza_import_opts *opts, traza_err *err);
} traza_importer;

size_t traza_importer_count(void);
const traza_importer *traza_importer_at(size_t i);
const traza_importer *traza_importer_find(const char *name);
/* Picks the importer by content; error lists what was tried. */
const traza_importer *traza_importer_detect(const char *path, traza_err *err);

/* Imports files as one new trace (or, with opts->replace, the new version of a trace).
 * On any failure the workspace is unchanged. After
 * the commit, formats with a post-import step (CTF) build their derived trace unless
 * opts->no_postprocess; a failure of that step is logged as a warning and leaves the
 * imported trace in place. */
int traza_import(traza_workspace *ws, const char *const *paths, size_t npaths,
                 const traza_import_opts *opts, traza_trace_info *out, traza_err *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
