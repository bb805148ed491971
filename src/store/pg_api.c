/* The libpq function table (src/store/pg_api.h). */
#include "store/pg_api.h"
#include "util/features.h"

const int tz_built_pg = 1;

TZ_DYNLIB_DEFINE(pq, TZ_PQ_FUNCS, "libpq.so.5", "libpq5", "PostgreSQL workspaces")
