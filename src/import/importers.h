/* Internal: the importers built into libtraza (one file per format). */
#ifndef TZ_IMPORTERS_H
#define TZ_IMPORTERS_H

#include "traza/import.h"

extern const traza_importer tz_importer_paje;
extern const traza_importer tz_importer_pjdump;
extern const traza_importer tz_importer_kptrace;
extern const traza_importer tz_importer_pc;
extern const traza_importer tz_importer_csv;
extern const traza_importer tz_importer_rtdump;
extern const traza_importer tz_importer_rtram;
extern const traza_importer tz_importer_chrome;
extern const traza_importer tz_importer_uftrace;
extern const traza_importer tz_importer_ctf;
extern const traza_importer tz_importer_etm;
extern const traza_importer tz_importer_tracecmd;
extern const traza_importer tz_importer_perfscript;
extern const traza_importer tz_importer_ftrace;
extern const traza_importer tz_importer_perfetto;
extern const traza_importer tz_importer_tarmac;
extern const traza_importer tz_importer_itf;

/* The readers of the formats that need an optional library: the library's own file,
 * or <feature>_missing.c in a build made without it (Makefile: FEATURES). */
int tz_ctf_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts, traza_err *err);
/* trace-cmd recordings start with "\x17\x08\x44" "tracing" then the version as a
 * NUL-terminated decimal string. */
#define TC_MAGIC "\x17\x08\x44tracing"
#define TC_MAGIC_LEN 10
int tz_tracecmd_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts,
                     traza_err *err);

/* In detection order (ties go to the earlier one). */
static const traza_importer *const tz_importers[] = {
    &tz_importer_paje,
    &tz_importer_pjdump,
    &tz_importer_kptrace,
    &tz_importer_pc,
    &tz_importer_csv,
    &tz_importer_rtdump,
    &tz_importer_rtram,
    &tz_importer_chrome,
    &tz_importer_uftrace,
    &tz_importer_perfetto,
    &tz_importer_ctf,
    &tz_importer_etm,
    &tz_importer_tracecmd,
    &tz_importer_perfscript,
    &tz_importer_ftrace,
    &tz_importer_tarmac,
    &tz_importer_itf,
    NULL,
};

#endif
