/* The libmicrohttpd function table (src/server/mhd_api.h). */
#include "server/mhd_api.h"
#include "server/server.h"

const int tz_built_serve = 1;

TZ_DYNLIB_DEFINE(mhd, TZ_MHD_FUNCS, "libmicrohttpd.so.12", "libmicrohttpd12", "traza serve")
