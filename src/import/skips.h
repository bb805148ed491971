/* Complete or loud: how every importer reports what it leaves out. Each skipped kind
 * is one warning "PATH: skipped N WHAT", the trace parameter "skipped.KEY" = N, and a
 * part of the error of a strict import (traza_import_opts.strict), which fails. */
#ifndef TZ_IMPORT_SKIPS_H
#define TZ_IMPORT_SKIPS_H

#include <stdint.h>
#include "traza/import.h"
#include "util/util.h"

typedef struct tz_skips {
    traza_ctx *ctx;
    traza_writer *w;
    const char *path;
    traza_err *err;
    tz_buf msg;     /* "N WHAT, N WHAT" */
    int64_t total;
    int rc;         /* the first failure (setting a parameter, memory) */
} tz_skips;

/* One kind skipped: a key (the parameter's suffix) and what was skipped in words. */
typedef struct tz_skip_kind {
    const char *key, *what;
    int64_t n;
} tz_skip_kind;

void tz_skips_init(tz_skips *s, traza_ctx *ctx, traza_writer *w, const char *path, traza_err *err);
/* Notes one kind (nothing when n is 0); 0 or -1 (err set). */
int tz_skips_note(tz_skips *s, const char *key, const char *what, int64_t n);
/* Ends the report: fails when anything was skipped and the import is strict, or
 * when the trace would hold no event (emitted == 0; -1 = not counted). 0 or -1. */
int tz_skips_finish(tz_skips *s, int strict, int64_t emitted);
/* The whole report of a table of kinds at once. */
int tz_skips_report(traza_ctx *ctx, traza_writer *w, const char *path, const tz_skip_kind *kinds, size_t n,
                    int strict, int64_t emitted, traza_err *err);
/* opts->strict, NULL-safe. */
static inline int tz_strict(const traza_import_opts *opts) { return opts && opts->strict; }

#endif
