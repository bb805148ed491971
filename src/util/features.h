/* The optional features of libtraza (include/traza/ctx.h: traza_feature_get). Each
 * feature's tz_built_<feature> is defined by its *_api.c (1) or, in a build without
 * its library's development files, by the *_missing.c the Makefile compiles instead
 * (0): the link itself says which was built. */
#ifndef TZ_FEATURES_H
#define TZ_FEATURES_H

#include "traza/ctx.h"

enum { TZ_FEATURE_PG, TZ_FEATURE_CTF, TZ_FEATURE_ETM, TZ_FEATURE_TRACECMD };

extern const int tz_built_pg, tz_built_ctf, tz_built_etm, tz_built_tracecmd;

/* -1 with TRAZA_E_UNSUPPORTED: "[path: ]<what>: this build of traza was made without
 * <library> (Debian package <package>)", or "packages" for several. */
int tz_feature_missing(traza_err *err, const char *path, const traza_feature *f);
/* The same for libtraza's feature `id` (TZ_FEATURE_*). */
int tz_feature_missing_at(traza_err *err, const char *path, size_t id);

#endif
