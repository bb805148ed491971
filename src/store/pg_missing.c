/* PostgreSQL workspaces in a build made without libpq's development files (the
 * Makefile compiles this file instead of src/store/pg_*.c then): the feature says it
 * is missing, as it does at run time when libpq itself is absent. */
#include "store/backend.h"

tz_backend *tz_pg_open(traza_ctx *ctx, const char *uri, traza_err *err)
{
    (void)ctx;
    (void)uri;
    traza_err_set(err, TRAZA_E_UNSUPPORTED,
                  "PostgreSQL workspaces: this build of traza was made without libpq (Debian package libpq-dev)");
    return NULL;
}
