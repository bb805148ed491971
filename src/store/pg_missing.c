/* PostgreSQL workspaces in a build made without libpq's development files (the
 * Makefile compiles this file instead of src/store/pg_*.c then): the feature says it
 * is missing, as it does at run time when libpq itself is absent. */
#include "store/backend.h"
#include "util/features.h"

const int tz_built_pg = 0;

tz_backend *tz_pg_open(traza_ctx *ctx, const char *uri, traza_err *err)
{
    (void)ctx;
    (void)uri;
    tz_feature_missing_at(err, NULL, TZ_FEATURE_PG);
    return NULL;
}
