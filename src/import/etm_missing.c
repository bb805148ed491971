/* CoreSight trace decoding in a build made without OpenCSD's development files (the
 * Makefile compiles this file instead of etm_decode.c then): snapshots are still
 * detected, and decoding one fails naming the library this build lacks. */
#include "traza/etm.h"
#include "util/features.h"

const int tz_built_etm = 0;

int traza_etm_decode(const char *dir, traza_etm_fn fn, void *user, traza_err *err)
{
    (void)fn;
    (void)user;
    return tz_feature_missing_at(err, dir, TZ_FEATURE_ETM);
}
