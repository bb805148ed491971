/* The trace-cmd reader in a build made without the development files of libtracecmd
 * and libtraceevent (the Makefile compiles this file instead of the feature's own
 * then): the format is still detected, and importing it fails naming the library this
 * build lacks. */
#include "import/importers.h"
#include "util/features.h"

const int tz_built_tracecmd = 0;

int tz_tracecmd_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts, traza_err *err)
{
    (void)ctx;
    (void)w;
    (void)opts;
    return tz_feature_missing_at(err, npaths ? paths[0] : NULL, TZ_FEATURE_TRACECMD);
}
